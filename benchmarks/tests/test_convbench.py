"""Checks of the convention generator and its scoring on a small made-up database (no benchmark
data needed, no dbt: the product itself is not run here).

Run: python -m pytest benchmarks/tests/test_convbench.py
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from convbench import naming, report, split
from convbench.generate import check_truth, generate, original_names, renamed_pair
from convbench.naming import Convention, rename, words
from convbench.runner import TaskResult
from convbench.schema import read_schema
from fkbench import databases, product

SCHEMA = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, customer_name TEXT, email_address TEXT UNIQUE, city TEXT);
CREATE TABLE "Sales Orders" (order_id INT PRIMARY KEY, customer_id INT REFERENCES customers(id),
    billing_customer_id INT REFERENCES Customers(ID), order_date DATE, total_amount REAL);
CREATE TABLE OrderLines (order_id INT, line_no INT, LineNo TEXT, product_code VARCHAR(8), quantity INT,
    PRIMARY KEY (order_id, line_no), FOREIGN KEY (order_id) REFERENCES "Sales Orders");
CREATE TABLE shipments (shipment_id INT PRIMARY KEY, order_id INT, line_no INT, shipped_on DATE,
    FOREIGN KEY (order_id, line_no) REFERENCES OrderLines (order_id, line_no));
"""


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shop") / "shop.sqlite"
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", [(1, "Ann", "a@x", "Oslo"), (2, "Bo", None, "Rome")])
    con.executemany('INSERT INTO "Sales Orders" VALUES (?, ?, ?, ?, ?)',
                    [(10, 1, 1, "2024-01-01", 9.5), (11, 2, 1, "2024-01-02", 3), (12, 2, 2, None, "n/a")])
    con.executemany("INSERT INTO OrderLines VALUES (?, ?, ?, ?, ?)",
                    [(10, 1, "a", "P-1", 2), (10, 2, "b", "P-2", 1), (11, 1, "c", "P-1", 5)])
    con.executemany("INSERT INTO shipments VALUES (?, ?, ?, ?)", [(100, 10, 1, "2024-01-03"), (101, 11, 1, None)])
    con.commit()
    con.close()
    return path


def _rows(path: Path, tables: list[str]) -> list[list[tuple]]:
    con = databases.connect_readonly(path)
    try:
        return [con.execute(f"SELECT * FROM {databases.quote_sqlite(t)} ORDER BY rowid").fetchall() for t in tables]
    finally:
        con.close()


def test_words_split_every_style() -> None:
    assert words("CustomerID") == ["customer", "id"]
    assert words("Order Details") == ["order", "details"]
    assert words("18_49_Rating_Share") == ["18", "49", "rating", "share"]
    assert words("TV_Channel") == ["tv", "channel"]
    assert words("line_no") == words("LineNo") == ["line", "no"]
    assert words("__") == ["x"]


def test_schema_keeps_composite_and_implicit_foreign_keys(shop: Path) -> None:
    schema = read_schema(shop, "shop")
    groups = {(fk.child_table, fk.child_columns, fk.parent_table, fk.parent_columns) for fk in schema.foreign_keys}
    assert groups == {
        ("Sales Orders", ("customer_id",), "customers", ("id",)),
        ("Sales Orders", ("billing_customer_id",), "customers", ("id",)),  # spelled as the parent spells it
        ("OrderLines", ("order_id",), "Sales Orders", ("order_id",)),  # implicit parent column
        ("shipments", ("order_id", "line_no"), "OrderLines", ("order_id", "line_no")),  # one composite FK
    }


@pytest.mark.parametrize("convention", list(Convention))
def test_renamed_copy_keeps_values_and_the_renamed_foreign_keys(tmp_path: Path, shop: Path,
                                                                convention: Convention) -> None:
    out = tmp_path / "renamed.sqlite"
    schema, renaming = generate(shop, "shop", convention, out, seed=13)
    truth = check_truth(shop, out, schema, renaming)  # raises unless the truth is the original one renamed
    original = databases.ground_truth(shop)
    assert len(truth.pairs) == len(original.pairs) == 5
    assert truth.pairs == {renamed_pair(p, schema, renaming) for p in original.pairs}
    assert _rows(out, list(renaming.tables.values())) == _rows(shop, list(renaming.tables))  # same rows, same values, same storage classes ("n/a" in a REAL)

    con = sqlite3.connect(out)
    try:
        tables = databases.user_tables(con)
        assert sorted(tables) == sorted(renaming.tables.values())
        assert len({t.lower() for t in tables}) == len(tables)
        for table in tables:
            cols = [c.name for c in databases.table_columns(con, table)]
            assert len({c.lower() for c in cols}) == len(cols), (table, cols)  # unique without case
        # the composite FK is still one declaration of two columns
        composite = con.execute(f"PRAGMA foreign_key_list({databases.quote_sqlite(renaming.tables['shipments'])})").fetchall()
        assert sorted(r[1] for r in composite) == [0, 1] and len({r[0] for r in composite}) == 1
    finally:
        con.close()
    back = original_names(schema, renaming)
    assert sorted(back.values()) == sorted(renaming.columns)  # one-to-one, so misses map back


@pytest.mark.parametrize("convention", [c for c in Convention if c is not Convention.ORIGINAL])
def test_every_convention_changes_the_key_names(shop: Path, convention: Convention) -> None:
    schema = read_schema(shop, "shop")
    renaming = rename(schema, convention)
    changed = [key for key, new in renaming.columns.items() if new != key[1]]  # UPPER_SNAKE: case only
    fk_children = schema.fk_children()
    id_keys = {k for k in fk_children if words(k[1])[-1] == "id"}  # customer_id, billing_customer_id, order_id
    assert len(id_keys) == 4 and id_keys <= set(changed), sorted(id_keys - set(changed))
    if convention is Convention.KIMBALL:  # keys only, but every relation is a dim_ or a fact_
        assert all(new != old for old, new in renaming.tables.items())
    elif convention is Convention.ROLES:  # foreign keys only, each named for a role
        assert set(changed) == fk_children
        assert all(renaming.columns[k].removesuffix("_id") in naming.ROLE_NAMES for k in fk_children)
    else:
        assert len(changed) >= len(renaming.columns) // 2, changed
    if convention in (Convention.TABLE_PREFIXED, Convention.OPAQUE, Convention.HUNGARIAN, Convention.TPCH):
        assert len(changed) == len(renaming.columns)


def test_original_changes_nothing(shop: Path) -> None:
    renaming = rename(read_schema(shop, "shop"), Convention.ORIGINAL)
    assert all(k == v for k, v in renaming.tables.items())
    assert all(k[1] == v for k, v in renaming.columns.items())


def test_renaming_is_deterministic_and_seeded(tmp_path: Path, shop: Path) -> None:
    schema = read_schema(shop, "shop")
    for convention in Convention:
        assert rename(schema, convention, seed=13) == rename(schema, convention, seed=13)
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    generate(shop, "shop", Convention.OPAQUE, a, seed=13)
    generate(shop, "shop", Convention.OPAQUE, b, seed=13)
    assert a.read_bytes() == b.read_bytes()
    numbers = [rename(schema, Convention.OPAQUE, seed=s).columns for s in range(5)]
    assert len({tuple(sorted(n.items())) for n in numbers}) > 1  # the seed moves the opaque numbering


def test_examples_of_each_convention(shop: Path) -> None:
    schema = read_schema(shop, "shop")
    col = lambda conv, t, c: rename(schema, conv).column(t, c)  # noqa: E731
    assert col(Convention.TABLE_PREFIXED, "Sales Orders", "customer_id") == ("Sales Orders", "so_customer_id")
    assert col(Convention.TABLE_PREFIXED, "customers", "id") == ("customers", "c_id")
    assert col(Convention.GLUED, "Sales Orders", "customer_id") == ("salesorders", "customerid")
    assert col(Convention.CAMEL, "Sales Orders", "customer_id") == ("SalesOrders", "CustomerID")
    assert col(Convention.UPPER_SNAKE, "OrderLines", "product_code") == ("ORDER_LINES", "PRODUCT_CODE")
    kimball = rename(schema, Convention.KIMBALL)
    suffix = kimball.notes["key_suffix"]
    assert kimball.column("customers", "id") == ("dim_customers", f"customer_{suffix}")
    assert kimball.column("Sales Orders", "customer_id") == ("fact_sales_orders", f"customer_{suffix}")
    assert col(Convention.HUNGARIAN, "Sales Orders", "customer_id") == ("tbl_sales_orders", "fk_customer_id")
    assert col(Convention.HUNGARIAN, "customers", "id") == ("tbl_customers", "pk_id")
    assert col(Convention.HUNGARIAN, "Sales Orders", "total_amount")[1] == "dbl_total_amount"
    assert col(Convention.HUNGARIAN, "customers", "city")[1] == "str_city"
    assert col(Convention.ABBREVIATED, "customers", "email_address")[0] == "customers"  # tables kept
    assert col(Convention.ABBREVIATED, "customers", "customer_name")[1] == naming.abbreviate("customer") + "_name"
    opaque = rename(schema, Convention.OPAQUE)
    assert all(v.startswith("col_") for v in opaque.columns.values())
    assert all(v.startswith("t_") for v in opaque.tables.values())
    assert len(set(opaque.columns.values())) == len(opaque.columns)  # no two columns share a name
    # the same word is shortened alike everywhere, by a general rule
    for word in ("customer", "address", "quantity", "department"):
        short = naming.abbreviate(word)
        assert 3 <= len(short) <= 4 and short[0] == word[0] and short != word
    assert naming.abbreviate("name") == "name" and naming.abbreviate("id") == "id"


def test_roles_name_foreign_keys_for_a_role_and_keep_the_rest(shop: Path) -> None:
    schema = read_schema(shop, "shop")
    roles = rename(schema, Convention.ROLES)
    assert roles.tables == {t.name: t.name for t in schema.tables}
    assert roles.column("customers", "id") == ("customers", "id")  # keys keep their names
    new = roles.column("Sales Orders", "customer_id")[1]
    assert new == naming.role_name("shop", "Sales Orders", "customer_id", "customers") and "customer" not in new
    assert new.removesuffix("_id") in naming.PERSON_ROLE_NAMES  # customers are people


def test_non_english_translates_common_words() -> None:
    assert naming.translate("customer", "de") == "kunde" and naming.translate("id", "de") == "nr"
    assert naming.translate("customers", "es") == "clientes"
    assert naming.translate("zzz", "es") == "zzz"
    assert {naming.language_of(n) for n in split.TUNING + split.HELD_BACK} == {"de", "es"}


def test_glued_collisions_are_made_unique(shop: Path) -> None:
    renaming = rename(read_schema(shop, "shop"), Convention.GLUED)
    assert renaming.columns[("OrderLines", "line_no")] == "lineno"
    assert renaming.columns[("OrderLines", "LineNo")] == "lineno2"


def test_split_is_fixed_disjoint_and_balanced() -> None:
    tuning, held = set(split.TUNING), set(split.HELD_BACK)
    assert not tuning & held and len(tuning) == len(held) == 11
    assert split.half_of("Chinook") is split.Half.TUNING and split.half_of("northwind") is split.Half.HELD_BACK
    assert split.half_of("not_a_dev_db") is None


def test_reliability_bins_and_candidate_rows(tmp_path: Path, shop: Path) -> None:
    out = tmp_path / "renamed.sqlite"
    schema, renaming = generate(shop, "shop", Convention.CAMEL, out, seed=13)
    truth = check_truth(shop, out, schema, renaming)

    def ref(table: str, column: str) -> dict:
        return {"relation": f"source.bench_shop.shop.{renaming.tables[table]}",
                "column": renaming.columns[(table, column)]}

    def link(child, parent, confidence, kind="inferred"):
        return {"child": ref(*child), "parent": ref(*parent), "kind": kind, "confidence": confidence,
                "evidence": [{"signal": "name_pattern", "strength": 0.8, "contribution": 2.1}]}

    doc = {"links": [
        link(("Sales Orders", "customer_id"), ("customers", "id"), 0.97),  # declared
        link(("customers", "id"), ("Sales Orders", "customer_id"), 0.5),  # same pair again: counts once
        link(("Sales Orders", "customer_id"), ("Sales Orders", "billing_customer_id"), 0.8),  # lenient only
        link(("OrderLines", "quantity"), ("customers", "id"), 0.6),  # wrong
        link(("OrderLines", "order_id"), ("Sales Orders", "order_id"), 1.0, kind="lineage"),  # not a join
    ], "rejected": [{"child": ref("shipments", "order_id"), "parent": ref("OrderLines", "order_id"),
                     "trap": "small_subset", "would_be_confidence": 0.7}]}
    links_path = tmp_path / "links.json"
    links_path.write_text(json.dumps(doc), encoding="utf-8")
    run = product.ProductRun(links_path=str(links_path), pairs=product.found_pairs(doc))
    r = TaskResult("pets_1", "spider_dev", Convention.CAMEL, split.Half.TUNING, schema, renaming, truth, run,
                   links_json=links_path)
    table = report.reliability(report.labelled_links([r]))
    bins = {b["bin"]: (b["links"], b["declared"], b["lenient"]) for b in table["tuning"]}
    assert bins == {">=0.9": (1, 1, 1), "0.7-0.9": (1, 0, 1), "0.5-0.7": (1, 0, 0), "<0.5": (0, 0, 0)}
    assert all(b["links"] == 0 for b in table["held_back"])
    s = report.task_score(r)
    assert (s.found, s.tp, s.lenient_tp, s.gold) == (3, 1, 2, 5)

    rows = report.candidate_rows([r])
    assert [x["source"] for x in rows] == ["link"] * 3 + ["rejected"]
    first = next(x for x in rows if x["confidence"] == 0.97)
    assert first["evidence"] == {"name_pattern": {"strength": 0.8, "contribution": 2.1}}
    assert first["declared_fk"] and sorted([first["child_original"], first["parent_original"]]) == \
        [["Sales Orders", "customer_id"], ["customers", "id"]]
    assert rows[-1]["declared_fk"] is True and rows[-1]["trap"] == "small_subset"
    missed = report.task_dict(r)["missed"]
    assert ["OrderLines.order_id", "Sales Orders.order_id"] in [m["original"] for m in missed]
