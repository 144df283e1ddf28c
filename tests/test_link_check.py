"""link_check.compare: new joins and written links that no longer hold, one line each."""

from __future__ import annotations

from dbt_schema_link.artifacts.records import ColumnRef, DeclaredLink, LinkOrigin, Project
from dbt_schema_link.link_check import Difference, compare, written_links

ORDERS = ColumnRef("model.shop.orders", "customer_id")
CUSTOMERS = ColumnRef("model.shop.customers", "customer_id")
STORE = ColumnRef("model.shop.orders", "store_id")
STORES = ColumnRef("model.shop.stores", "store_id")


def _written(child: ColumnRef, parent: ColumnRef, written: bool = True) -> DeclaredLink:
    return DeclaredLink(child, parent, LinkOrigin.RELATIONSHIPS_TEST, "test.shop.x", written)


def _key(child: ColumnRef, parent: ColumnRef):
    return (child.key(), parent.key())


def test_agreeing_sets_have_no_difference():
    assert compare([(ORDERS, CUSTOMERS, 0.99)], [_written(ORDERS, CUSTOMERS)], {}, set(), 0.7) == []


def test_case_of_column_names_does_not_matter():
    upper = ColumnRef("model.shop.orders", "CUSTOMER_ID")
    assert compare([(upper, CUSTOMERS, 0.99)], [_written(ORDERS, CUSTOMERS)], {}, set(), 0.7) == []


def test_new_join_and_link_that_no_longer_holds():
    confidences = {_key(ORDERS, CUSTOMERS): 0.41}
    out = compare([(STORE, STORES, 0.93)], [_written(ORDERS, CUSTOMERS)], confidences, set(), 0.7)
    assert [d.kind for d in out] == [Difference.NEW, Difference.NO_LONGER_HOLDS]
    assert out[0].line() == ("new join: model.shop.orders.store_id -> model.shop.stores.store_id "
                             "(confidence 0.930): run `dbt-schema-link write`")
    assert out[1].line() == ("written link no longer holds: model.shop.orders.customer_id -> "
                             "model.shop.customers.customer_id (confidence now 0.410 < 0.7): check the data, "
                             "or remove the test")
    gone = compare([], [_written(ORDERS, CUSTOMERS)], {}, set(), 0.7)
    assert "(not inferred any more)" in gone[0].line()


def test_a_test_written_once_and_deleted_is_not_a_new_join():
    assert compare([(STORE, STORES, 0.93)], [], {}, {_key(STORE, STORES)}, 0.7) == []


def test_the_reverse_direction_is_another_link():
    out = compare([(CUSTOMERS, ORDERS, 0.9)], [_written(ORDERS, CUSTOMERS)], {}, set(), 0.7)
    assert {d.kind for d in out} == {Difference.NEW, Difference.NO_LONGER_HOLDS}


def test_only_generated_tests_are_compared():
    hand, generated = _written(STORE, STORES, written=False), _written(ORDERS, CUSTOMERS)
    project = Project("shop", "1.11.16", "duckdb", {}, declared_links=[hand, generated])
    assert written_links(project) == [generated]
    assert project.declared_links == [hand, generated]  # the original is not changed
