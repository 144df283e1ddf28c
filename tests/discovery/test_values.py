import numpy as np
import pytest

from dbt_schema_link.discovery.values import ContainmentIndex, estimate_containment, value_space_surprise
from tests.discovery.builders import K, minhash


def sig(values):
    return np.asarray(minhash([str(v) for v in values]), dtype=np.uint64)


def est(a, b):
    return estimate_containment(sig(a), len(set(a)), sig(b), len(set(b)))


def test_contained_set_estimates_one_whatever_the_sizes():
    small, big = range(1, 40), range(1, 5000)
    e = est(small, big)
    assert e.containment == 1.0 and e.violations == 0
    assert est(range(1, 400), range(1, 500)).containment == 1.0


def test_disjoint_and_partial_sets():
    assert est(range(1000, 1200), range(1, 300)).containment < 0.2
    half = est(range(1, 201), range(101, 1001))  # half of the child is in the parent
    assert 0.3 < half.containment < 0.7
    assert half.violations > 0


def test_reliability_is_low_when_the_child_is_tiny_next_to_the_parent():
    assert est(range(1, 4), range(1, 100_000)).reliability < 0.1
    assert est(range(1, 300), range(1, 400)).reliability > 0.95


def test_jaccard_formula_agrees_for_equal_sets():
    e = est(range(1, 100), range(1, 100))
    assert e.jaccard == 1.0 and e.containment == 1.0


def test_lsh_ensemble_finds_parents_containing_the_query():
    parents = {
        "customers": range(1, 3000),
        "orders": range(500_000, 520_000),
        "codes": [f"C{i}" for i in range(200)],
    }
    entries = [(name, sig(vals), len(set(vals))) for name, vals in parents.items()]
    index = ContainmentIndex(entries, k=K, threshold=0.7, num_part=4, m=8)
    child = list(range(10, 2900, 7))
    found = set(index.query(sig(child), len(child)))
    assert "customers" in found and "orders" not in found and "codes" not in found


def test_empty_index_answers_nothing():
    index = ContainmentIndex([], k=K, threshold=0.7, num_part=4, m=8)
    assert list(index.query(sig([1, 2]), 2)) == []


def test_surprise_separates_dense_from_sparse_keys():
    # 4 values of 1 digit inside ids 1..1000: no surprise at all
    assert value_space_surprise(4, 1, 1, 1000, numeric=True) == 0.0
    # 12 four-digit values inside 16 sparse four-digit ids: improbable by chance
    assert value_space_surprise(12, 4, 4, 16, numeric=True) > 20
    # text codes are a large space
    assert value_space_surprise(5, 3, 3, 100, numeric=False) > value_space_surprise(5, 3, 3, 100, numeric=True)
    assert value_space_surprise(0, None, None, 10, numeric=True) == 0.0


@pytest.mark.parametrize("a_n, b_n", [(0, 5), (5, 0)])
def test_empty_sets_estimate_nothing(a_n, b_n):
    e = estimate_containment(sig([1]), a_n, sig([1]), b_n)
    assert e.containment == 0.0 and e.reliability == 0.0


def test_batched_estimates_are_the_one_pair_estimates_to_the_last_bit():
    """``estimate_containments`` does the one-pair arithmetic over whole arrays: same numbers,
    including pairs without values (0 distinct) and densified (borrowed) positions."""
    import numpy as np

    from dbt_schema_link.discovery.values import ContainmentEstimate, estimate_containments

    rng = np.random.default_rng(35)
    rows, k = 64, 16
    a = rng.integers(0, 50, size=(rows, k)).astype(np.uint64)
    b = np.where(rng.random((rows, k)) < 0.5, a, rng.integers(0, 50, size=(rows, k)).astype(np.uint64))
    a_n, b_n = rng.integers(1, 400, size=rows), rng.integers(1, 4000, size=rows)
    a_n[0], b_n[1] = 0, 0  # pairs without values
    a_borrowed, b_borrowed = rng.random((rows, k)) < 0.2, rng.random((rows, k)) < 0.2
    batch = estimate_containments(a, a_n, b, b_n, ~a_borrowed, ~b_borrowed)
    for i in range(rows):
        one = estimate_containment(a[i], int(a_n[i]), b[i], int(b_n[i]), a_borrowed[i], b_borrowed[i])
        assert batch[i] == one, i
    assert batch[0] == batch[1] == ContainmentEstimate(0.0, 0.0, 0.0, 0.0, 0)
    assert len({e.containment for e in batch}) > 10  # the pairs differ: the comparison says something
