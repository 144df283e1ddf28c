"""The composite-key candidate search (discovery/composite.py: `_Search`, `_Parent`, `_Best`) and
the name index it reads (discovery/name_reach.py): the same candidates as trying every pair of
relations and every tuple of parts, in bounded work."""

from __future__ import annotations

import itertools
import random

import pytest

from dbt_schema_link.discovery import composite
from dbt_schema_link.discovery.evidence import relation_match
from dbt_schema_link.discovery.features import build_features
from dbt_schema_link.discovery.name_reach import NameReach, top_weight
from dbt_schema_link.discovery.names import concat, singular, tokens
from dbt_schema_link.discovery.policy import COMPOSITE_SEARCH
from dbt_schema_link.discovery.settings import DiscoverySettings
from tests.discovery.builders import Warehouse

INT, TEXT = "INTEGER", "VARCHAR"


def features_of(w: Warehouse, settings: DiscoverySettings | None = None):
    return build_features(w.project(), w.profiles(), settings or DiscoverySettings())


def reference_candidates(features, settings, skip, references=frozenset()):
    """The search as a definition: every parent with every other relation not of its shape, every
    tuple of the parts matched, sorted, cut to the budget (what `candidates` must return)."""
    shape = {uid: frozenset(c.ref.column.lower() for c in rel.columns) for uid, rel in features.relations.items()}
    found = []
    for rel in features.relations.values():
        if not rel.has_data or rel.row_count < 2:
            continue
        parts = [c for c in rel.columns if composite._key_part(c, rel, settings)]
        if len(parts) < 2:
            continue
        words = tokens(rel.relation.short_name)
        entity = concat(words[:-1] + (singular(words[-1]),)) if words else ""
        for child in features.relations.values():
            if shape[child.uid] == shape[rel.uid]:
                continue
            slot, bare = {}, {}
            for i, pc in enumerate(parts):
                for exact, name in ((True, pc.parts.norm), (False, entity + pc.parts.norm)):
                    for cc in child.columns:
                        if not cc.has_values or cc.parts.norm != name or skip(cc, pc):
                            continue
                        target = bare if exact and pc.parts.generic else slot
                        if i not in target or (exact and not target[i][1]):
                            target[i] = (cc, exact)
            if not slot:
                continue
            composite._by_relation_name(slot, parts, child, settings)  # every column scored
            for i, hit in bare.items():
                if i not in slot and hit[0].key not in {c.key for c, _ in slot.values()}:
                    slot[i] = hit
            for n in range(2, min(settings.composite_max_columns, len(slot)) + 1):
                for combo in itertools.combinations(sorted(slot), n):
                    ps = tuple(parts[i] for i in combo)
                    cs = tuple(slot[i][0] for i in combo)
                    if len({c.key for c in cs}) == n and composite._may_be_unique(ps, rel.row_count):
                        found.append(composite.TupleCandidate(cs, ps, all(slot[i][1] for i in combo)))
    found.sort(key=lambda t: composite._candidate_key(t, references))
    return found[:settings.composite_max_candidates]


def refs(cands):
    return [c.refs() for c in cands]


def partitioned(rng: random.Random, rows: int, codes: int) -> tuple[list[str], list[int]]:
    code = [f"C{rng.randrange(codes)}" for _ in range(rows)]
    seen: dict[str, int] = {}
    number = []
    for c in code:
        seen[c] = seen.get(c, 0) + 1
        number.append(seen[c])
    return code, number


NAMES = ["site_code", "region_code", "course_id", "student_id", "id", "code", "floor", "room_no", "item_sk",
         "order_number", "country", "Continent", "label", "grade"]
TABLES = ["courses", "students", "rooms", "bins", "regions", "items", "orders", "countries", "continents",
          "enrolments", "stg_orders", "order_lines"]


def random_warehouse(seed: int) -> Warehouse:
    """Relations drawn from a few table and column names that collide, partitioned numberings
    (so tuples may be unique while no column is), some sharing their column names exactly."""
    rng = random.Random(seed)
    w = Warehouse()
    for t in rng.sample(TABLES, rng.randint(4, len(TABLES))):
        rows = rng.choice((6, 12, 20, 30))
        cols: dict[str, tuple[str, list]] = {}
        for name in rng.sample(NAMES, rng.randint(2, 6)):
            kind = rng.random()
            if kind < 0.5:
                code, number = partitioned(rng, rows, rng.randint(2, 4))
                cols[name] = (TEXT, code) if name.endswith("code") or name == "country" else (INT, number)
            elif kind < 0.8:
                cols[name] = (INT, [rng.randint(1, max(2, rows // 3)) for _ in range(rows)])
            else:
                cols[name] = (TEXT, [f"v{rng.randint(1, rows)}" for _ in range(rows)])
        w.table(t, cols)
        if rng.random() < 0.3:  # a shard of the same shape
            w.table(f"{t}_2024", {name: (dtype, list(reversed(vals))) for name, (dtype, vals) in cols.items()})
    return w


@pytest.mark.parametrize("seed", range(40))
def test_candidates_are_those_of_trying_every_pair(seed):
    features = features_of(random_warehouse(seed))
    settings = DiscoverySettings(composite_max_candidates=25)
    rng = random.Random(seed)
    copies = {(c.key, p.key) for c in features.columns for p in features.columns if rng.random() < 0.01}

    def skip(c, p):
        return (c.key, p.key) in copies

    want = reference_candidates(features, settings, skip)
    got = composite.candidates(features, settings, skip)
    assert refs(got) == refs(want)
    assert [c.exact_names for c in got] == [c.exact_names for c in want]


def test_the_budget_keeps_the_first_candidates_in_key_order():
    features = features_of(random_warehouse(3))
    every = composite.candidates(features, DiscoverySettings(composite_max_candidates=10_000), lambda c, p: False)
    assert len(every) > 6
    keys = [composite._candidate_key(c, frozenset()) for c in every]
    assert keys == sorted(keys)
    some = composite.candidates(features, DiscoverySettings(composite_max_candidates=5), lambda c, p: False)
    assert refs(some) == refs(every[:5])


def test_best_keeps_the_smallest_keys_and_says_when_a_prefix_cannot_enter():
    best = composite._Best(3)
    for k in [5, 1, 9, 3, 7, 2, 8]:
        best.add((k, "x"), lambda k=k: k)
    assert best.result() == [1, 2, 3]
    assert best.beyond((4,)) and not best.beyond((3,)) and not best.beyond((2,))
    assert not best.add((6, "y"), lambda: 6)


def shards(w: Warehouse, stem: str, count: int, rng: random.Random) -> None:
    for s in range(count):
        code, number = partitioned(rng, 12, 3)
        w.table(f"{stem}_202401{s + 1:02d}", {"site_code": (TEXT, code), f"{singular(stem)}_no": (INT, number),
                                              "label": (TEXT, [f"l{rng.randint(1, 4)}" for _ in code])})


def test_shards_of_one_shape_are_not_each_others_children():
    rng = random.Random(5)
    w = Warehouse()
    shards(w, "events", 4, rng)
    code, number = partitioned(rng, 12, 3)
    w.table("event_notes", {"site_code": (TEXT, code), "event_no": (INT, number), "note": (TEXT, ["n"] * 12)})
    cands = composite.candidates(features_of(w), DiscoverySettings(), lambda c, p: False)
    pairs = {(c.child[0].rel.relation.short_name, c.parent_rel.relation.short_name) for c in cands}
    assert pairs and all(child == "event_notes" or parent == "event_notes" for child, parent in pairs), pairs
    assert ("event_notes", "events_20240101") in pairs


def test_shards_pair_with_each_other_only_where_the_policy_says_so(monkeypatch):
    monkeypatch.setattr(composite, "COMPOSITE_SEARCH", COMPOSITE_SEARCH.__class__(same_shape_children=True))
    w = Warehouse()
    shards(w, "events", 3, random.Random(5))
    cands = composite.candidates(features_of(w), DiscoverySettings(), lambda c, p: False)
    pairs = {(c.child[0].rel.relation.short_name, c.parent_rel.relation.short_name) for c in cands}
    assert ("events_20240102", "events_20240101") in pairs
    assert all(child != parent for child, parent in pairs)


def test_a_name_held_by_many_relations_looks_up_one_of_each_shape_first(monkeypatch):
    monkeypatch.setattr(composite, "COMPOSITE_SEARCH", COMPOSITE_SEARCH.__class__(name_holders=3))
    rng = random.Random(2)
    w = Warehouse()
    shards(w, "events", 5, rng)
    shards(w, "visits", 5, rng)
    code, number = partitioned(rng, 12, 3)
    w.table("zone", {"site_code": (TEXT, code), "zone_no": (INT, number)})
    search = composite._Search(features_of(w), DiscoverySettings(), lambda c, p: False, frozenset())
    held = [uid.split(".")[-1] for uid in search.holders("sitecode")]
    assert held == ["events_20240101", "visits_20240101", "zone"]


def test_a_parent_pairs_with_at_most_its_cap_of_children_those_sharing_most_names_first(monkeypatch):
    monkeypatch.setattr(composite, "COMPOSITE_SEARCH", COMPOSITE_SEARCH.__class__(children_per_parent=2))
    rng = random.Random(4)
    w = Warehouse()
    code, number = partitioned(rng, 12, 3)
    w.table("bins", {"site_code": (TEXT, code), "bin_no": (INT, number), "aisle": (INT, [i % 4 for i in range(12)])})
    for i in range(5):
        cols = {"site_code": (TEXT, code), "bin_no": (INT, number)}
        if i >= 3:
            cols["aisle"] = (INT, [j % 4 for j in range(12)])
        w.table(f"picks{i}", {**cols, f"qty{i}": (INT, list(range(12)))})
    search = composite._Search(features_of(w), DiscoverySettings(), lambda c, p: False, frozenset())
    bins = next(p for p in search.parents if p.rel.relation.short_name == "bins")
    assert [c.relation.short_name for c, _ in bins.children()] == ["picks3", "picks4"]


def test_tuples_of_a_wide_parent_are_capped_in_column_order_and_pruned_by_distinct_counts(monkeypatch):
    monkeypatch.setattr(composite, "COMPOSITE_SEARCH", COMPOSITE_SEARCH.__class__(tuples_per_parent=10))
    rng = random.Random(1)
    w = Warehouse()
    rows = 40
    cols = {f"part{i}_id": (INT, [rng.randint(1, 8) for _ in range(rows)]) for i in range(12)}
    cols["flagless"] = (INT, [rng.randint(1, 2) for _ in range(rows)])
    w.table("wide", cols)
    search = composite._Search(features_of(w), DiscoverySettings(), lambda c, p: False, frozenset())
    wide = search.parents[0]
    every = (1 << 3) - 1  # three children holding every part
    masks = [every] * len(wide.parts)
    found = wide.tuples(2, masks)
    assert len(found) == 10
    assert [combo for combo, _ in found] == sorted(combo for combo, _ in found)
    for combo, mask in found:
        assert mask == every
        assert composite._may_be_unique([wide.parts[i] for i in combo], wide.rows)
    # no pair of parts reaches 40 rows when each has at most 2 distinct values: nothing, fast
    small = [i for i, p in enumerate(wide.parts) if p.distinct <= 2]
    assert not [c for c, _ in wide.tuples(2, [every if i in small else 0 for i in range(len(wide.parts))])]
    # a part no child holds is in no tuple
    masks[0] = 0
    assert all(0 not in combo for combo, _ in wide.tuples(2, masks))


def test_no_candidate_means_no_warehouse_check():
    w = Warehouse()
    w.table("a", {"id": (INT, [1, 2, 3]), "name": (TEXT, ["x", "y", "z"])})
    w.table("b", {"id": (INT, [1, 2, 3])})
    calls = []

    def verify(pairs):
        calls.append(list(pairs))
        return {}

    links, checked = composite.composite_links(features_of(w), DiscoverySettings(), verify, lambda c, p: False)
    assert (links, checked, calls) == ([], 0, [])


# -- name_reach -------------------------------------------------------------------------------

CHILD_NAMES = ["Continent", "ContId", "Country", "Maker", "hero_id", "superhero_id", "adress_id", "addres",
               "cust_id", "customer", "cstmr_id", "hdemo_sk", "eye_colour_id", "colour", "race_id", "qty",
               "mgr_id", "ship_via", "region_code", "site_code", "course_id", "student_course_id", "label",
               "tv_channel_id", "channel", "order_number", "ordr_no", "prod", "product_key", "zz"]
RELATIONS = ["continents", "countries", "car_makers", "superhero", "addresses", "customers",
             "household_demographics", "colour", "race", "managers", "ships", "regions", "courses",
             "student_enrolment_courses", "tv_channel", "orders", "products"]


def test_name_reach_lets_through_every_name_relation_match_scores():
    w = Warehouse()
    for i, rel in enumerate(RELATIONS):
        key = f"{singular(rel.split('_')[-1])}_id"
        w.table(rel, {key: (INT, [1, 2, 3]), "label": (TEXT, ["a", "b", "c"])})
    w.table("children", {name: (INT, [1, 2, 2]) for name in CHILD_NAMES})
    features = features_of(w)
    children = [c for c in features.columns if c.rel.relation.short_name == "children"]
    parents = [c for c in features.columns if c.rel.relation.short_name != "children"]
    scored = 0
    for strength in (0.3, 0.5, 0.7):
        reach = NameReach((c.parts for c in children), strength / top_weight())
        for pc in parents:
            names = pc.rel.names
            allowed = frozenset().union(*(reach.naming(k, names.key_words.get(k, (k,))) for k in names.keys))
            if not pc.parts.generic:
                allowed |= reach.naming(pc.parts.head_key)
            for cc in children:
                pattern, fuzzy, _ = relation_match(cc, pc)
                if max(pattern, fuzzy) >= strength:
                    scored += 1
                    assert cc.parts in allowed, (cc.label, pc.label, pattern, fuzzy, strength)
    assert scored > 40  # the names above name their relations in every way the module lists
    reach = NameReach((c.parts for c in children), 0.5 / top_weight())
    found = {p.name for p in reach.naming("customer", ("customer",))}
    assert {"cust_id", "customer", "cstmr_id"} <= found and "eye_colour_id" not in found and "zz" not in found
    assert {p.name for p in reach.naming("address")} >= {"adress_id", "addres"}  # misspelt, by edit ratio
