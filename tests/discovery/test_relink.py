"""Re-linking after a change (discovery/memo.py, passes.py): with the last run's memo, only the
children whose inputs changed are scored again, and the result (and what is checked in the
warehouse) is exactly what a full run gives."""

import os
import pickle
import random
import subprocess
import sys

import pytest

from dbt_schema_link.discovery import DiscoverySettings, discover
from dbt_schema_link.discovery.features import build_features
from dbt_schema_link.discovery.memo import SHARED_GROWTH, Interner, Relink, relation_digests, scope_digest
from dbt_schema_link.discovery.sqlfacts import extract_sql_facts
from dbt_schema_link.score_memo_file import code_digest, read_memo, write_memo
from tests.discovery.builders import Warehouse

INT, TEXT = "INTEGER", "VARCHAR"


def ids(n, start=1):
    return list(range(start, start + n))


def shop(change: str | None = None) -> Warehouse:
    """Customers, stores, staff, products, orders, order items, payments and a model joining
    them; ``change`` alters one relation the way a rebuild would."""
    w = Warehouse()
    customers = ids(300)
    new_customers = ids(340) if change == "parent_rows" else customers
    w.table("customers", {"id": (INT, new_customers), "name": (TEXT, [f"c{i}" for i in new_customers])})
    stores = ids(12)
    w.table("stores", {"store_id": (INT, stores), "city": (TEXT, [f"city{i % 5}" for i in stores])})
    staff = ids(60)
    rng = random.Random(3)  # one generator per relation: a change to one leaves the others' values alone
    w.table("staff", {"staff_id": (INT, staff), "store_id": (INT, [rng.choice(stores) for _ in staff]),
                      "manager_id": (INT, [rng.choice(staff[:6]) for _ in staff])})
    products = ids(150, 500)
    rng = random.Random(4)
    w.table("products", {"product_id": (INT, products), "price": (INT, [rng.randint(1, 90) for _ in products])})
    n_orders = 1200 if change == "child_rows" else 1000
    orders = ids(n_orders, 10_000)
    rng = random.Random(5)
    order_customers = [rng.choice(customers) for _ in orders]
    if change == "orphans":
        order_customers = [c + 5000 if i % 3 == 0 else c for i, c in enumerate(order_customers)]
    columns = {"order_id": (INT, orders), "customer_id": (INT, order_customers),
               "sold_by": (INT, [rng.choice(staff) for _ in orders])}
    if change == "new_column":
        columns["store_id"] = (INT, [rng.choice(stores) for _ in orders])
    w.table("orders", columns)
    items = ids(3000, 90_000)
    rng = random.Random(6)
    w.table("order_items", {"item_id": (INT, items), "order_id": (INT, [rng.choice(ids(1000, 10_000)) for _ in items]),
                            "product_id": (INT, [rng.choice(products) for _ in items])})
    rng = random.Random(7)
    w.table("payments", {"payment_id": (INT, ids(800)), "order_id": (INT, [rng.choice(ids(1000, 10_000))
                                                                          for _ in range(800)])})
    w.model("order_report", {"order_id": (INT, ids(1000, 10_000)), "customer_name": (TEXT, ["x"] * 1000)},
            sql='select o.order_id, c.name as customer_name from "db"."raw"."orders" o '
                'join "db"."raw"."customers" c on o.customer_id = c.id',
            depends_on=["source.shop.raw.orders", "source.shop.raw.customers"])
    return w


def link(w: Warehouse, relink: Relink | None = None, calls: list | None = None, **settings):
    return discover(w.project(), w.profiles(), DiscoverySettings(**settings), verify=w.verifier(calls), relink=relink)


@pytest.mark.parametrize("change, changed", [
    ("child_rows", "orders"), ("parent_rows", "customers"), ("orphans", "orders"), ("new_column", "orders"),
])
def test_a_relink_after_one_relation_changed_equals_a_full_run(change, changed):
    first = Relink()
    link(shop(), first)
    assert first.memo is not None and first.use.children_reused == 0

    again, calls, full_calls = Relink(previous=first.memo), [], []
    relinked = link(shop(change), again, calls)
    full = link(shop(change), calls=full_calls)
    assert relinked.to_json() == full.to_json()
    assert relinked.links  # the comparison is about something
    assert calls == full_calls  # the same pairs checked in the warehouse
    # only what the change can touch was scored again
    assert again.use.children_reused > 0
    assert 0 < again.use.children_scored < again.use.children_reused + again.use.children_scored
    assert any(changed in child[0] for child, entry in again.memo.first.items() if entry is not first.memo.first.get(child))


def test_the_changed_relation_and_its_neighbours_are_scored_again_and_nothing_else():
    first = Relink()
    link(shop(), first)
    again = Relink(previous=first.memo)
    link(shop("child_rows"), again)
    rescored = {child for child, entry in again.memo.first.items() if entry is not first.memo.first.get(child)}
    relations = {child[0].split(".")[-1] for child in rescored}
    # orders' own columns, and children whose candidates include an orders column
    assert "orders" in relations
    assert relations <= {"orders", "order_items", "payments", "order_report", "staff", "customers"}, relations
    assert not any(r in relations for r in ("stores", "products"))


def test_a_memo_of_other_settings_is_not_used():
    first = Relink()
    link(shop(), first)
    again = Relink(previous=first.memo)
    relinked = link(shop(), again, min_confidence=0.6)
    assert again.use.children_reused == 0
    assert relinked.to_json() == link(shop(), min_confidence=0.6).to_json()


def test_an_unchanged_project_reuses_every_score():
    first = Relink()
    before = link(shop(), first)
    again = Relink(previous=first.memo)
    after = link(shop(), again)
    assert after.to_json() == before.to_json()
    assert again.use.children_scored == 0
    assert again.memo.final and all(entry is first.memo.final[child] for child, entry in again.memo.final.items())


def test_the_memo_file_round_trips_and_refuses_what_it_cannot_read(tmp_path):
    first = Relink()
    link(shop(), first)
    path = tmp_path / "scores.memo"
    write_memo(path, first.memo)
    again = Relink(previous=read_memo(path))
    relinked = link(shop("orphans"), again)
    assert again.use.children_reused > 0
    assert relinked.to_json() == link(shop("orphans")).to_json()
    # a memo cut short, of another format, or missing is no memo: the run scores everything
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert read_memo(path) is None
    path.write_bytes(b"dbt_schema_link/scores_memo 0.0.1/1 python2.7\n" + data.split(b"\n", 1)[1])
    assert read_memo(path) is None
    # written by other scoring code under the same package version (a checkout between releases)
    header, body = data.split(b"\n", 1)
    assert f"code-{code_digest()}".encode() in header
    path.write_bytes(header.replace(code_digest().encode(), b"0" * len(code_digest())) + b"\n" + body)
    assert read_memo(path) is None
    path.write_bytes(data)
    assert read_memo(path) is not None
    assert read_memo(tmp_path / "absent.memo") is None


def test_relinks_append_to_one_shared_table_until_it_has_grown_too_far():
    first = Relink()
    link(shop(), first)
    start = first.memo.shared_start
    assert start == len(first.memo.shared) > 0
    again = Relink(previous=first.memo)
    link(shop("orphans"), again)
    # the re-scored children's new evidence is appended; what the reused blobs point at stays put
    assert again.memo.shared is first.memo.shared and again.memo.shared_start == start
    assert again.memo.shared[:start] == first.memo.shared[:start]
    # a table grown past its bound is not reused: the run scores everything and starts a new one
    again.memo.shared.extend([("padding", i) for i in range(SHARED_GROWTH * start)])
    third = Relink(previous=again.memo)
    relinked = link(shop("orphans"), third)
    assert third.use.children_reused == 0
    assert third.memo.shared is not again.memo.shared and third.memo.shared_start == len(third.memo.shared) < start * 2
    assert relinked.to_json() == link(shop("orphans")).to_json()


def test_the_shared_table_keeps_types_and_signs_apart():
    """1 == 1.0 == True and 0.0 == -0.0 in Python: a restored value must be the one stored."""
    table: list = []
    intern = Interner(table)
    positions = [intern(v) for v in (("s", 1.0), ("s", 1), ("s", True), ("s", 0.0), ("s", -0.0), ("s", 1.0))]
    assert positions == [0, 1, 2, 3, 4, 0]
    assert [type(v[1]) for v in table] == [float, int, bool, float, float]
    assert str(table[4][1]) == "-0.0"
    # a table read back is indexed again on first use, and appended to after what it holds
    assert Interner(table)(("s", -0.0)) == 4 and Interner(table)(("t", 2)) == 5


def _digests(w: Warehouse) -> tuple[bytes, dict]:
    project, profiles, settings = w.project(), w.profiles(), DiscoverySettings()
    features = build_features(project, profiles, settings)
    return scope_digest(project, settings, features.k, extract_sql_facts(project)), relation_digests(features)


def test_digests_are_the_same_in_another_process():
    """Python salts str hashes per process: a digest built on hash() would never match a memo
    written by an earlier run."""
    scope, relations = _digests(shop())
    code = ("import pickle, sys; from tests.discovery.test_relink import _digests, shop; "
            "sys.stdout.buffer.write(pickle.dumps(_digests(shop())))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, env=env,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__)))).stdout
    assert pickle.loads(out) == (scope, relations)
