"""Checks of the benchmark harness itself on small made-up databases (no benchmark data needed).

Run: python -m pytest benchmarks/tests
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
import sys
from pathlib import Path

import duckdb
import pytest

from fkbench import databases, peer, product, scoring
from fkbench.databases import GroundTruth, ForeignKey, pair

SCHEMA = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT UNIQUE);
CREATE TABLE "Order Lines" (order_id INT, line INT, "Unit Price" REAL, qty INT,
    PRIMARY KEY (order_id, line), FOREIGN KEY (order_id) REFERENCES orders);
CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT REFERENCES customers(id),
    billed_to INT REFERENCES Customers(ID), code VARCHAR(5), placed DATE);
CREATE TABLE ghosts (id INT, x INT REFERENCES nowhere(id));
"""


@pytest.fixture()
def shop(tmp_path: Path) -> Path:
    path = tmp_path / "shop" / "shop.sqlite"
    path.parent.mkdir()
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO customers VALUES (?, ?, ?)", [(1, "a", "a@x"), (2, "b", "b@x")])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
                    [(10, 1, 1, "A1", "2024-01-01"), (11, 2, 1, 7, "2024-01-02"), (12, 2, 2, None, None)])
    # SQLite is loosely typed: a real in an INT column, a text in an INT column
    con.executemany('INSERT INTO "Order Lines" VALUES (?, ?, ?, ?)',
                    [(10, 1, 2.5, 1.0), (10, 2, 3, 2), (11, 1, 1.25, "two")])
    con.commit()
    con.close()
    return path


def test_ground_truth_resolves_implicit_parents_and_drops_dangling(shop: Path) -> None:
    truth = databases.ground_truth(shop)
    assert truth.pairs == {
        pair(("order lines", "order_id"), ("orders", "order_id")),  # implicit parent column
        pair(("orders", "customer_id"), ("customers", "id")),
        pair(("orders", "billed_to"), ("customers", "id")),  # case-insensitive names
    }
    assert len(truth.unresolved) == 1 and "nowhere" in truth.unresolved[0]


def test_discover_names_databases_after_their_folder(tmp_path: Path, shop: Path) -> None:
    for rel in ("spider_dev/database/pets/pets.sqlite", "classic/chin/Chin.sqlite", "bird_superhero/hero/hero.sqlite"):
        (tmp_path / rel).parent.mkdir(parents=True)
        shutil.copy(shop, tmp_path / rel)
    assert [(d.name, d.collection) for d in databases.discover(tmp_path)] == [
        ("pets", "spider_dev"), ("chin", "classic"), ("hero", "bird_superhero")]


def test_scoring_strict_lenient_and_micro_totals() -> None:
    truth = GroundTruth([ForeignKey(("o", "cust"), ("c", "id")), ForeignKey(("i", "cust"), ("c", "id")),
                         ForeignKey(("o", "emp"), ("e", "id"))])
    found = {pair(("o", "cust"), ("c", "id")),  # TP
             pair(("O", "CUST"), ("I", "Cust")),  # two FKs of one parent: lenient
             pair(("o", "emp"), ("c", "id"))}  # wrong
    s = scoring.score(found, truth)
    assert (s.gold, s.found, s.tp, s.lenient_tp, s.fp, s.fn) == (3, 3, 1, 2, 2, 2)
    assert s.precision == pytest.approx(1 / 3) and s.lenient_precision == pytest.approx(2 / 3)
    assert s.recall == pytest.approx(1 / 3) and s.f1 == pytest.approx(1 / 3)
    t = scoring.total([s, scoring.score(set(), truth)])
    assert (t.gold, t.found, t.tp, t.lenient_tp) == (6, 3, 1, 2)
    assert scoring.score(set(), truth).precision is None


def test_duckdb_copy_keeps_names_and_types_without_keys(tmp_path: Path, shop: Path) -> None:
    from fkbench.duckdb_load import copy_sqlite_to_duckdb, duckdb_type

    assert [duckdb_type(t) for t in ("INTEGER", "int", "REAL", "FLOAT(4,1)", "DECIMAL(19,4)", "NUMERIC",
                                     "DATETIME", "NVARCHAR(20)", "BOOL", "")] == \
        ["BIGINT", "BIGINT", "DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR"]
    report = copy_sqlite_to_duckdb(shop, tmp_path / "w.duckdb", "Shop")
    assert report.tables == 4 and report.rows == 8
    assert report.kept_varchar == ["Order Lines.qty (INT)"]  # "two" is not an integer
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    types = dict(con.execute("SELECT column_name, data_type FROM information_schema.columns "
                             "WHERE table_schema = 'Shop' AND table_name = 'Order Lines'").fetchall())
    assert types == {"order_id": "BIGINT", "line": "BIGINT", "Unit Price": "DOUBLE", "qty": "VARCHAR"}
    assert con.execute('SELECT sum("Unit Price") FROM "Shop"."Order Lines"').fetchone()[0] == 6.75
    assert con.execute("SELECT count(*) FROM duckdb_constraints() WHERE schema_name = 'Shop'").fetchone()[0] == 0
    assert con.execute("SELECT customer_id FROM Shop.orders ORDER BY order_id").fetchall() == [(1,), (2,), (2,)]


def test_strip_foreign_keys_keeps_rows_and_keys(tmp_path: Path, shop: Path) -> None:
    copy = tmp_path / "stripped.sqlite"
    peer.strip_foreign_keys(shop, copy)
    con = sqlite3.connect(copy)
    for table in databases.user_tables(con):
        assert con.execute(f"PRAGMA foreign_key_list({databases.quote_sqlite(table)})").fetchall() == []
    assert databases.primary_key(databases.table_columns(con, "Order Lines")) == ["order_id", "line"]
    assert con.execute('SELECT count(*) FROM "Order Lines"').fetchone()[0] == 3
    assert any(idx[2] for idx in con.execute("PRAGMA index_list(customers)"))  # UNIQUE(email) kept


def test_peer_report_pairs_from_markdown_groups() -> None:
    markdown = """# Schema Links

## Inferred Links

### customerid
- inferred: Customers.CustomerID, Orders.CustomerID, "Order Details"."Customer ID"

### shared values
- inferred:
  - a.x: name match, type match
  - b.x: name match
"""
    assert peer.report_pairs(markdown) == {
        pair(("Customers", "CustomerID"), ("Orders", "CustomerID")),
        pair(("Customers", "CustomerID"), ("Order Details", "Customer ID")),
        pair(("Orders", "CustomerID"), ("Order Details", "Customer ID")),
        pair(("a", "x"), ("b", "x")),
    }


def test_found_pairs_reads_sources_and_skips_lineage() -> None:
    def link(child, parent, kind):
        return {"child": {"relation": child[0], "column": child[1]},
                "parent": {"relation": parent[0], "column": parent[1]}, "kind": kind, "confidence": 0.9}

    doc = {"links": [
        link(("source.bench_nw.nw.Order Details", "OrderID"), ("source.bench_nw.nw.Orders", "OrderID"), "inferred"),
        link(("source.bench_nw.nw.orders", "orderid"), ("source.bench_nw.nw.Order Details", "orderid"), "declared"),
        link(("model.bench_nw.stg_orders", "id"), ("source.bench_nw.nw.Orders", "OrderID"), "lineage"),
    ]}
    assert product.found_pairs(doc) == {pair(("order details", "orderid"), ("orders", "orderid"))}


FAKE_LINK = r'''#!{python}
"""Stands in for `dbt-schema-link link`: links every orders.* column named like a customers key."""
import json, sys, pathlib
project = pathlib.Path(sys.argv[sys.argv.index("--project-dir") + 1])
manifest = json.loads((project / "target" / "manifest.json").read_text())
uids = {{s["name"]: uid for uid, s in manifest["sources"].items()}}
out = project / "target" / "schema_link"
out.mkdir(parents=True, exist_ok=True)
links = [{{"child": {{"relation": uids["orders"], "column": "customer_id"}},
          "parent": {{"relation": uids["customers"], "column": "id"}}, "kind": "inferred", "confidence": 0.9}},
         {{"child": {{"relation": uids["Order Lines"], "column": "order_id"}},
          "parent": {{"relation": uids["orders"], "column": "order_id"}}, "kind": "inferred", "confidence": 0.8}}]
(out / "links.json").write_text(json.dumps({{"links": links}}))
'''


@pytest.mark.skipif(shutil.which("dbt") is None and not Path(sys.executable).with_name("dbt").exists(),
                    reason="dbt is not installed")
def test_product_pipeline_with_real_dbt_and_a_stand_in_link_command(tmp_path: Path, shop: Path, monkeypatch) -> None:
    fake = tmp_path / "fake-dbt-schema-link"
    fake.write_text(FAKE_LINK.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    real_tool = product.tool
    monkeypatch.setattr(product, "tool", lambda name: str(fake) if name == "dbt-schema-link" else real_tool(name))
    db = databases.BenchDatabase("shop", shop, "classic")
    run = product.run_product(db, tmp_path / "work", Path(__file__).resolve().parents[2])
    assert run.error is None, run.error
    assert set(run.phases) == {"load", "project", "deps", "docs", "link"}
    s = scoring.score(run.pairs, databases.ground_truth(shop))
    assert (s.gold, s.found, s.tp) == (3, 2, 2)
    catalog = json.loads((tmp_path / "work" / "project" / "target" / "catalog.json").read_text())
    assert any(uid.endswith(".Order Lines") for uid in catalog["sources"])


@pytest.mark.skipif(shutil.which("dbt") is None and not Path(sys.executable).with_name("dbt").exists(),
                    reason="dbt is not installed")
def test_product_failure_is_reported_with_its_phase_and_log(tmp_path: Path, shop: Path, monkeypatch) -> None:
    fake = tmp_path / "failing-dbt-schema-link"
    fake.write_text(f"#!{sys.executable}\nimport sys\nprint('error: something broke', file=sys.stderr)\nsys.exit(3)\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    real_tool = product.tool
    monkeypatch.setattr(product, "tool", lambda name: str(fake) if name == "dbt-schema-link" else real_tool(name))
    run = product.run_product(databases.BenchDatabase("shop", shop, "classic"), tmp_path / "work",
                              Path(__file__).resolve().parents[2])
    assert run.failed_phase == "link" and "exit 3" in run.error and "something broke" in run.error
    assert (tmp_path / "work" / "logs" / "link.log").exists() and not run.pairs
