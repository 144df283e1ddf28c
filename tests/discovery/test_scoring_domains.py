import math
import random
from types import SimpleNamespace

from dbt_schema_link.discovery.domains import AnchorRank, PairRank, UnionFind, canonical_pair, choose_anchor
from dbt_schema_link.discovery.evaluate import Block, _rank_key, cap_per_child
from dbt_schema_link.discovery.records import Evidence, Signal
from dbt_schema_link.discovery import calibration
from dbt_schema_link.discovery.scoring import breakdown, score, squash

NAMES = calibration.NAMES_ONLY
MEASURED = calibration.MEASURED


def ev(signal, strength=1.0):
    return Evidence(signal, strength, "x")


def test_score_is_the_squashed_sum_of_weighted_evidence():
    conf, items = score([ev(Signal.NAME_PATTERN), ev(Signal.TYPE_MATCH, 0.5)], measured=False)
    w = NAMES.weights  # nothing profiled: the names-only table
    expected = NAMES.bias + w[Signal.NAME_PATTERN] + 0.5 * w[Signal.TYPE_MATCH]
    assert math.isclose(conf, squash(expected))
    assert [round(e.contribution, 6) for e in items] == [round(w[Signal.NAME_PATTERN], 6),
                                                          round(0.5 * w[Signal.TYPE_MATCH], 6)]
    assert score([], measured=False)[0] < 0.25 and score([])[0] < 0.25  # no evidence: far below any bar


def test_negative_evidence_lowers_confidence_and_strength_is_clamped():
    base, _ = score([ev(Signal.NAME_EXACT)])
    worse, _ = score([ev(Signal.NAME_EXACT), ev(Signal.EXACT_CONTAINMENT, -1.0)])
    assert worse < base
    assert score([ev(Signal.TYPE_MATCH, 5.0)])[0] == score([ev(Signal.TYPE_MATCH, 1.0)])[0]


def test_name_signals_are_capped_together_when_the_table_says_so():
    _, items = score([ev(Signal.NAME_EXACT), ev(Signal.NAME_PATTERN), ev(Signal.ROLE_NAME)], measured=False)
    w = NAMES.weights
    uncapped = w[Signal.NAME_EXACT] + w[Signal.NAME_PATTERN] + w[Signal.ROLE_NAME]
    expected = uncapped if NAMES.name_cap is None else min(uncapped, NAMES.name_cap)
    assert math.isclose(sum(e.contribution for e in items), expected)


def test_measured_pairs_use_the_measured_table():
    conf, items = score([ev(Signal.NAME_EXACT), ev(Signal.EXACT_CONTAINMENT)])
    w = MEASURED.weights
    assert math.isclose(conf, squash(MEASURED.bias + w[Signal.NAME_EXACT] + w[Signal.EXACT_CONTAINMENT]))
    assert f"bias {MEASURED.bias:+.1f}" in breakdown(items)


def test_exact_containment_supersedes_the_estimate():
    conf, items = score([ev(Signal.VALUE_CONTAINMENT_ESTIMATE, -1.0), ev(Signal.EXACT_CONTAINMENT, 1.0)])
    exact = MEASURED.weights[Signal.EXACT_CONTAINMENT]
    assert items[0].contribution == 0.0 and items[1].contribution == exact
    line = breakdown(items)
    assert f"exact_containment {exact:+.1f}" in line and f"bias {MEASURED.bias:+.1f}" in line


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


def test_capping_as_pairs_come_keeps_what_capping_all_at_once_keeps():
    # discovery caps each child's pairs while evaluating them (a warehouse's millions are never
    # all held): the kept pairs and their order must be those of sorting each child's all at once
    rng = random.Random(4)
    pairs = []
    for i in range(3000):
        child, parent = f"c{rng.randrange(40)}", f"p{i}"
        cand = SimpleNamespace(child=SimpleNamespace(key=child), parent=SimpleNamespace(ref=parent),
                               key=(child, parent))
        pairs.append(SimpleNamespace(cand=cand, confidence=rng.choice((0.2, 0.5, 0.5, 0.9)),  # ties on purpose
                                     block=rng.choice((None, None, Block.TYPES_NEED_VALUES, Block.PARENT_NOT_KEY)),
                                     trap=None))
    for cap in (1, 3, 8):
        by_child: dict = {}
        for s in pairs:
            by_child.setdefault(s.cand.child.key, []).append(s)
        expected = {}
        for items in by_child.values():
            for s in sorted(items, key=_rank_key)[:cap]:
                expected[s.cand.key] = s
        got = cap_per_child(iter(pairs), cap)
        assert list(got.items()) == list(expected.items())
        assert max(sum(1 for k in got if k[0] == c) for c in by_child) == cap
