"""discover() end to end on small warehouses built in code."""

import dataclasses
import datetime
import math
import random
import re

import pytest

from dbt_schema_link.artifacts.records import LinkOrigin
from dbt_schema_link.discovery import (
    Cardinality, DiscoverySettings, LinkSet, Signal, Trap, discover, render_markdown,
)
from dbt_schema_link.discovery.candidates import EXACT_VALUE_LOOKUP_PARENTS
from dbt_schema_link.discovery.policy import CAPS
from dbt_schema_link.discovery.records import NAME_SIGNALS, Provenance
from dbt_schema_link.discovery.scoring import VALUE_SIGNALS
from dbt_schema_link.profiling.records import ContainmentResult
from tests.discovery.builders import Warehouse, pairs

INT, TEXT = "INTEGER", "VARCHAR"


def ids(n, start=1):
    return list(range(start, start + n))


def sample(rng, population, n):
    return [rng.choice(population) for _ in range(n)]


#: A confidence bar low enough that a value-only pair clears it on its evidence: trap tests use
#: it so that the trap rule, not the fitted weights, is what stops the pair.
TRAP_BAR = 0.05


def run(w, profiles=True, verify=True, **settings):
    return discover(w.project(), w.profiles() if profiles else None, DiscoverySettings(**settings),
                    verify=w.verifier() if verify else None)


# -- names -------------------------------------------------------------------------------------

@pytest.mark.parametrize("parent_table, parent_col, child_col", [
    ("customers", "id", "customer_id"),            # <table>_id -> <table>.id
    ("stg_customers", "customer_id", "customer_id"),  # <table>.<table>_id, prefixed relation
    ("customer", "CustomerId", "CustomerId"),       # singular table, camel case
    ("people", "id", "person_id"),                  # irregular plural
    ("dim_customers", "customer_key", "fk_customer"),  # fk_ prefix, _key suffix
    ("addresses", "address_id", "billing_address_id"),  # role prefix before the entity
])
@pytest.mark.parametrize("with_profiles", [True, False])
def test_name_patterns(parent_table, parent_col, child_col, with_profiles):
    rng = random.Random(1)
    w = Warehouse()
    w.table(parent_table, {parent_col: (INT, ids(50)), "label": (TEXT, [f"n{i}" for i in range(50)])})
    w.table("orders", {"order_id": (INT, ids(300, 1000)), child_col: (INT, sample(rng, ids(50), 300)),
                       "amount": (INT, sample(rng, ids(90), 300))})
    links = run(w, profiles=with_profiles)
    assert pairs(links.inferred) == {(f"orders.{child_col}", f"{parent_table}.{parent_col}")}
    link = links.inferred[0]
    assert link.cardinality is Cardinality.MANY_TO_ONE
    assert any(e.signal in (Signal.NAME_PATTERN, Signal.NAME_EXACT) and e.contribution > 0 for e in link.evidence)
    assert link.confidence >= 0.5


def test_hungarian_key_markers_name_the_same_column():
    # fk_customer_id and pk_customer_id are one name, each side marked as what it is; a relation
    # never loaded has only its names to go by (northwind's customer_customer_demo, Hungarian style)
    w = Warehouse()
    w.table("tbl_customers", {"pk_customer_id": (TEXT, [f"C{i:03d}" for i in range(90)]),
                              "str_name": (TEXT, [f"n{i}" for i in range(90)])})
    w.table("tbl_customer_demo", {"fk_customer_id": (TEXT, []), "fk_type_id": (TEXT, [])})
    (link,) = [link for link in run(w).inferred if link.child.column == "fk_customer_id"]
    assert link.parent.column == "pk_customer_id" and link.has(Signal.NAME_EXACT)


@pytest.mark.parametrize("with_profiles", [True, False])
def test_bare_id_columns_are_not_a_name_match(with_profiles):
    w = Warehouse()
    w.table("alpha", {"id": (INT, ids(30)), "a": (TEXT, [f"a{i}" for i in range(30)])})
    w.table("beta", {"id": (INT, ids(20)), "b": (TEXT, [f"b{i}" for i in range(20)])})
    # a non-unique "id" whose values fall in another table's "id": the shared bare name is no evidence
    w.table("events", {"event_key": (INT, ids(60, 900)), "id": (INT, sample(random.Random(3), ids(10), 60))})
    links = run(w, profiles=with_profiles)
    assert links.inferred == []


def test_role_names_point_at_people_and_at_the_same_table():
    rng = random.Random(2)
    w = Warehouse()
    emp = ids(60, 9001)
    w.table("employees", {"employee_id": (INT, emp), "manager_id": (INT, [None] + sample(rng, emp[:8], 59)),
                          "name": (TEXT, [f"e{i}" for i in range(60)])})
    w.table("tickets", {"ticket_id": (INT, ids(400)), "created_by": (INT, sample(rng, emp, 400)),
                        "assigned_to": (INT, sample(rng, emp, 400))})
    w.table("products", {"product_id": (INT, ids(80)), "title": (TEXT, [f"p{i}" for i in range(80)])})
    links = run(w)
    assert pairs(links.inferred) == {
        ("tickets.created_by", "employees.employee_id"),
        ("tickets.assigned_to", "employees.employee_id"),
        ("employees.manager_id", "employees.employee_id"),
    }
    for link in links.inferred:
        assert link.has(Signal.ROLE_NAME)


def test_a_superior_role_in_a_table_that_holds_no_people_names_no_row_of_it():
    # i_manager_id in item: a manager is a person, not an item, though the numbers 1..100 fall
    # inside the items' dense keys; parent_category_id is a tree inside any table
    rng = random.Random(21)
    w = Warehouse()
    w.table("item", {"i_item_sk": (INT, ids(1800)), "i_manager_id": (INT, sample(rng, ids(100), 1800))})
    w.table("category", {"category_id": (INT, ids(40)), "parent_category_id": (INT, [None] + sample(rng, ids(8), 39))})
    links = run(w, min_confidence=TRAP_BAR)
    assert not [link for link in links.inferred if link.child.column == "i_manager_id"]
    (tree,) = [link for link in links.inferred if link.child.column == "parent_category_id"]
    assert tree.parent.column == "category_id" and tree.has(Signal.ROLE_NAME)


def test_a_relations_own_key_named_for_it_is_no_role():
    # owners.owner_id is owners' key, not an owner role pointing at the people in users (keyed alike)
    names = [f"n{i}" for i in range(20)]
    w = Warehouse()
    w.table("users", {"user_id": (INT, ids(20)), "first_name": (TEXT, names), "email": (TEXT, names)})
    w.table("owners", {"owner_id": (INT, ids(20)), "last_name": (TEXT, names), "phone": (TEXT, names)})
    links = run(w, min_confidence=0.0)
    assert not any(link.has(Signal.ROLE_NAME) for link in links.inferred)


# -- blocking ----------------------------------------------------------------------------------

def customers_orders(child_type=INT, child_values=None, rng=None):
    rng = rng or random.Random(3)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    values = child_values if child_values is not None else sample(rng, ids(50), 200)
    w.table("orders", {"order_id": (INT, ids(200, 5000)), "customer_id": (child_type, values)})
    return w


def test_incompatible_types_are_blocked():
    w = customers_orders(child_type="DATE", child_values=[f"2024-01-{d:02d}" for d in range(1, 29)] * 5)
    assert run(w).inferred == []
    assert run(w, profiles=False).inferred == []


def test_text_holding_numbers_links_to_an_integer_key_only_when_the_values_agree():
    rng = random.Random(4)
    w = customers_orders(child_type=TEXT, child_values=[str(v) for v in sample(rng, ids(50), 200)])
    links = run(w)
    assert pairs(links.inferred) == {("orders.customer_id", "customers.customer_id")}
    # names alone cannot say text '7' is integer 7 ...
    assert run(w, profiles=False, verify=False).inferred == []
    # ... but an exact check in the warehouse can
    assert pairs(run(w, profiles=False).inferred) == {("orders.customer_id", "customers.customer_id")}
    w2 = customers_orders(child_type=TEXT, child_values=[f"C-{v}" for v in sample(rng, ids(50), 200)])
    assert run(w2).inferred == []


def test_declared_pairs_are_reported_as_declared_not_inferred_again():
    w = customers_orders()
    w.declare("source.shop.raw.orders.customer_id", "source.shop.raw.customers.customer_id")
    w.declare("source.shop.raw.orders.customer_id", "source.shop.raw.customers.customer_id", LinkOrigin.FK_CONSTRAINT)
    links = run(w)
    assert links.inferred == []
    assert pairs(links.declared) == {("orders.customer_id", "customers.customer_id")}
    assert links.declared[0].origins == (LinkOrigin.FK_CONSTRAINT, LinkOrigin.RELATIONSHIPS_TEST)
    assert links.declared[0].has(Signal.DECLARED_TEST) and links.declared[0].has(Signal.DECLARED_CONSTRAINT)
    assert links.declared[0].confidence == 1.0


def test_a_written_test_is_inferred_again_and_never_promoted_to_declared():
    from dbt_schema_link.artifacts.records import DeclaredLink

    w = customers_orders()
    child, parent = w.ref("source.shop.raw.orders.customer_id"), w.ref("source.shop.raw.customers.customer_id")
    inferred = run(w).inferred[0]
    w.declared.append(DeclaredLink(child, parent, LinkOrigin.RELATIONSHIPS_TEST, "test.shop.gen", written=True,
                                   written_confidence=0.91))
    links = run(w)
    assert links.declared == [] and len(links.inferred) == 1
    link = links.inferred[0]
    assert link.provenance is Provenance.WRITTEN and link.written_confidence == 0.91
    assert link.confidence == inferred.confidence  # what the data says now, not 1.0
    assert link.has(Signal.WRITTEN_TEST) and "written by dbt-schema-link at 0.91" in link.provenance_text()


def test_a_written_test_the_data_no_longer_supports_stays_written_at_its_confidence_now():
    from dbt_schema_link.artifacts.records import DeclaredLink

    w = customers_orders(child_type="DATE", child_values=[f"2024-01-{d:02d}" for d in range(1, 29)] * 5)
    w.declared.append(DeclaredLink(w.ref("source.shop.raw.orders.customer_id"),
                                   w.ref("source.shop.raw.customers.customer_id"), LinkOrigin.RELATIONSHIPS_TEST,
                                   "test.shop.gen", written=True, written_confidence=0.8))
    links = run(w)
    (link,) = links.inferred
    assert link.provenance is Provenance.WRITTEN and link.confidence == 0.0 and links.counts["written_unsupported"] == 1
    assert any("not inferred from the data now" in e.detail for e in link.evidence)


@pytest.mark.parametrize("measure", ["number_of_orders", "order_count", "n_orders", "total_orders"])
def test_a_count_named_after_a_relation_is_not_its_foreign_key(measure):
    rng = random.Random(5)
    w = Warehouse()
    w.table("orders", {"order_id": (INT, ids(300)), "status": (TEXT, ["a"] * 300)})
    w.table("customers", {"customer_id": (INT, ids(80)), measure: (INT, [rng.randint(1, 9) for _ in range(80)])})
    assert [l for l in run(w).inferred if l.child.column == measure] == []


def test_a_pair_declared_the_other_way_round_is_not_inferred_either():
    w = customers_orders()
    w.declare("source.shop.raw.customers.customer_id", "source.shop.raw.orders.customer_id",
              LinkOrigin.SEMANTIC_ENTITY)
    for collapse in (True, False):
        links = run(w, collapse_lineage=collapse)
        assert links.inferred == [] and len(links.declared) == 1


def test_never_a_column_with_itself_and_one_direction_per_pair():
    rng = random.Random(5)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50))})
    w.table("customer_details", {"customer_id": (INT, rng.sample(ids(50), 40)), "vip": (TEXT, ["x"] * 40)})
    links = run(w)
    assert pairs(links.inferred) == {("customer_details.customer_id", "customers.customer_id")}
    assert links.inferred[0].cardinality is Cardinality.ONE_TO_ONE
    assert all(link.child != link.parent for link in links.links)


def test_direction_follows_uniqueness():
    rng = random.Random(6)
    w = Warehouse()
    # the child table comes first and has the key-like first column; values decide the direction
    w.table("orders", {"customer_code": (TEXT, [f"K{v}" for v in sample(rng, ids(40), 300)]),
                       "total": (INT, sample(rng, ids(500), 300))})
    w.table("customer_codes", {"label": (TEXT, [f"l{i}" for i in range(40)]),
                               "customer_code": (TEXT, [f"K{v}" for v in ids(40)])})
    links = run(w)
    assert pairs(links.inferred) == {("orders.customer_code", "customer_codes.customer_code")}


# -- traps -------------------------------------------------------------------------------------

def test_two_flags_are_not_a_join_but_a_flag_valued_child_of_a_real_key_is():
    rng = random.Random(7)
    w = Warehouse()
    w.table("gift_options", {"is_gift": ("BOOLEAN", [True, False]), "label": (TEXT, ["yes", "no"])})
    w.table("orders", {"order_id": (INT, ids(100)), "is_gift": ("BOOLEAN", sample(rng, [True, False], 100)),
                       "priority_id": (INT, sample(rng, [0, 1], 100))})
    w.table("priorities", {"priority_id": (INT, [0, 1, 2, 3]), "name": (TEXT, ["low", "mid", "high", "top"])})
    links = run(w)
    assert pairs(links.inferred) == {("orders.priority_id", "priorities.priority_id")}


def test_a_flag_child_needs_a_real_key_as_parent():
    rng = random.Random(18)
    w = Warehouse()
    # status_code is unique in `codes` but not its key (the first column is): a 0/1 child that
    # happens to be contained in it is a flag, not a reference
    w.table("codes", {"code_id": (INT, ids(5, 70)), "status_code": (INT, [0, 1, 2, 3, 4])})
    w.table("orders", {"order_id": (INT, ids(100)), "status_code": (INT, sample(rng, [0, 1], 100))})
    links = run(w)
    assert links.inferred == []
    assert [r.trap for r in links.rejected if r.child.relation.endswith(".orders")] == [Trap.FLAG_PAIR]


def test_near_unique_free_text_is_not_a_key():
    rng = random.Random(8)
    subjects = [f"Problem number {i}" for i in range(40)]
    reviews = subjects + [f"A long and heartfelt review text about product {i}, with details" for i in range(600)]
    w = Warehouse()
    w.table("reviews", {"review_id": (INT, ids(len(reviews))), "body": (TEXT, reviews)})
    w.table("tickets", {"ticket_id": (INT, ids(300)), "body": (TEXT, sample(rng, subjects, 300))})
    links = run(w)
    assert links.inferred == []


def test_shared_status_enum_is_not_a_join():
    rng = random.Random(9)
    w = Warehouse()
    w.table("order_status_counts", {"day": (TEXT, ["d1", "d2", "d3", "d4", "d5"]),
                                    "status": (TEXT, ["pending", "open", "shipped", "closed", "cancelled"]),
                                    "n": (INT, [5, 3, 9, 1, 2])})
    w.table("tickets", {"ticket_id": (INT, ids(200)), "status": (TEXT, sample(rng, ["open", "pending", "closed"], 200))})
    links = run(w)
    assert links.inferred == []
    assert [(r.trap, str(r.child.column)) for r in links.rejected] == [(Trap.SHARED_ENUM, "status")]


def small_subset_warehouse(child_values):
    rng = random.Random(10)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(300)), "name": (TEXT, [f"c{i}" for i in range(300)])})
    w.table("stores", {"store_id": (INT, ids(12, 500)), "src": (INT, child_values(rng))})
    return w


def test_small_id_subset_of_an_unrelated_dense_range_is_rejected():
    w = small_subset_warehouse(lambda rng: sample(rng, ids(8), 12))
    # a low bar, so the trap rule (not the weights) is what must stop it
    links = run(w, min_confidence=TRAP_BAR)
    assert links.inferred == []
    assert [(r.trap, r.child.column, r.parent.column) for r in links.rejected] == [
        (Trap.SMALL_SUBSET, "src", "customer_id")]
    assert links.rejected[0].would_be_confidence >= TRAP_BAR  # only the trap rule stopped it


def test_a_large_child_domain_may_link_by_values_alone():
    w = small_subset_warehouse(lambda rng: rng.sample(ids(300), 12))  # spread over the whole range
    w2 = Warehouse()
    rng = random.Random(11)
    w2.table("customers", {"customer_id": (INT, ids(3000))})
    w2.table("tickets", {"ticket_id": (INT, ids(400, 70000)), "src": (INT, sample(rng, ids(3000), 400))})
    links = run(w2)
    assert pairs(links.inferred) == {("tickets.src", "customers.customer_id")}
    assert not any(e.signal in NAME_SIGNALS for e in links.inferred[0].evidence)
    # twelve values spread over 1..300: too few for chance to be ruled out, but spread as keys
    # drawn from the only key that holds them: a link by fit, under the write bar (0.7)
    (link,) = run(w).inferred
    assert link.confidence <= CAPS.value_fit_only
    assert not any(e.signal in NAME_SIGNALS for e in link.evidence)


def test_few_numbers_inside_a_dense_key_are_chance_whatever_their_lengths():
    # twelve month numbers inside property ids 1..15: by their lengths (1..99) landing on 15 keys
    # looks improbable (~1e-10); inside the key's measured range every number is a key
    w = Warehouse()
    w.table("properties", {"property_id": (INT, ids(15)), "name": (TEXT, [f"p{i}" for i in range(15)])})
    w.table("calendar", {"day": (TEXT, [f"2017-{1 + i % 12:02d}-{1 + i // 12:02d}" for i in range(300)]),
                         "month_number": (INT, [1 + i % 12 for i in range(300)])})
    links = run(w, min_confidence=TRAP_BAR)
    assert links.inferred == []
    assert [(r.trap, r.child.column) for r in links.rejected] == [(Trap.SMALL_SUBSET, "month_number")]
    # the same count of ids among sparse keys (15 ids spread over 1,000..9,000) is no chance
    w = Warehouse()
    keys = list(range(1000, 9000, 533))
    w.table("properties", {"property_id": (INT, keys), "name": (TEXT, [f"p{i}" for i in range(len(keys))])})
    w.table("visits", {"visit_id": (INT, ids(300, 20000)), "venue": (INT, [keys[i % 12] for i in range(300)])})
    assert pairs(run(w, min_confidence=TRAP_BAR).inferred) == {("visits.venue", "properties.property_id")}


def friends_of(keys: list[int], orphans: list[int]) -> Warehouse:
    """students keyed by ``keys``; friend.student_id names no relation and holds 13 of them
    and the ``orphans`` (students that were never loaded)."""
    w = Warehouse()
    w.table("highschooler", {"id": (INT, keys), "name": (TEXT, [f"h{i}" for i in range(len(keys))]),
                             "grade": (INT, [9 + i % 4 for i in range(len(keys))])})
    values = keys[:13] + orphans
    w.table("friend", {"student_id": (INT, [values[i % len(values)] for i in range(40)])})
    return w


def test_values_beyond_chance_make_a_nameless_pair_with_orphans_a_partial_link():
    # 13 of 14 ids found among 16 keys spread over 1,025..1,934: chance ~1e-24, so the one
    # orphan is a late-arriving row, as when names vouch (before: the pair needed 90% contained)
    sparse = [1025 + 57 * i for i in range(16)]
    links = run(friends_of(sparse, [1936]))
    assert pairs(links.inferred) == {("friend.student_id", "highschooler.id")}
    (link,) = links.inferred
    assert link.orphans is not None and (link.orphans.values, link.orphans.of_values) == (1, 14)
    surprise = next(e for e in link.evidence if e.signal is Signal.VALUE_SURPRISE)
    assert surprise.strength > 0.75 and "among its keys by chance with probability" in surprise.detail
    # measured against the partial bar (as a named pair's), not against the 90% a link needs otherwise
    exact = next(e for e in link.evidence if e.signal is Signal.EXACT_CONTAINMENT)
    assert exact.strength > 0.5
    # the same share inside a dense key (1..16 holds every number up to 16): chance, no link
    dense = run(friends_of(list(range(1, 17)), [17]), min_confidence=TRAP_BAR)
    (weak,) = [l for l in dense.inferred if l.child.column == "student_id"]
    assert weak.confidence < DiscoverySettings().min_confidence and weak.orphans is None
    assert all(e.strength < 0.1 for e in weak.evidence if e.signal is Signal.VALUE_SURPRISE)


def songs_by(provider: list[int], singers: int = 8) -> Warehouse:
    """singers keyed 1..``singers``, albums keyed 1..300; ``song.provider`` names neither."""
    w = Warehouse()
    w.table("singer", {"singer_id": (INT, ids(singers)), "name": (TEXT, [f"s{i}" for i in range(singers)])})
    w.table("album", {"album_id": (INT, ids(300)), "title": (TEXT, [f"a{i}" for i in range(300)])})
    w.table("song", {"song_id": (INT, ids(40, 5000)), "provider": (INT, [provider[i % len(provider)] for i in range(40)])})
    return w


def test_a_few_ids_that_span_one_dense_key_name_their_parent_by_fit():
    # 6 ids 1..7 fit singer 1..8 and album 1..300 alike, too few for containment to beat chance;
    # but ids drawn from albums would rarely all stop at 7: they span singer's keys, no other
    # key holds them as tightly, so the values say which parent (before: no link at all)
    links = run(songs_by([1, 2, 3, 5, 6, 7]))
    assert pairs(links.inferred) == {("song.provider", "singer.singer_id")}
    (link,) = links.inferred
    # ... not that a reference exists (a count 1..7 fits as well): kept, under the write bar
    assert DiscoverySettings().min_confidence <= link.confidence <= CAPS.value_fit_only
    exact = next(e for e in link.evidence if e.signal is Signal.EXACT_CONTAINMENT)
    assert "6 values 1..7 span the keys 1..8" in exact.detail
    # the rule is a setting: off, the pair is the small-subset rejection it was
    off = run(songs_by([1, 2, 3, 5, 6, 7]), value_fit_links=False)
    assert off.inferred == [] and [(r.trap, r.child.column) for r in off.rejected] == [(Trap.SMALL_SUBSET, "provider")]
    # the same numbers bunched at the low end of a wider key (1..7 of 1..60) are chance
    assert run(songs_by([1, 2, 3, 5, 6, 7], singers=60)).inferred == []
    # a second key that holds them nearly as tightly (band 1..9: drawn from it, six ids would
    # stop at 8 only (8/9)^6 ~ half the time): the values cannot say which
    w = songs_by([1, 2, 3, 5, 6, 7])
    w.table("band", {"band_id": (INT, ids(9)), "name": (TEXT, [f"b{i}" for i in range(9)])})
    assert run(w).inferred == []
    # the child relation's own key (unique, first: named like nothing), numbered alike, is keyed
    # alike, not drawn from singer's keys
    w = Warehouse()
    w.table("singer", {"singer_id": (INT, ids(8)), "name": (TEXT, [f"s{i}" for i in range(8)])})
    w.table("song", {"col_1": (INT, [1, 2, 3, 5, 6, 7]), "col_2": (TEXT, [f"t{i}" for i in range(6)])})
    assert run(w).inferred == []


def test_values_never_overrule_a_name_that_names_another_relation():
    # the six ids that name singer by fit, in a column named for another relation of the project
    # (``record_id``; records keyed 5000..5299 hold none of them: a half-loaded source): the
    # name says which relation it references, and small ids singer's key also holds say only
    # that both count from 1 (before: linked to singer by fit)
    w = songs_by([1, 2, 3, 5, 6, 7])
    w.table("record", {"record_id": (INT, ids(300, 5000)), "title": (TEXT, [f"r{i}" for i in range(300)])})
    w.table("track", {"track_id": (INT, ids(40, 9000)), "record_id": (INT, [[1, 2, 3, 5, 6, 7][i % 6] for i in range(40)])})
    assert pairs(run(w).inferred) == {("song.provider", "singer.singer_id")}
    # a name of the child's own relation is no other relation's (``friend.friend_id`` is a person)
    w = songs_by([1, 2, 3, 5, 6, 7])
    w.table("provider", {"provider_id": (INT, [[1, 2, 3, 5, 6, 7][i % 6] for i in range(40)]),
                         "note": (TEXT, [f"n{i}" for i in range(40)])})
    assert ("provider.provider_id", "singer.singer_id") in pairs(run(w).inferred)


def test_a_childs_own_key_holding_its_values_too_says_chance_explains_them():
    # 90 numbers 3..359 inside makes 1..406 and inside their own relation's ids 1..406: any
    # dense range holds them, so no value-only link (the own key is no parent, but it is a
    # container: dropping it made makes the one key that holds them, and a link)
    w = Warehouse()
    w.table("makes", {"make_id": (INT, ids(406)), "name": (TEXT, [f"m{i}" for i in range(406)])})
    w.table("cars", {"id": (INT, ids(406)), "hp": (INT, [3 + 4 * (i % 90) for i in range(406)])})
    links = run(w, min_confidence=TRAP_BAR)
    assert links.inferred == []
    assert [(r.trap, r.child.column) for r in links.rejected] == [(Trap.AMBIGUOUS, "hp")]


def test_small_numbers_at_the_low_end_of_a_dense_key_range_are_chance():
    rng = random.Random(14)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(3000))})
    # a counter 1..300: hundreds of distinct values, all inside the dense key range
    w.table("tickets", {"ticket_id": (INT, ids(400, 70000)), "src": (INT, sample(rng, ids(300), 400))})
    links = run(w, min_confidence=TRAP_BAR)
    assert links.inferred == []
    assert [(r.trap, r.child.column) for r in links.rejected] == [(Trap.SMALL_SUBSET, "src")]
    assert "fill a small part of the parent's range 1..3000" in links.rejected[0].detail
    # the rule is a setting (0: off): without it the counter links by values alone
    assert pairs(run(w, min_confidence=TRAP_BAR, range_spread_surprise=0).inferred) == {
        ("tickets.src", "customers.customer_id")}


def tickets_with_a_nameless_reference(products: int) -> Warehouse:
    rng = random.Random(12)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(2000))})
    w.table("products", {"product_id": (INT, ids(products))})
    w.table("tickets", {"ticket_id": (INT, ids(400, 70000)), "src": (INT, sample(rng, ids(2000), 400))})
    return w


def test_values_that_fit_several_keys_need_a_name():
    # 360 ids spread over 1..2000 could have been drawn from 1..2010 as well (all of them at most
    # 2000 by chance: ~1 in 6)
    links = run(tickets_with_a_nameless_reference(2010), min_confidence=TRAP_BAR)
    assert links.inferred == []
    assert links.rejected[0].trap is Trap.AMBIGUOUS
    # from 1..2050 hardly (~1e-3.9): the fit names customers, and values alone stop at the cap
    (link,) = run(tickets_with_a_nameless_reference(2050), min_confidence=TRAP_BAR).inferred
    assert (link.parent.column, link.confidence <= CAPS.value_fit_only) == ("customer_id", True)


def test_a_key_the_values_spread_too_narrowly_for_is_no_container():
    # drawn from 1..2500, 360 ids would reach past 2000 (chance ~1e-35): products is not where
    # they come from, so customers is the one key that holds them
    links = run(tickets_with_a_nameless_reference(2500), min_confidence=TRAP_BAR)
    assert pairs(links.inferred) == {("tickets.src", "customers.customer_id")}
    # without the range rule two keys hold the values: the fit still names customers, capped;
    # without either rule no name says which
    (link,) = run(tickets_with_a_nameless_reference(2500), min_confidence=TRAP_BAR, range_spread_surprise=0).inferred
    assert (link.parent.column, link.confidence <= CAPS.value_fit_only) == ("customer_id", True)
    assert run(tickets_with_a_nameless_reference(2500), min_confidence=TRAP_BAR, range_spread_surprise=0,
               value_fit_links=False).inferred == []


def test_two_keys_numbered_without_a_gap_are_not_a_link_by_values():
    # genre 1..25 and playlist 1..18, opaque names: a sequence numbered both, so the smaller run
    # lies inside the larger whatever the rows are
    w = Warehouse()
    w.table("t_1", {"col_1": (INT, ids(25)), "col_2": (TEXT, [f"g{i}" for i in range(25)])})
    w.table("t_2", {"col_3": (INT, ids(18)), "col_4": (TEXT, [f"p{i}" for i in range(18)])})
    links = run(w, min_confidence=TRAP_BAR)
    assert links.inferred == []
    assert {r.trap for r in links.rejected} == {Trap.KEY_TO_KEY}
    # equal runs are one set of rows keyed twice (a 1:1 split): still a link by values
    w = Warehouse()
    w.table("t_1", {"col_1": (INT, ids(25)), "col_2": (TEXT, [f"g{i}" for i in range(25)])})
    w.table("t_2", {"col_3": (INT, ids(25)), "col_4": (INT, [i % 7 for i in range(25)])})
    assert len(run(w, min_confidence=TRAP_BAR).inferred) == 1


def test_a_sequence_numbering_the_rows_is_the_key_where_nothing_names_one():
    # opaque names, the key second (ship: lost_in_battle, id): rows numbered 1..7 are its key,
    # so they are not a child of battle's 1..8 (keys numbered alike); a column of other
    # integers in the second place stays no key
    def warehouse(second: list[int]) -> Warehouse:
        w = Warehouse()
        w.table("t_2", {"col_10": (INT, ids(8)), "col_11": (TEXT, [f"b{i}" for i in range(8)])})
        w.table("t_1", {"col_13": (INT, [4, 4, 5, 6, 7, 8, 8]), "col_5": (INT, second),
                        "col_6": (TEXT, [f"s{i}" for i in range(7)])})
        return w

    links = run(warehouse(ids(7)), min_confidence=TRAP_BAR)
    assert ("t_1.col_5", "t_2.col_10") not in pairs(links.inferred)
    assert any((r.trap, r.child.column) == (Trap.KEY_TO_KEY, "col_5") for r in links.rejected), links.rejected
    assert ("t_1.col_13", "t_2.col_10") in pairs(links.inferred)
    # the same unique integers with a gap are no sequence: not the key, as before
    gapped = run(warehouse([1, 2, 3, 4, 5, 6, 9]), min_confidence=TRAP_BAR)
    assert not any(r.child.column == "col_5" and r.trap is Trap.KEY_TO_KEY for r in gapped.rejected)


def test_an_own_key_at_the_low_end_of_another_key_is_numbered_alike():
    # car_makers keyed 1..23 with one gap (22 ids), model_list 1..36, opaque names: the makers'
    # own sequence, not ids drawn from the models'; a 1:1 extension keyed by ids drawn from
    # the whole range still links
    rng = random.Random(11)
    def warehouse(child_keys: list[int]) -> Warehouse:
        w = Warehouse()
        w.table("t_4", {"col_8": (INT, ids(36)), "col_12": (TEXT, [f"m{i}" for i in range(36)])})
        w.table("t_5", {"col_22": (INT, child_keys), "col_10": (TEXT, [f"k{i}" for i in range(len(child_keys))])})
        return w

    own = run(warehouse([i for i in ids(23) if i != 17]), min_confidence=TRAP_BAR)
    assert own.inferred == []
    assert [(r.trap, r.child.column) for r in own.rejected] == [(Trap.KEY_TO_KEY, "col_22")], own.rejected
    drawn = sorted(rng.sample(ids(36), 22))
    assert pairs(run(warehouse(drawn), min_confidence=TRAP_BAR).inferred) == {("t_5.col_22", "t_4.col_8")}


def test_a_shared_word_does_not_outweigh_two_gapless_key_runs():
    # dense surrogate keys: enrolment_courses keyed 1..180 (its name ends in "course"), courses
    # keyed 1..200; the name pattern alone said "courses", the numbering says nothing
    def warehouse(child_key: str) -> Warehouse:
        w = Warehouse()
        w.table("courses", {"course_id": (INT, ids(200)), "title": (TEXT, [f"c{i}" for i in range(200)])})
        w.table("enrolment_courses", {child_key: (INT, ids(180)), "grade": (TEXT, [f"g{i % 5}" for i in range(180)])})
        return w

    links = run(warehouse("student_course_id"), min_confidence=TRAP_BAR)
    assert links.inferred == []
    assert [r.trap for r in links.rejected] == [Trap.KEY_TO_KEY]
    assert "the names share a word" in links.rejected[0].detail
    # a child named for the parent whole is a 1:1 split of one set of rows: a link, whatever
    # markers the convention adds (`fk_course_id` -> `course_id`, the hungarian style)
    for name in ("course_id", "fk_course_id"):
        assert pairs(run(warehouse(name)).inferred) == {(f"enrolment_courses.{name}", "courses.course_id")}
    # a gap in the child's run (a subset of the parent's keys, not a numbering of its own): a link
    w = Warehouse()
    w.table("courses", {"course_id": (INT, ids(200)), "title": (TEXT, [f"c{i}" for i in range(200)])})
    w.table("enrolment_courses", {"student_course_id": (INT, [i for i in ids(200) if i % 10]),
                                  "grade": (TEXT, [f"g{i % 5}" for i in range(180)])})
    assert pairs(run(w).inferred) == {("enrolment_courses.student_course_id", "courses.course_id")}


# -- values: LSH finds a nameless link among many columns --------------------------------------

def test_lsh_finds_a_nameless_link_among_many_columns():
    rng = random.Random(13)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(2000)), "email": (TEXT, [f"u{i}@x.io" for i in range(2000)])})
    for t in range(40):
        start = 100_000 * (t + 1)
        w.table(f"table_{t}", {
            f"t{t}_key": (INT, ids(150, start)),
            f"t{t}_code": (TEXT, [f"Z{t}-{i}" for i in range(150)]),
            f"t{t}_num": (INT, sample(rng, ids(150, start), 150)),
        })
    w.table("support_tickets", {"ticket_id": (INT, ids(500, 9_000_000)), "opened_by": (INT, sample(rng, ids(2000), 500))})
    links = run(w, verify=False)
    assert ("support_tickets.opened_by", "customers.customer_id") in pairs(links.inferred)
    link = next(l for l in links.inferred if l.child.column == "opened_by")
    assert link.has(Signal.VALUE_CONTAINMENT_ESTIMATE)
    assert links.counts["candidates_by_value"] >= 1
    # value-only links inside one relation (t<k>_num in t<k>_key) are not made up
    assert pairs(links.inferred) == {("support_tickets.opened_by", "customers.customer_id")}
    # and the candidate count stays far below all pairs of the 125 columns
    assert links.counts["candidates"] < 125 * 124 // 10


# -- verification -------------------------------------------------------------------------------

def many_children():
    rng = random.Random(14)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(300))})
    w.table("customers_backup", {"customer_id": (INT, ids(300))})
    w.table("customers_archive", {"customer_id": (INT, ids(300))})
    for t in range(12):
        w.table(f"fact_{t}", {f"fact_{t}_id": (INT, ids(100, 10_000 * (t + 1))),
                              "customer_id": (INT, sample(rng, ids(300), 100))})
    return w


def test_verify_is_called_with_a_bounded_number_of_pairs():
    w = many_children()
    calls: list = []
    discover(w.project(), w.profiles(), DiscoverySettings(max_verify_total=5, max_verify_per_child=1),
             verify=w.verifier(calls))
    assert len(calls) == 1
    asked = calls[0]
    assert 0 < len(asked) <= 5
    assert len({c for c, _ in asked}) == len(asked)  # at most one per child
    calls.clear()
    discover(w.project(), w.profiles(), DiscoverySettings(max_verify_per_child=1), verify=w.verifier(calls))
    assert len({c for c, _ in calls[0]}) == len(calls[0]) > 5
    calls.clear()
    discover(w.project(), w.profiles(), DiscoverySettings(max_verify_per_child=2), verify=w.verifier(calls))
    per_child = {}
    for c, _ in calls[0]:
        per_child[c] = per_child.get(c, 0) + 1
    assert max(per_child.values()) == 2
    calls.clear()
    discover(w.project(), w.profiles(), DiscoverySettings(max_verify_total=0), verify=w.verifier(calls))
    assert calls == []


def test_exact_containment_is_recorded_and_can_refute_an_estimate():
    w = customers_orders()
    links = run(w)
    assert links.inferred[0].has(Signal.EXACT_CONTAINMENT)
    assert links.counts["verified_pairs"] >= 1

    def liar(pairs_):
        return {(c, p): ContainmentResult(c.relation, c.column, p.relation, p.column, 50, 5) for c, p in pairs_}

    refuted = discover(w.project(), w.profiles(), DiscoverySettings(), verify=liar)
    assert refuted.inferred == []


def orphaned_orders(orphan_share: float, child_column: str = "customer_id", orphan_keys: int = 20):
    """customers 1..50; orders whose child values miss the parent for ``orphan_share`` of the rows
    (``orphan_keys`` keys 51.. that were never loaded: a late-arriving dimension)."""
    rng = random.Random(5)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    values = [rng.choice(ids(orphan_keys, 51)) if rng.random() < orphan_share else rng.choice(ids(50)) for _ in range(300)]
    w.table("orders", {"order_id": (INT, ids(300, 5000)), child_column: (INT, values)})
    return w, values


def test_named_pair_with_orphans_is_a_partial_link_with_its_orphan_counts():
    w, values = orphaned_orders(0.2)
    links = run(w)
    (link,) = links.inferred
    assert pairs([link]) == {("orders.customer_id", "customers.customer_id")}
    orphan_values = {v for v in values if v > 50}
    assert link.orphans is not None
    assert (link.orphans.values, link.orphans.of_values) == (len(orphan_values), len(set(values)))
    assert link.orphans.rows == sum(1 for v in values if v > 50)
    exact = next(e for e in link.evidence if e.signal is Signal.EXACT_CONTAINMENT)
    assert exact.strength > 0 and f"{len(orphan_values)} orphan values in {link.orphans.rows} child rows" in exact.detail
    # checked and found wanting: no surer than an unchecked pair, under the bar `ask` joins schemas at
    assert link.confidence == CAPS.partial
    assert "orphan" in render_markdown(links)
    # the JSON record keeps the counts; a link without orphans carries none
    assert LinkSet.from_json(links.to_json()).inferred[0].orphans == link.orphans
    assert run(customers_orders()).inferred[0].orphans is None


def test_a_named_pair_in_sample_rows_is_a_partial_link_far_from_full_containment():
    """A dev environment's sample rows: 46 of the 115 customers the orders name were loaded (40%).
    The names say they join and the data does not contradict it: a partial link with its orphans
    (refuted under the old bar of 0.5), its test written to pass on today's orphan rows."""
    w, values = orphaned_orders(0.6, orphan_keys=80)
    (link,) = run(w).inferred
    assert pairs([link]) == {("orders.customer_id", "customers.customer_id")}
    assert (link.orphans.values, link.orphans.of_values) == (len({v for v in values if v > 50}), len(set(values)))
    assert link.orphans.values / link.orphans.of_values > 0.5


def sampled_heroes(heroes_from: list[int]) -> Warehouse:
    """superhero: 200 of the keys 1..500 kept (a dev environment's sample); hero_power names heroes
    drawn from ``heroes_from``. ``hero_id`` names ``superhero`` by its head noun only, so the names
    alone score less than a perfect name match would."""
    rng = random.Random(11)
    w = Warehouse()
    kept = sorted(rng.sample(ids(500), 200))
    w.table("superhero", {"id": (INT, kept), "hero_name": (TEXT, [f"h{k}" for k in kept])})
    w.table("hero_power", {"power_id": (INT, ids(400, 9000)), "hero_id": (INT, sample(rng, heroes_from, 400))})
    return w


def test_a_named_child_of_a_sampled_parent_scores_no_lower_than_its_names():
    """40% of the heroes hero_power names were kept: as many as any number in 1..500 would hit, so
    the values neither confirm nor contradict the names; the pair is judged on its names (as an
    all-NULL child would be), its orphans and verified share recorded, not refused."""
    (link,) = run(sampled_heroes(ids(500))).inferred
    assert pairs([link]) == {("hero_power.hero_id", "superhero.id")}
    assert link.names_only and link.confidence >= DiscoverySettings().min_confidence
    assert link.orphans is not None and 0.4 < link.orphans.values / link.orphans.of_values < 0.8
    (card,) = [e for e in link.evidence if e.signal is Signal.CARDINALITY]
    assert "short of containment, not contradicted, so the names decide" in card.detail
    assert not any(e.signal in VALUE_SIGNALS for e in link.evidence)


def test_a_named_child_numbered_far_past_a_partial_parent_stays_measured():
    # a third of the values are numbers far beyond any hero's key: another numbering, so the
    # partial share is weighed as measured and the pair is no link
    assert not run(sampled_heroes(ids(500) * 3 + ids(300, 100_000))).inferred


def test_a_shared_attribute_partly_in_another_relation_is_no_link():
    # one shipper's phone is also a supplier's: the name is an attribute both relations have, not
    # a reference to suppliers, so the overlap is weighed as measured (every pair checked)
    w = Warehouse()
    w.table("suppliers", {"supplier_id": (INT, ids(30)), "phone": (TEXT, [f"(503) 555-{i:04d}" for i in range(30)])})
    w.table("shippers", {"shipper_id": (INT, ids(3)),
                         "phone": (TEXT, ["(503) 555-0007", "(503) 555-9931", "(503) 555-3199"])})
    assert not [link for link in run(w, verify_min_confidence=0.0).inferred if link.child.column == "phone"]


def test_a_same_named_sibling_with_orphans_does_not_beat_the_key_that_holds_every_value():
    # the real parent shares no name with the child (friend.student_id -> highschooler.id); a
    # sibling child column of the same name is unique and holds part of the values
    rng = random.Random(6)
    w = Warehouse()
    w.table("highschooler", {"id": (INT, ids(60, 1000)), "name": (TEXT, [f"h{i}" for i in range(60)])})
    students = rng.sample(ids(60, 1000), 40)
    w.table("likes", {"student_id": (INT, rng.sample(students, 25)), "liked_id": (INT, rng.sample(ids(60, 1000), 25))})
    w.table("friend", {"student_id": (INT, [rng.choice(students) for _ in range(200)])})
    found = {p for p in pairs(run(w).inferred) if p[0] == "friend.student_id"}
    assert found == {("friend.student_id", "highschooler.id")}


def _wider_orders(orphan_keys: int):
    """customers 1..30; orders naming every customer and ``orphan_keys`` more that were never
    loaded, so the child has more distinct values than the parent."""
    rng = random.Random(3)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(30)), "name": (TEXT, [f"c{i}" for i in range(30)])})
    values = ids(30) + ids(orphan_keys, 31) + [rng.choice(ids(30 + orphan_keys)) for _ in range(300)]
    w.table("orders", {"order_id": (INT, ids(len(values), 5000)), "customer_id": (INT, values)})
    return w


def test_a_named_child_wider_than_its_parent_is_measured_as_orphans():
    # 40 distinct customers named by orders, 10 of them never loaded: a quarter are orphans
    (link,) = run(_wider_orders(10)).inferred
    assert pairs([link]) == {("orders.customer_id", "customers.customer_id")}
    (card,) = [e for e in link.evidence if e.signal is Signal.CARDINALITY]
    assert card.detail == ("parent unique (30 distinct); child 40 distinct, of which ~10 (25%, verified) "
                           "are orphans absent from the parent")


def test_a_named_child_mostly_outside_a_narrower_parent_is_reported_not_dropped():
    # 200 distinct customers named, 30 loaded: below the partial bar, no link, but links.md and
    # the linker's join completion still learn that the schema says these join
    for verify in (True, False):
        links = run(_wider_orders(170), verify=verify)
        assert links.inferred == []
        (r,) = [r for r in links.rejected if (r.child.column, r.parent.column) == ("customer_id", "customer_id")]
        assert r.trap is Trap.CONTAINMENT_FAILED and r.detail.startswith("named, values fall short"), r.detail


def test_a_glued_relation_name_is_named_by_its_head_noun_with_orphans():
    # hero_power.hero_id -> superhero.id with a fifth of the heroes never loaded: `hero` is the
    # head noun of `superhero` (the project says `hero` in `hero_power`), so names vouch and the
    # orphans make a partial link, not a refuted one
    rng = random.Random(8)
    w = Warehouse()
    w.table("superhero", {"id": (INT, ids(200)), "name": (TEXT, [f"h{i}" for i in range(200)])})
    w.table("superpower", {"id": (INT, ids(60)), "power_name": (TEXT, [f"p{i}" for i in range(60)])})
    heroes = [rng.choice(ids(40, 201)) if rng.random() < 0.2 else rng.choice(ids(200)) for _ in range(600)]
    w.table("hero_power", {"hero_id": (INT, heroes), "power_id": (INT, [rng.choice(ids(60)) for _ in range(600)])})
    (link,) = [link for link in run(w).inferred if link.child.column == "hero_id"]
    assert pairs([link]) == {("hero_power.hero_id", "superhero.id")}
    assert any(e.signal is Signal.NAME_PATTERN and "superhero" in e.detail for e in link.evidence)


def test_a_float_key_counted_short_by_its_estimate_is_still_a_parent():
    # the parent key drifted to DOUBLE: it is counted, not sketched, and the warehouse's
    # HyperLogLog estimate says 14 distinct of 15 rows (DuckDB's, measured)
    rng = random.Random(9)
    w = Warehouse()
    owners_uid = w.table("owners", {"owner_id": ("DOUBLE", ids(15)), "name": (TEXT, [f"o{i}" for i in range(15)])})
    w.table("dogs", {"dog_id": (INT, ids(40, 100)), "owner_id": (INT, [rng.choice(ids(15)) for _ in range(40)])})
    profiles = w.profiles()
    owners = profiles.relations[owners_uid]
    counted = dataclasses.replace(owners.columns["owner_id"], distinct=14, distinct_approx=True, minhash=None,
                                  min_len=None, max_len=None, top_values=None)
    owners.columns["owner_id"] = counted

    def found(**settings):
        links = discover(w.project(), profiles, DiscoverySettings(**settings), verify=w.verifier())
        return pairs(links.inferred)
    assert ("dogs.owner_id", "owners.owner_id") in found()
    assert ("dogs.owner_id", "owners.owner_id") not in found(approx_slack=0.03)  # the setting decides


def test_orphans_refute_a_pair_only_names_do_not_vouch_for():
    # without a name saying they join, a child a fifth outside the parent is no link
    w, _ = orphaned_orders(0.2, child_column="ref_value")
    assert run(w, min_confidence=TRAP_BAR).inferred == []
    # with names, a child mostly outside the parent is still refuted (15 of 168 values found)
    w, _ = orphaned_orders(0.95, orphan_keys=200)
    assert run(w).inferred == []
    # and the partial bar is a setting: at the strict bar the named pair is refuted too
    w, _ = orphaned_orders(0.2)
    assert run(w, partial_min_containment=0.9).inferred == []


def test_a_named_pair_the_data_contradicts_is_reported_as_its_own_kind():
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    # a dev environment: none of the 11 customers the payments name were loaded
    w.table("payments", {"payment_id": (INT, ids(40, 7000)), "customer_id": (INT, [900 + i % 11 for i in range(40)])})
    links = run(w)
    assert links.inferred == []
    (r,) = [r for r in links.rejected if r.trap is Trap.CONTRADICTED]
    assert (r.child.column, r.parent.column) == ("customer_id", "customer_id")
    assert r.detail == "named, contradicted by data: 0 of 11 child values found in the parent"
    assert r.would_be_confidence >= 0.5  # what the names alone say
    assert (r.containment, r.verified) == (0.0, True)
    md = render_markdown(links)
    assert "## Named, contradicted by data" in md and "0 of 11 child values" in md
    # without the exact check nothing contradicts the names: the estimate alone keeps the pair out
    unchecked = run(w, verify=False).rejected
    assert not any(r.trap is Trap.CONTRADICTED for r in unchecked)
    (r,) = [r for r in unchecked if r.trap is Trap.CONTAINMENT_FAILED]
    assert (r.child.column, r.parent.column, r.verified) == ("customer_id", "customer_id", False)
    assert r.containment < 0.5 and r.would_be_confidence >= 0.5 and "not verified" in r.detail


def test_containment_rejections_record_the_measured_share_for_join_completion():
    """A named pair kept out only by its values is a CONTAINMENT_FAILED rejection with its
    would-be confidence and measured containment (issue #31 completes joins from these), in
    links.json and links.md; a pair that became a link is not reported."""
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    # loader typed the ids as text codes that are no customer's id: types and values disagree
    w.table("payments", {"payment_id": (INT, ids(40, 7000)), "customer_id": (TEXT, [f"x{i % 11}" for i in range(40)])})
    w.table("refunds", {"refund_id": (INT, ids(30, 9000)), "customer_id": (INT, [1 + i % 20 for i in range(30)])})
    links = run(w)
    assert pairs(links.inferred) == {("refunds.customer_id", "customers.customer_id")}
    (r,) = [r for r in links.rejected if r.trap is Trap.CONTAINMENT_FAILED]
    assert (r.child.relation.rsplit(".", 1)[1], r.parent.relation.rsplit(".", 1)[1]) == ("payments", "customers")
    assert (r.containment, r.verified) == (0.0, True) and r.would_be_confidence >= 0.5
    assert "0 of 11 child values" in r.detail and "text and integer" in r.detail
    assert not any(x.child.relation.endswith("refunds") for x in links.rejected)
    data = LinkSet.from_json(links.to_json())
    assert [x for x in data.rejected if x.trap is Trap.CONTAINMENT_FAILED] == [r]
    md = render_markdown(links)
    assert "## Named or joined, values fall short" in md and "0 of 11 child values" in md


def test_works_without_profiles_and_without_verifier():
    w = customers_orders()
    links = discover(w.project(), None, DiscoverySettings())
    assert pairs(links.inferred) == {("orders.customer_id", "customers.customer_id")}
    assert not links.inferred[0].has(Signal.VALUE_CONTAINMENT_ESTIMATE)
    assert any("no profiles" in n for n in links.notes)


# -- dbt SQL, lineage collapse, domains --------------------------------------------------------

def layered_shop(**settings_kw):
    rng = random.Random(15)
    w = Warehouse()
    cust = ids(200)
    orders_customer = sample(rng, cust, 900)
    raw_c = w.table("raw_customers", {"id": (INT, cust), "name": (TEXT, [f"c{i}" for i in cust])})
    raw_o = w.table("raw_orders", {"id": (INT, ids(900, 10_000)), "user_id": (INT, orders_customer)})
    stg_c = w.model("stg_customers", {"customer_id": (INT, cust), "name": (TEXT, [f"c{i}" for i in cust])},
                    depends_on=[raw_c], sql='select id as customer_id, name from "db"."raw"."raw_customers"')
    stg_o = w.model("stg_orders", {"order_id": (INT, ids(900, 10_000)), "customer_id": (INT, orders_customer)},
                    depends_on=[raw_o], sql='with src as (select * from "db"."raw"."raw_orders") '
                                            'select id as order_id, user_id as customer_id from src')
    w.model("dim_customers", {"customer_id": (INT, cust), "n_orders": (INT, sample(rng, ids(9), 200))},
            depends_on=[stg_c, stg_o], sql='''
            select c.customer_id, count(o.order_id) as n_orders
            from "db"."main"."stg_customers" c left join "db"."main"."stg_orders" o on o.customer_id = c.customer_id
            group by 1''')
    w.model("fct_orders", {"order_id": (INT, ids(900, 10_000)), "customer_id": (INT, orders_customer)},
            depends_on=[stg_o], sql='select order_id, customer_id from "db"."main"."stg_orders"')
    return w


def test_lineage_copies_collapse_to_one_canonical_link():
    w = layered_shop()
    links = run(w)
    assert pairs(links.inferred) == {("stg_orders.customer_id", "stg_customers.customer_id")}
    link = links.inferred[0]
    assert link.has(Signal.SQL_JOIN)
    collapsed = {(c.relation.split(".")[-1] + "." + c.column, p.relation.split(".")[-1] + "." + p.column)
                 for c, p in link.collapsed}
    assert ("fct_orders.customer_id", "dim_customers.customer_id") in collapsed
    assert ("raw_orders.user_id", "raw_customers.id") in collapsed
    # copies are lineage, never joins
    lineage = pairs(links.lineage)
    assert ("stg_customers.customer_id", "raw_customers.id") in lineage
    assert ("fct_orders.customer_id", "stg_orders.customer_id") in lineage
    assert ("dim_customers.n_orders", "stg_orders.order_id") not in lineage  # an aggregate
    joins = pairs(links.joins())
    assert not any(c.split(".")[1] == p.split(".")[1] == "customer_id" and
                   {c.split(".")[0], p.split(".")[0]} == {"stg_customers", "dim_customers"} for c, p in joins)


def test_without_collapse_every_copy_pair_is_reported():
    links = run(layered_shop(), collapse_lineage=False)
    assert len(links.inferred) > 1
    assert ("stg_orders.customer_id", "stg_customers.customer_id") in pairs(links.inferred)


def test_one_value_domain_anchored_on_the_key():
    links = run(layered_shop())
    domain = next(d for d in links.domains if any(m.column == "user_id" for m in d.members))
    assert domain.anchor.relation.endswith("stg_customers") and domain.anchor.column == "customer_id"
    members = {m.relation.split(".")[-1] + "." + m.column for m in domain.members}
    assert {"raw_customers.id", "dim_customers.customer_id", "fct_orders.customer_id",
            "raw_orders.user_id", "stg_orders.customer_id"} <= members
    assert links.inferred[0].domain == domain.id
    # the order key is only lineage: no key domain for it
    assert not any(d.anchor.column == "order_id" for d in links.domains)


def test_a_foreign_key_of_a_foreign_key_is_moved_to_the_root_key():
    rng = random.Random(19)
    w = Warehouse()
    w.table("customers", {"id": (INT, ids(100)), "name": (TEXT, [f"c{i}" for i in range(100)])})
    w.table("customer_profiles", {"customer_id": (INT, ids(100)), "tier": (TEXT, sample(rng, ["a", "b"], 100))})
    w.table("orders", {"order_id": (INT, ids(500, 7000)), "customer_id": (INT, sample(rng, ids(100), 500))})
    found = pairs(run(w).inferred)
    assert ("customer_profiles.customer_id", "customers.id") in found
    assert ("orders.customer_id", "customers.id") in found  # not -> customer_profiles.customer_id
    assert ("orders.customer_id", "customer_profiles.customer_id") not in found


def test_transitive_pairs_collapse_onto_the_root_key():
    rng = random.Random(16)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(100))})
    w.table("customer_profiles", {"customer_id": (INT, ids(100)), "tier": (TEXT, sample(rng, ["a", "b"], 100))})
    w.table("orders", {"order_id": (INT, ids(500, 7000)), "customer_id": (INT, sample(rng, ids(100), 500))})
    links = run(w)
    found = pairs(links.inferred)
    assert ("orders.customer_id", "customers.customer_id") in found
    assert ("orders.customer_id", "customer_profiles.customer_id") not in found
    assert len({l.domain for l in links.inferred}) == 1 and len(links.domains) == 1


def test_sql_join_alone_links_columns_whose_names_share_nothing():
    w = Warehouse()
    cust = w.table("customers", types={"id": INT, "name": TEXT})
    orders = w.table("orders", types={"order_id": INT, "buyer": INT})
    w.model("m", types={"order_id": INT}, depends_on=[cust, orders], sql='''
        select o.order_id from "db"."raw"."orders" o join "db"."raw"."customers" c on c.id = o.buyer''')
    rng = random.Random(20)
    a = w.table("payments", {"payment_id": (INT, ids(80, 3000)), "buyer": (INT, sample(rng, ids(30), 80))})
    b = w.table("refunds", {"refund_id": (INT, ids(60, 9000)), "buyer": (INT, sample(rng, ids(30), 60))})
    w.model("m2", types={"payment_id": INT}, depends_on=[a, b], sql='''
        select p.payment_id from "db"."raw"."payments" p join "db"."raw"."refunds" r on r.buyer = p.buyer''')
    # two foreign keys joined to each other (neither unique) are not a link
    assert not any({"payments", "refunds"} <= {c.split(".")[0], p.split(".")[0]} for c, p in pairs(run(w).inferred))
    links = discover(w.project(), None, DiscoverySettings())
    assert pairs(links.inferred) == {("orders.buyer", "customers.id")}
    assert links.inferred[0].has(Signal.SQL_JOIN)
    assert "sql_models_compiled" in links.counts
    assert ("orders.buyer", "customers.id") not in pairs(
        discover(w.project(), None, DiscoverySettings(use_sql=False)).inferred)


# -- output --------------------------------------------------------------------------------------

def test_json_round_trip_is_lossless_and_deterministic():
    links = run(layered_shop())
    text = links.to_json()
    again = LinkSet.from_json(text)
    assert again.to_json() == text
    assert again.settings == links.settings and again.inferred[0].evidence == links.inferred[0].evidence
    data = again.to_dict()
    assert data["format"] == "dbt_schema_link/links" and data["format_version"] == 3
    # same project built in another order: byte-identical output
    w = layered_shop()
    reordered = Warehouse()
    for uid in reversed(list(w.relations)):
        reordered.relations[uid] = w.relations[uid]
    reordered.values = w.values
    assert run(reordered).to_json() == text


def test_markdown_report_has_every_section():
    rng = random.Random(17)
    w = small_subset_warehouse(lambda rng: sample(rng, ids(8), 12))
    w.table("orders", {"order_id": (INT, ids(100, 50_000)), "customer_id": (INT, sample(rng, ids(300), 100))})
    w.table("invoices", {"invoice_id": (INT, ids(100, 80_000)), "customer_id": (INT, sample(rng, ids(300), 100))})
    w.declare("source.shop.raw.invoices.customer_id", "source.shop.raw.customers.customer_id")
    md = render_markdown(run(w, min_confidence=TRAP_BAR), w.project())
    for heading in ("## Inferred links", "## Declared links", "## Lineage", "## Value domains", "## Rejected (traps)"):
        assert heading in md
    assert re.search(r"\| `orders.customer_id` \| `customers.customer_id` \| 0\.9\d\d \| inferred, confidence 0\.9\d\d \| many_to_one \|", md)
    assert "| `invoices.customer_id` | `customers.customer_id` | relationships_test |" in md
    assert "small_subset" in md


def test_reading_a_links_file_is_versioned_and_tolerant_of_new_settings():
    links = run(customers_orders())
    data = links.to_dict()
    data["settings"]["a_setting_from_the_future"] = 1
    assert LinkSet.from_dict(data).inferred == links.inferred
    from dbt_schema_link.discovery import LinkSetFormatError
    with pytest.raises(LinkSetFormatError):
        LinkSet.from_dict({**data, "format_version": 99})
    with pytest.raises(LinkSetFormatError):
        LinkSet.from_json("{not json")
    with pytest.raises(LinkSetFormatError):
        LinkSet.from_dict({"format": "something/else"})


# -- conventions that hide the words, keys from values, unrelated sources ----------------------

def _tpch_like(w, rng, prefixed=True):
    """Table-prefixed, glued keys (o_custkey -> c_custkey), as in TPC-H."""
    p = (lambda t, c: f"{t}_{c}") if prefixed else (lambda t, c: c)
    w.table("customer", {p("c", "custkey"): (INT, ids(60)), p("c", "name"): (TEXT, [f"Cust#{i}" for i in range(60)]),
                         p("c", "nationkey"): (INT, sample(rng, ids(25), 60))})
    w.table("nation", {p("n", "nationkey"): (INT, ids(25)), p("n", "name"): (TEXT, [f"N{i}" for i in range(25)])})
    w.table("orders", {p("o", "orderkey"): (INT, ids(400, 5000)), p("o", "custkey"): (INT, sample(rng, ids(60), 400)),
                       p("o", "totalprice"): (INT, sample(rng, ids(9000), 400))})
    w.table("lineitem", {p("l", "orderkey"): (INT, sample(rng, ids(400, 5000), 1500)),
                         p("l", "linenumber"): (INT, sample(rng, ids(7), 1500)),
                         p("l", "quantity"): (INT, sample(rng, ids(50), 1500))})


@pytest.mark.parametrize("prefixed", [True, False])
def test_table_prefixed_glued_keys(prefixed):
    rng = random.Random(3)
    w = Warehouse()
    _tpch_like(w, rng, prefixed)
    links = run(w)
    c = (lambda t, col: f"{t}_{col}") if prefixed else (lambda t, col: col)
    assert pairs(links.inferred) == {
        (f"customer.{c('c', 'nationkey')}", f"nation.{c('n', 'nationkey')}"),
        (f"orders.{c('o', 'custkey')}", f"customer.{c('c', 'custkey')}"),
        (f"lineitem.{c('l', 'orderkey')}", f"orders.{c('o', 'orderkey')}"),
    }


def test_a_bridge_too_small_to_tell_writes_names_as_its_glued_project_does():
    """Two columns say nothing of how a relation writes names; in a project whose relations glue
    them (TPC style, abbreviated: `cstmkey`, no truncation of a relation's word), an empty
    bridge's keys split off `key` as its neighbours' do, so its names alone still link it."""
    w = Warehouse()
    codes = [f"K{i:03d}" for i in range(40)]
    w.table("customers", {"c_cstmkey": (TEXT, codes), "c_cmpnname": (TEXT, [f"n{i}" for i in range(40)]),
                          "c_cntcname": (TEXT, [f"m{i}" for i in range(40)]), "c_city": (TEXT, ["x"] * 40)})
    w.table("customer_demographics", {"cd_cstmtypekey": (TEXT, ["A", "B", "C"]), "cd_cstmdesc": (TEXT, ["a", "b", "c"]),
                                      "cd_rank": (INT, [1, 2, 3])})
    w.table("customer_customer_demo", {"ccd_cstmkey": (TEXT, []), "ccd_cstmtypekey": (TEXT, [])})
    assert pairs(run(w).inferred) == {
        ("customer_customer_demo.ccd_cstmkey", "customers.c_cstmkey"),
        ("customer_customer_demo.ccd_cstmtypekey", "customer_demographics.cd_cstmtypekey"),
    }


def test_a_relation_without_a_key_name_is_keyed_by_its_one_unique_column_named_for_it():
    """`station_sigla`: a key word no list knows, beside a repeating city as first column; its
    values are unique and its name carries the relation's, so it is the key trips reference."""
    rng = random.Random(8)
    w = Warehouse()
    codes = [f"{a}{b}{c}" for a in "ABC" for b in "DEFG" for c in "HJKLM"][:50]
    w.table("stations", {"city": (TEXT, [f"city{i % 20}" for i in range(50)]), "station_sigla": (TEXT, codes),
                         "label": (TEXT, [f"l{i % 30}" for i in range(50)])})
    w.table("trips", {"trip_id": (INT, ids(300)), "from_station": (TEXT, sample(rng, codes, 300)),
                      "fare": (INT, sample(rng, ids(40), 300))})
    assert pairs(run(w).inferred) == {("trips.from_station", "stations.station_sigla")}


def test_abbreviated_relation_names_link():
    rng = random.Random(4)
    w = Warehouse()
    w.table("household_demographics", {"hd_demo_sk": (INT, ids(40)), "hd_buy_potential": (TEXT, [f"b{i % 5}" for i in range(40)])})
    w.table("customer_address", {"ca_address_sk": (INT, ids(80)), "ca_city": (TEXT, [f"c{i}" for i in range(80)])})
    w.table("store_sales", {"ss_ticket_number": (INT, ids(500, 100)), "ss_hdemo_sk": (INT, sample(rng, ids(40), 500)),
                            "ss_addr_sk": (INT, sample(rng, ids(80), 500))})
    assert pairs(run(w).inferred) == {
        ("store_sales.ss_hdemo_sk", "household_demographics.hd_demo_sk"),
        ("store_sales.ss_addr_sk", "customer_address.ca_address_sk"),
    }


def test_unique_first_column_is_a_key_whatever_its_name():
    rng = random.Random(5)
    w = Warehouse()
    names = [f"{a}{b}" for a in "ABCDEFGH" for b in "klmnoprstu"][:60]
    w.table("artist", {"artist_name": (TEXT, names), "country": (TEXT, sample(rng, ["UK", "US", "FR"], 60))})
    # a role name that shares no word with the key: only the values (and the key-ness) tell
    w.table("song", {"song_title": (TEXT, [f"s{i}" for i in range(300)]), "performer": (TEXT, sample(rng, names, 300))})
    assert pairs(run(w).inferred) == {("song.performer", "artist.artist_name")}


def test_small_same_named_ids_do_not_link_unrelated_sources():
    rng = random.Random(6)
    w = Warehouse()
    w.table("singer", {"singer_id": (INT, ids(7)), "name": (TEXT, [f"s{i}" for i in range(7)])}, source="concerts")
    w.table("singer_in_concert", {"concert_id": (INT, ids(12)), "singer_id": (INT, sample(rng, ids(7), 12))},
            source="concerts")
    w.table("song", {"song_id": (INT, ids(30)), "singer_id": (INT, sample(rng, ids(6), 30))}, source="music")
    links = run(w)
    assert pairs(links.inferred) == {("singer_in_concert.singer_id", "singer.singer_id")}
    assert any(r.trap is Trap.CROSS_SOURCE and r.child.column == "singer_id" for r in links.rejected)
    # the same pair inside one source is a link
    assert ("song.singer_id", "singer.singer_id") in pairs(run(w, cross_source_strictness=0.0).inferred)


# -- the links.md breakdown adds up to the confidence ------------------------------------------

@pytest.mark.parametrize("case", ["profiled", "parent_unprofiled", "names_only"])
def test_breakdown_uses_the_table_the_score_used(case):
    """A profiled child against an unprofiled parent has no value evidence but is scored by the
    measured table: the breakdown's prior must be that table's, so its terms add up to the
    confidence (it once chose by the evidence and showed the names-only prior)."""
    from dbt_schema_link.discovery.calibration import MEASURED, NAMES_ONLY
    from dbt_schema_link.discovery.report import render_markdown as render
    from dbt_schema_link.discovery.scoring import breakdown, squash

    rng = random.Random(3)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(60)), "label": (TEXT, [f"n{i}" for i in range(60)])},
            profiled=case == "profiled")
    w.table("orders", {"order_id": (INT, ids(300, 1000)), "customer_id": (INT, sample(rng, ids(60), 300))})
    links = run(w, profiles=case != "names_only", verify=False)
    (link,) = links.inferred
    assert link.names_only is (case == "names_only")
    table = NAMES_ONLY if case == "names_only" else MEASURED
    line = breakdown(link.evidence, measured=not link.names_only)
    assert f"bias {table.bias:+.1f}" in line and line in render(links)
    total = table.bias + sum(e.contribution for e in link.evidence)
    assert math.isclose(squash(total), link.confidence, abs_tol=2e-3)
    assert LinkSet.from_json(links.to_json()).inferred[0].names_only is link.names_only


# -- rules of issue #30: all-NULL children, failed checks --------------------------------------

@pytest.mark.parametrize("loader_type", [TEXT, "BOOLEAN"])
def test_an_all_null_child_is_judged_on_its_name_not_its_guessed_type(loader_type):
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    # a loader typed an empty column by guess: no value says anything against the customers key
    w.table("payments", {"payment_id": (INT, ids(40, 7000)), "customer_id": (loader_type, [None] * 40)})
    links = run(w)
    assert pairs(links.inferred) == {("payments.customer_id", "customers.customer_id")}
    (link,) = links.inferred
    typed = next(e for e in link.evidence if e.signal is Signal.TYPE_MATCH)
    assert typed.strength == 0.0 and "holds only NULLs" in typed.detail
    assert "holds only NULLs" in render_markdown(links)
    # a child with values of the wrong type is still refused on its type
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    w.table("payments", {"payment_id": (INT, ids(40, 7000)), "customer_id": ("BOOLEAN", [i % 2 == 0 for i in range(40)])})
    assert run(w).inferred == []


def test_an_all_null_child_scores_as_names_alone_would():
    """No value to compare is no evidence against the pair: a child holding only NULLs is scored
    by the names-only table (``names_only``), so a name weaker than an exact match still links.
    The measured table, fitted where values were compared, read the missing containment as
    evidence against (``Country`` -> countries.CountryId scored 0.2)."""
    w = Warehouse()
    w.table("countries", {"CountryId": (INT, ids(10)), "CountryName": (TEXT, [f"n{i}" for i in range(10)])})
    w.table("car_makers", {"Id": (INT, ids(20)), "Maker": (TEXT, [f"m{i}" for i in range(20)]),
                           "Country": (TEXT, [None] * 20)})
    links = run(w)
    assert pairs(links.inferred) == {("car_makers.Country", "countries.CountryId")}
    (link,) = links.inferred
    assert link.names_only and not any(e.signal in VALUE_SIGNALS for e in link.evidence)


def test_an_all_null_column_keys_no_row_of_its_relation():
    """``hero_id`` in ``hero_attribute`` would be that relation's key by its name; holding no
    value it keys no row, so its name is free to designate the entity (``superhero``)."""
    w = Warehouse()
    w.table("superhero", {"id": (INT, ids(30)), "hero_name": (TEXT, [f"h{i}" for i in range(30)])})
    w.table("attribute", {"id": (INT, ids(5, 100)), "attribute_name": (TEXT, [f"a{i}" for i in range(5)])})
    w.table("hero_attribute", {"hero_id": (TEXT, [None] * 40), "attribute_id": (INT, [100 + i % 5 for i in range(40)]),
                               "attribute_value": (INT, [i * 5 for i in range(40)])})
    links = run(w)
    assert ("hero_attribute.hero_id", "superhero.id") in pairs(links.inferred)
    assert ("hero_attribute.attribute_id", "attribute.id") in pairs(links.inferred)


def test_a_failed_exact_check_caps_the_confidence_names_cannot_outweigh_it():
    """Most of the child's values missing from the parent: the names alone score ~0.9 and, before
    the cap, still carried the pair to a link; now it is kept out and reported with its share."""
    from dbt_schema_link.discovery.policy import CAPS

    w, values = orphaned_orders(0.95, orphan_keys=200)
    child = set(values)
    links = run(w)
    assert links.inferred == []
    (r,) = [r for r in links.rejected if r.child.column == "customer_id"]
    assert r.trap is Trap.CONTRADICTED and r.verified is True
    assert r.containment == pytest.approx(len(child & set(ids(50))) / len(child), abs=1e-4)
    assert r.would_be_confidence > CAPS.failed_check
    # a user who lowers the keep bar under the cap gets the pair back at the cap, not above it
    (link,) = run(w, min_confidence=0.1).inferred
    assert link.confidence <= CAPS.failed_check


def test_a_pair_the_warehouse_did_not_check_is_capped_as_unverified():
    from dbt_schema_link.discovery.policy import CAPS

    rng = random.Random(8)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    w.table("orders", {"order_id": (INT, ids(300, 5000)), "customer_id": (INT, sample(rng, ids(50), 300))})
    w.table("refunds", {"refund_id": (INT, ids(80, 9000)), "customer_id": (INT, sample(rng, ids(50), 80))})
    links = run(w, max_verify_total=1)  # the budget checks one of the two equally good pairs
    assert len(links.inferred) == 2
    checked = [l for l in links.inferred if l.has(Signal.EXACT_CONTAINMENT)]
    unchecked = [l for l in links.inferred if not l.has(Signal.EXACT_CONTAINMENT)]
    assert len(checked) == len(unchecked) == 1
    assert unchecked[0].confidence == CAPS.unverified < checked[0].confidence
    # without a verifier nothing could have been checked: the estimate's confidence stands
    assert all(l.confidence > CAPS.unverified for l in run(w, verify=False).inferred)


def test_a_partial_parent_must_be_the_key_of_the_relation_the_name_designates():
    rng = random.Random(6)
    orphaned = [rng.choice(ids(15, 51)) if rng.random() < 0.2 else rng.choice(ids(50)) for _ in range(300)]
    # the entity's key, named by the child: a partial link with its orphans
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    w.table("payments", {"payment_id": (INT, ids(300, 5000)), "customer_id": (INT, orphaned)})
    (link,) = run(w).inferred
    assert link.orphans is not None and link.parent.relation.endswith("customers")
    # beside it a column that only shares the name, in a table the name does not designate (a
    # bridge): before, its exact name match won; with orphans on both, the entity's key does
    w.table("customer_notes", {"customer_id": (INT, ids(50)), "note": (TEXT, [f"n{i}" for i in range(50)])})
    assert {l.parent.relation.rsplit(".", 1)[1] for l in run(w).inferred} == {"customers"}
    # alone, the bridge is still the best reading of the name: a partial link, with its orphans
    w = Warehouse()
    w.table("customer_notes", {"customer_id": (INT, ids(50)), "note": (TEXT, [f"n{i}" for i in range(50)])})
    w.table("payments", {"payment_id": (INT, ids(300, 5000)), "customer_id": (INT, orphaned)})
    (link,) = run(w).inferred
    assert link.orphans is not None and link.parent.relation.endswith("customer_notes")



def test_text_ids_with_orphans_named_for_an_integer_key_are_a_partial_link():
    """A loader typed the child as text; a fifth of its values are orphans. Names vouch, the
    check finds 80%: the values agree as far as a partial link needs, so the type no longer
    blocks (it did: agreement asked for min_exact_containment whatever the names said)."""
    w = Warehouse()
    w.table("stadium", {"stadium_id": (INT, ids(10)), "name": (TEXT, [f"s{i}" for i in range(10)])})
    w.table("concert", {"concert_id": (INT, ids(40, 100)),
                        "stadium_id": (TEXT, [str(1 + i % 4) if i % 5 else "77" for i in range(40)])})
    links = run(w)
    (link,) = links.inferred
    assert pairs([link]) == {("concert.stadium_id", "stadium.stadium_id")}
    assert link.orphans is not None and (link.orphans.values, link.orphans.of_values) == (1, 5)
    # without a name for it the same values are no link
    w2 = Warehouse()
    w2.table("stadium", {"stadium_id": (INT, ids(10)), "name": (TEXT, [f"s{i}" for i in range(10)])})
    w2.table("concert", {"concert_id": (INT, ids(40, 100)),
                         "venue_ref": (TEXT, [str(1 + i % 4) if i % 5 else "77" for i in range(40)])})
    assert not [l for l in run(w2).inferred if l.child.column == "venue_ref"]


def test_a_band_bucket_shared_by_more_parents_than_lsh_max_bucket_is_not_read():
    # five keys holding the same ids share every LSH band: a bucket of five says nothing specific
    # about a child's values, so above the setting it is skipped (the stop-word of value lookup);
    # the setting acts where lookups are capped, above EXACT_VALUE_LOOKUP_PARENTS keys
    rng = random.Random(10)
    w = Warehouse()
    for i in range(5):
        w.table(f"ledger_{i}", {"id": (INT, ids(300, 40_000)), "label": (TEXT, [f"l{i}{j}" for j in range(300)])})
    for i in range(EXACT_VALUE_LOOKUP_PARENTS):  # keys of other values
        w.table(f"other_{i}", {"id": (INT, ids(20, 100_000 + 1_000 * i))})
    w.table("postings", {"posting_id": (INT, ids(500, 90_000)),
                         "counterparty": (INT, [rng.choice(ids(300, 40_000)) for _ in range(500)])})

    def by_value(**settings):
        return run(w, verify=False, **settings).counts["candidates_by_value"]
    assert by_value() == 5
    assert by_value(lsh_max_bucket=4) == 0


# -- calendar keys -----------------------------------------------------------------------------

def days(n, start="2020-01-01"):
    first = datetime.date.fromisoformat(start)
    return [(first + datetime.timedelta(days=i)).isoformat() for i in range(n)]


def calendar_warehouse(day_type="DATE", key_first=True):
    """orders with a column of days and a column of instants; a calendar of 400 days (keyed by the
    day, or, ``key_first=False``, by a surrogate integer as TPC-DS's date_dim is)."""
    rng = random.Random(12)
    w = Warehouse()
    calendar = {"day_date": (day_type, days(400)), "weekday_name": (TEXT, [f"w{i % 7}" for i in range(400)])}
    if not key_first:
        calendar = {"date_sk": (INT, ids(400)), **calendar}
    w.table("calendar", calendar)
    w.table("orders", {
        "order_id": (INT, ids(300)),
        "ordered_on": (day_type, [rng.choice(days(380)[::10]) for _ in range(300)]),  # 38 days
        "shipped_at": ("TIMESTAMP", [f"{rng.choice(days(380))} {rng.randint(10, 23)}:15:00" for _ in range(300)]),
    })
    return w


@pytest.mark.parametrize("day_type", ["DATE", TEXT])
def test_a_column_of_days_references_the_calendar_keyed_by_days(day_type):
    # no name says it (ordered_on names no relation) and 38 days among 400 would be chance for
    # a value-only link: the calendar (a relation keyed by days) is what it references
    (link,) = run(calendar_warehouse(day_type)).inferred
    assert pairs([link]) == {("orders.ordered_on", "calendar.day_date")}
    assert any(e.signal is Signal.CALENDAR_KEY for e in link.evidence)
    assert any(e.signal is Signal.EXACT_CONTAINMENT and e.strength > 0 for e in link.evidence)
    # instants are not days: shipped_at is no calendar key's child


def test_dates_link_to_a_calendar_only_by_the_setting():
    # value-only links on dates need names (``Trap.VALUE_TYPE``): calendar_keys is what links them
    assert run(calendar_warehouse(), calendar_keys=False, min_confidence=TRAP_BAR).inferred == []


def test_a_unique_date_beside_a_surrogate_key_is_no_calendar():
    # date_dim(d_date_sk, d_date): facts reference the surrogate, and a date column is not linked
    # to the unique date the dimension also holds
    assert run(calendar_warehouse(key_first=False), min_confidence=TRAP_BAR).inferred == []


def test_days_outside_the_calendar_are_no_link():
    w = calendar_warehouse()
    w.table("returns", {"return_id": (INT, ids(50)), "returned_on": ("DATE", days(50, start="2031-01-01"))})
    assert ("returns.returned_on", "calendar.day_date") not in pairs(run(w).inferred)


def test_quantities_in_steps_inside_a_dense_key_are_no_reference():
    # scores 5, 10, .., 100 (every one a multiple of 5) inside power ids 1..167: a sample of those
    # keys would hold numbers off the step (chance ~1e-17), so no name means no link
    w = Warehouse()
    w.table("power", {"id": (INT, ids(167)), "name": (TEXT, [f"p{i}" for i in range(167)])})
    w.table("hero_power", {"pick": (INT, [5 * (1 + i % 20) for i in range(200)])})
    links = run(w, min_confidence=TRAP_BAR)
    assert links.inferred == []
    (rejected,) = [r for r in links.rejected if r.child.column == "pick"]
    assert rejected.trap is Trap.MEASURE and "holds only multiples of 5 (5..100)" in rejected.detail
    # the rule is a setting (0: off): without it the scores link by values alone
    assert pairs(run(w, min_confidence=TRAP_BAR, stepped_values_surprise=0).inferred) == {
        ("hero_power.pick", "power.id")}
    # keys themselves in steps of 5 (5..835): a child on the step, spread like them, is a sample
    w = Warehouse()
    w.table("power", {"id": (INT, [5 * i for i in ids(167)]), "name": (TEXT, [f"p{i}" for i in range(167)])})
    w.table("hero_power", {"pick": (INT, [5 * (1 + 8 * (i % 20)) for i in range(200)])})
    assert pairs(run(w, min_confidence=TRAP_BAR).inferred) == {("hero_power.pick", "power.id")}


# -- star schemas: one-row dimensions, business ids, sibling keys (TPC-DS shapes) ----------------

def business_id(n: int) -> str:
    """A 16-letter business id encoding a number, as star-schema generators write them."""
    return "".join("ABCDEFGHIJKLMNOP"[(n >> (4 * i)) & 15] for i in range(16))


def test_a_one_row_dimension_keyed_by_a_surrogate_holding_1_is_referenced():
    # a dimension with one row: its surrogate key holds 1, which is no yes/no flag under a key's name
    rng = random.Random(11)
    w = Warehouse()
    w.table("store", {"s_store_sk": (INT, [1]), "s_store_id": (TEXT, [business_id(1)]),
                      "s_store_name": (TEXT, ["ought"])})
    w.table("warehouse", {"w_warehouse_sk": (INT, [1]), "w_warehouse_id": (TEXT, [business_id(1)])})
    w.table("store_sales", {"ss_ticket_number": (INT, ids(300)), "ss_store_sk": (INT, [1] * 290 + [None] * 10),
                            "ss_quantity": (INT, [rng.randint(2, 100) for _ in range(300)])})
    w.table("inventory", {"inv_warehouse_sk": (INT, [1] * 60), "inv_quantity_on_hand": (INT, ids(60, 3))})
    got = pairs(run(w).inferred)
    assert {("store_sales.ss_store_sk", "store.s_store_sk"), ("inventory.inv_warehouse_sk", "warehouse.w_warehouse_sk")} <= got
    # a 0/1 column without a key's name stays a flag
    w.table("promotion", {"p_promo_sk": (INT, ids(30)), "p_discount_active": (INT, [i % 2 for i in range(30)])})
    assert not [p for p in pairs(run(w).inferred) if p[0] == "promotion.p_discount_active"]


def test_keys_named_alike_for_each_its_own_relation_are_no_link():
    # hd_demo_sk 1..720 lies inside cd_demo_sk 1..1920 because sequences number both; each name
    # abbreviates its own relation (household_demographics, customer_demographics), so neither names the other
    rng = random.Random(12)
    w = Warehouse()
    w.table("customer_demographics", {"cd_demo_sk": (INT, ids(1920)), "cd_gender": (TEXT, sample(rng, ["M", "F"], 1920)),
                                      "cd_education": (TEXT, [f"e{i % 7}" for i in range(1920)])})
    w.table("household_demographics", {"hd_demo_sk": (INT, ids(720)),
                                       "hd_buy_potential": (TEXT, [f"b{i % 6}" for i in range(720)])})
    w.table("store_sales", {"ss_ticket_number": (INT, ids(900)), "ss_cdemo_sk": (INT, sample(rng, ids(1920), 900)),
                            "ss_hdemo_sk": (INT, sample(rng, ids(720), 900))})
    assert pairs(run(w).inferred) == {("store_sales.ss_cdemo_sk", "customer_demographics.cd_demo_sk"),
                                      ("store_sales.ss_hdemo_sk", "household_demographics.hd_demo_sk")}


def test_numbers_kept_as_text_link_to_an_integer_key_only_by_name():
    # street numbers 1..1000 stored as text fit every dense integer key wider than 1000
    rng = random.Random(13)
    w = Warehouse()
    w.table("item", {"i_item_sk": (INT, ids(1800)), "i_product_name": (TEXT, [f"p{i}" for i in range(1800)])})
    w.table("customer_address", {"ca_address_sk": (INT, ids(600, 5001)),
                                 "ca_street_number": (TEXT, [str(rng.randint(1, 1000)) for _ in range(600)])})
    assert pairs(run(w).inferred) == set()
    (rejected,) = [r for r in run(w, min_confidence=TRAP_BAR).rejected if r.parent.column == "i_item_sk"]
    assert rejected.trap is Trap.VALUE_TYPE and "from text to integer needs name evidence" in rejected.detail
    # named for the item, the drifted type is no obstacle
    w.table("returns", {"r_ticket": (INT, ids(200)), "r_item_sk": (TEXT, [str(v) for v in sample(rng, ids(1800), 200)])})
    assert pairs(run(w).inferred) == {("returns.r_item_sk", "item.i_item_sk")}


def test_sparse_ids_link_by_values_to_their_zero_padded_text_copies():
    # the parent's ids drifted to zero-padded text; the child's numbers (a measured range) are 14
    # of 16 sparse four-digit ids, which chance does not explain, so no name is needed
    rng = random.Random(14)
    keys = sorted(rng.sample(range(1000, 2000), 16))
    w = Warehouse()
    w.table("highschooler", {"id": (TEXT, [f"{k:07d}" for k in keys]), "name": (TEXT, [f"h{k}" for k in keys])})
    w.table("friend", {"line": (INT, ids(40)), "student_id": (INT, [keys[i % 14] for i in range(40)])})
    assert pairs(run(w).inferred) == {("friend.student_id", "highschooler.id")}


def test_a_business_id_beside_its_relations_surrogate_key_links_by_values_to_no_other_key():
    # i_item_id repeats once per version of an item; its values are encoded like every other
    # relation's business ids, so they fall inside customer_address's, which means nothing
    w = Warehouse()
    w.table("item", {"i_item_sk": (INT, ids(180)), "i_item_id": (TEXT, [business_id(1 + i // 2) for i in range(180)]),
                     "i_brand": (TEXT, [f"b{i % 9}" for i in range(180)])})
    w.table("customer_address", {"ca_address_sk": (INT, ids(500)),
                                 "ca_address_id": (TEXT, [business_id(1 + i) for i in range(500)])})
    links = run(w, min_confidence=TRAP_BAR)
    assert ("item.i_item_id", "customer_address.ca_address_id") not in pairs(links.inferred)
    assert any(r.trap is Trap.KEY_TO_KEY and r.child.column == "i_item_id" and "named as its own relation's key"
               in r.detail for r in links.rejected)


def test_an_all_null_child_named_for_a_kind_of_value_is_no_reference():
    # rec_end_date holds only NULLs: "date" is one word of its name and names date_dim, but a
    # name without a key marker says what the column holds, not what it references
    w = Warehouse()
    w.table("date_dim", {"d_date_sk": (INT, ids(400)), "d_date_id": (TEXT, [business_id(i) for i in range(400)]),
                         "d_year": (INT, [1998 + i // 365 for i in range(400)])})
    w.table("call_center", {"cc_call_center_sk": (INT, ids(6)), "cc_rec_end_date": (TEXT, [None] * 6),
                            "cc_open_date_sk": (INT, [3, 9, 27, 81, 243, 300])})
    links = run(w, min_confidence=TRAP_BAR)
    assert pairs(links.inferred) == {("call_center.cc_open_date_sk", "date_dim.d_date_sk")}
    assert {r.trap for r in links.rejected if r.child.column == "cc_rec_end_date"} == {Trap.EMPTY_CHILD}
