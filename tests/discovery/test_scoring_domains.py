import math

from dbt_schema_link.discovery.domains import AnchorRank, PairRank, UnionFind, canonical_pair, choose_anchor
from dbt_schema_link.discovery.records import Evidence, Signal
from dbt_schema_link.discovery.scoring import BIAS, NAME_CAP, WEIGHTS, breakdown, score, squash


def ev(signal, strength=1.0):
    return Evidence(signal, strength, "x")


def test_score_is_the_squashed_sum_of_weighted_evidence():
    conf, items = score([ev(Signal.NAME_PATTERN), ev(Signal.TYPE_MATCH, 0.5)])
    expected = BIAS + WEIGHTS[Signal.NAME_PATTERN] + 0.5 * WEIGHTS[Signal.TYPE_MATCH]
    assert math.isclose(conf, squash(expected))
    assert [round(e.contribution, 6) for e in items] == [WEIGHTS[Signal.NAME_PATTERN], 0.5 * WEIGHTS[Signal.TYPE_MATCH]]
    assert score([])[0] < 0.1


def test_negative_evidence_lowers_confidence_and_strength_is_clamped():
    base, _ = score([ev(Signal.NAME_EXACT)])
    worse, _ = score([ev(Signal.NAME_EXACT), ev(Signal.EXACT_CONTAINMENT, -1.0)])
    assert worse < base
    assert score([ev(Signal.TYPE_MATCH, 5.0)])[0] == score([ev(Signal.TYPE_MATCH, 1.0)])[0]


def test_name_signals_are_capped_together():
    _, items = score([ev(Signal.NAME_EXACT), ev(Signal.NAME_PATTERN), ev(Signal.ROLE_NAME)])
    assert math.isclose(sum(e.contribution for e in items), NAME_CAP)


def test_exact_containment_supersedes_the_estimate():
    _, items = score([ev(Signal.VALUE_CONTAINMENT_ESTIMATE, -1.0), ev(Signal.EXACT_CONTAINMENT, 1.0)])
    assert items[0].contribution == 0.0 and items[1].contribution == WEIGHTS[Signal.EXACT_CONTAINMENT]
    assert "exact_containment +4.0" in breakdown(items) and "bias" in breakdown(items)


def test_union_find_groups_transitively():
    uf = UnionFind()
    uf.union("a", "b")
    uf.union("c", "d")
    assert not uf.same("a", "c")
    uf.union("b", "c")
    assert uf.same("a", "d")
    uf.add("e")
    assert sorted(sorted(g) for g in uf.groups()) == [["a", "b", "c", "d"], ["e"]]


def test_canonical_pair_prefers_same_layer_models_furthest_upstream():
    pairs = [
        PairRank(0, 0, False, 0.99, "raw -> raw"),      # seeds/sources
        PairRank(2, 2, True, 0.99, "fct -> dim"),       # marts
        PairRank(1, 2, True, 1.00, "stg -> dim"),       # mixed layers
        PairRank(1, 1, True, 0.95, "stg -> stg"),       # staging: kept
    ]
    assert canonical_pair(pairs) == 3
    assert canonical_pair(pairs[:3]) == 1
    assert canonical_pair([PairRank(0, 0, False, 0.9, "b"), PairRank(0, 0, False, 0.9, "a")]) == 1


def test_anchor_is_the_declared_key_else_the_root_parent():
    members = [
        AnchorRank("orders.customer_id", False, False, True, 0.1, 0, 1, "orders.customer_id"),
        AnchorRank("stg_customers.customer_id", False, True, False, 0.95, 3, 1, "stg"),
        AnchorRank("dim_customers.customer_id", False, True, True, 0.95, 1, 2, "dim"),
    ]
    assert choose_anchor(members) == "stg_customers.customer_id"
    declared = AnchorRank("raw_customers.id", True, False, False, 1.0, 0, 0, "raw")
    assert choose_anchor(members + [declared]) == "raw_customers.id"
