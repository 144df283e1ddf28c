"""Re-linking without generating every column's candidates again (memo.unaffected): what a
relation is filed under in the name index and what a name looks up there are known from names and
the columns' roles, and a relink that generates only the columns a change can reach gives what a
full run gives."""

import dataclasses
import random

import pytest

from dbt_schema_link.discovery import DiscoverySettings, discover
from dbt_schema_link.discovery.candidates import (
    NameTable, build_name_index, index_keys, lookup_keys, name_candidates, name_roles,
)
from dbt_schema_link.discovery.features import build_features
from dbt_schema_link.discovery.memo import Relink
from tests.discovery.builders import Warehouse

INT, TEXT = "INTEGER", "VARCHAR"


def ids(n, start=1):
    return list(range(start, start + n))


def names_rich(change: str | None = None) -> Warehouse:
    """Relations whose names reach each other every way the name index knows: exact names,
    relation names, key heads, affixes (hero -> superhero), initialisms (hd -> household
    demographics), abbreviations (cust), roles (created_by -> a people table)."""
    w = Warehouse()
    customers = ids(200)
    cust_ids = [c if change != "key_lost" or c % 7 else c - 1 for c in customers]  # duplicates: not a key
    w.table("customers", {"customer_id": (INT, cust_ids), "name": (TEXT, [f"n{i}" for i in customers])})
    w.table("superhero", {"id": (INT, ids(40)), "hero_name": (TEXT, [f"h{i}" for i in ids(40)])})
    w.table("household_demographics", {"hd_demo_sk": (INT, ids(30)), "band": (TEXT, [f"b{i % 4}" for i in ids(30)])})
    people = ids(25, 900) if change != "people_rows" else ids(40, 900)
    w.table("employees", {"employee_id": (INT, people), "full_name": (TEXT, [f"e{i}" for i in people])})
    rng = random.Random(9)
    orders = ids(500, 10_000)
    w.table("orders", {"order_id": (INT, orders), "cust_id": (INT, [rng.choice(customers) for _ in orders]),
                       "hero_id": (INT, [rng.choice(ids(40)) for _ in orders]),
                       "hdemo_sk": (INT, [rng.choice(ids(30)) for _ in orders]),
                       "created_by": (INT, [rng.choice(ids(25, 900)) for _ in orders]),
                       "customer_id": (INT, [rng.choice(customers) for _ in orders])})
    rng = random.Random(10)
    w.table("returns", {"return_id": (INT, ids(80)), "order_id": (INT, [rng.choice(orders) for _ in range(80)]),
                        "approved_by": (INT, [rng.choice(ids(25, 900)) for _ in range(80)])})
    # nine relations whose "label" is unique, a name too common to look up (the index drops it):
    # one label fewer and the other eight are every "label" column's candidates
    for r in range(9):
        labels = [f"r{r}-{i}" for i in range(20)]
        if r == 0 and change == "label_lost":
            labels[1] = labels[0]
        w.table(f"region_{r}", {"region_id": (INT, ids(20, 100 * r)), "label": (TEXT, labels)})
    w.table("tickets", {"ticket_id": (INT, ids(60)), "label": (TEXT, [f"r{i % 9}-{i % 20}" for i in range(30)] * 2)})
    # values that no name links: attr_x's values are in zones (and, changed, in areas)
    w.table("zones", {"pk": (INT, ids(39) + [41 if change == "zone_values" else 40])})
    w.table("areas", {"pk": (INT, ids(45) if change == "area_values" else ids(40, 5000))})
    rng = random.Random(11)
    w.table("readings", {"reading_id": (INT, ids(300, 700)), "attr_x": (INT, [rng.randint(1, 30) for _ in range(300)])})
    return w


def _features(w: Warehouse):
    return build_features(w.project(), w.profiles(), DiscoverySettings())


class Reads(dict):
    """A name-index table that records the keys looked up in it."""

    def __init__(self, table, data):
        super().__init__(data)
        self.table, self.read = table, set()

    def get(self, key, default=None):
        self.read.add((self.table, key))
        return super().get(key, default)


def test_a_relation_is_filed_only_under_its_index_keys():
    for change in (None, "key_lost"):
        features = _features(names_rich(change))
        index = build_name_index(features)
        tables = {NameTable.NORM: index.by_norm, NameTable.RELATION_KEY: index.by_relation_key,
                  NameTable.KEY_HEAD: index.by_key_head, NameTable.AFFIX: index.by_affix,
                  NameTable.INITIALISM: index.by_initialism, NameTable.ENDS: index.by_ends}
        for uid, rel in features.relations.items():
            keys = index_keys(rel, name_roles(rel))
            filed = {(table, key) for table, entries in tables.items() for key, found in entries.items()
                     if any(getattr(x, "rel", x) is rel for x in found)}
            if rel in index.people:
                filed.add((NameTable.PEOPLE, None))
            assert filed <= keys, (uid, filed - keys)
            assert filed, uid  # every relation here is filed somewhere


def test_a_name_lookup_reads_only_its_lookup_keys():
    features = _features(names_rich())
    index = build_name_index(features)
    recorded = [Reads(table, getattr(index, field)) for table, field in (
        (NameTable.NORM, "by_norm"), (NameTable.RELATION_KEY, "by_relation_key"), (NameTable.KEY_HEAD, "by_key_head"),
        (NameTable.AFFIX, "by_affix"), (NameTable.INITIALISM, "by_initialism"), (NameTable.ENDS, "by_ends"))]
    for table in recorded:
        setattr(index, {NameTable.NORM: "by_norm", NameTable.RELATION_KEY: "by_relation_key",
                        NameTable.KEY_HEAD: "by_key_head", NameTable.AFFIX: "by_affix",
                        NameTable.INITIALISM: "by_initialism", NameTable.ENDS: "by_ends"}[table.table], table)
    fallbacks = 0
    for child in features.columns:
        for table in recorded:
            table.read.clear()
        name_candidates(child, index, 20)
        read = set().union(*(table.read for table in recorded))
        assert read <= lookup_keys(child.parts, index), (child.key, read - lookup_keys(child.parts, index))
        fallbacks += any(t in (NameTable.AFFIX, NameTable.INITIALISM, NameTable.ENDS) for t, _ in read)
    assert fallbacks  # the fuzzy lookups were exercised
    roles = [c for c in features.columns if c.parts.role is not None]
    assert roles and all((NameTable.PEOPLE, None) in lookup_keys(c.parts, index) for c in roles)


def _relink(change: str | None, verify_change=None, before: str | None = None):
    settings = DiscoverySettings()
    before, after = names_rich(before), names_rich(change)
    first = Relink()
    discover(before.project(), before.profiles(), settings, verify=before.verifier(), relink=first)
    again = Relink(previous=first.memo)
    verify = after.verifier() if verify_change is None else verify_change(after.verifier())
    relinked = discover(after.project(), after.profiles(), settings, verify=verify, relink=again)
    full = discover(after.project(), after.profiles(), settings, verify=verify)
    return relinked, full, again, len(_features(after).columns)


@pytest.mark.parametrize("before, change", [
    (None, "key_lost"), (None, "people_rows"), (None, "label_lost"), ("label_lost", None), (None, "zone_values"),
    (None, "area_values"),
])
def test_a_relink_that_generates_only_what_a_change_reaches_equals_a_full_run(before, change):
    """A key lost; a people table grown; an entry of the index kept or dropped by one label more or
    less (the entries before the change count, and after); a parent's values changed under an
    unchanged lookup; a lookup that now finds another parent."""
    relinked, full, again, columns = _relink(change, before=before)
    assert relinked.to_json() == full.to_json()
    assert relinked.counts["candidates"] == full.counts["candidates"] > 0
    assert 0 < again.use.children_generated < columns


def test_a_key_that_stops_being_one_reaches_the_children_named_for_it():
    """customers.customer_id no longer unique: the index no longer files it, and orders.customer_id,
    whose only candidate it was, is generated again and has none (restored, it would keep it)."""
    relinked, full, again, _ = _relink("key_lost")
    assert relinked.to_json() == full.to_json()
    child = ("source.shop.raw.orders", "customer_id")
    assert child in again.previous.first and child not in again.memo.first


def test_exact_results_that_changed_score_unchanged_children_again():
    """A view over a changed table holds new data under an unchanged profile: the exact check
    says so, and a child whose candidates were not generated is generated and scored again."""
    def orphans(verify):
        def changed(pairs):
            out = dict(verify(pairs))
            for (child, parent), result in out.items():
                if child.column == "hero_id":
                    out[(child, parent)] = dataclasses.replace(result, matched=result.matched // 3)
            return out
        return changed
    relinked, full, again, columns = _relink("people_rows", orphans)
    assert relinked.to_json() == full.to_json()
    assert again.use.children_generated < columns


def test_a_relation_whose_columns_changed_generates_every_candidate():
    """Its old name-index entries are not known: every column's candidates are generated."""
    def renamed():
        w = names_rich()
        w.table("superhero", {"id": (INT, ids(40)), "alias": (TEXT, [f"h{i}" for i in ids(40)])})
        return w
    settings = DiscoverySettings()
    first = Relink()
    before = names_rich()
    discover(before.project(), before.profiles(), settings, relink=first)
    again = Relink(previous=first.memo)
    after = renamed()
    relinked = discover(after.project(), after.profiles(), settings, relink=again)
    assert again.use.children_generated == len(_features(after).columns)
    assert relinked.to_json() == discover(after.project(), after.profiles(), settings).to_json()


def test_a_relink_with_value_lookups_in_the_engine_equals_a_full_run():
    """Lookups answered by the engine's join are not taken back: every column that has one is
    generated again, and the result is a full run's."""
    from dbt_schema_link.discovery.candidates import _may_link_by_values
    from tests.support.bands import join_like_the_macro

    settings = DiscoverySettings(engine_lookup_min_columns=1)
    before, after = names_rich(), names_rich("area_values")
    first = Relink()
    discover(before.project(), before.profiles(), settings, band_join=join_like_the_macro, relink=first)
    assert first.memo.lookups is None  # nothing kept of the engine's lookups
    again = Relink(previous=first.memo)
    relinked = discover(after.project(), after.profiles(), settings, band_join=join_like_the_macro, relink=again)
    full = discover(after.project(), after.profiles(), settings, band_join=join_like_the_macro)
    assert relinked.to_json() == full.to_json()
    looked_up = sum(1 for c in _features(after).columns if _may_link_by_values(c))
    assert looked_up and again.use.lookups_reused == 0 and again.use.children_generated >= looked_up
