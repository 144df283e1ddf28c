#!/usr/bin/env python
"""TPC-H and TPC-DS at scale factor 0.1 as SQLite files with the specifications' foreign keys
declared, for fk_recovery.py (`--data OUT`): the TPC-style held-out set, built here.

What it writes
    <out>/tpc/tpch/tpch.sqlite and <out>/tpc/tpcds/tpcds.sqlite: every table the generators make,
    its primary key and its foreign keys as the TPC-H (2.18, clause 1.4.2) and TPC-DS (3.2,
    clause 2.2-2.4) specifications declare them, composite keys included (lineitem -> partsupp,
    each returns table -> its sales table). The generators are DuckDB's `dbgen`/`dsdgen`; nothing
    of the data is edited.

How to run it (the generators are DuckDB extensions, which DuckDB downloads unless they come
from the package registry; they are built for one DuckDB release, not the project's, so they get
their own environment, used only here):
    python -m venv /tmp/tpcgen
    /tmp/tpcgen/bin/pip install duckdb==1.5.5 duckdb-extension-tpch==1.5.5 duckdb-extension-tpcds==1.5.5
    /tmp/tpcgen/bin/python benchmarks/tpc_data.py --out /tmp/tpcdata
    python benchmarks/fk_recovery.py --data /tmp/tpcdata --no-peer --workdir /tmp/tpcrun

Exit status: 0 written, 2 the generators are not installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import sqlite3
import sys
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

SCALE = 0.1

#: TPC-H: table -> (primary key, [(child columns, parent table, parent columns)]).
TPCH: dict[str, tuple[tuple[str, ...], list]] = {
    "region": (("r_regionkey",), []),
    "nation": (("n_nationkey",), [(("n_regionkey",), "region", ("r_regionkey",))]),
    "supplier": (("s_suppkey",), [(("s_nationkey",), "nation", ("n_nationkey",))]),
    "customer": (("c_custkey",), [(("c_nationkey",), "nation", ("n_nationkey",))]),
    "part": (("p_partkey",), []),
    "partsupp": (("ps_partkey", "ps_suppkey"), [(("ps_partkey",), "part", ("p_partkey",)),
                                                (("ps_suppkey",), "supplier", ("s_suppkey",))]),
    "orders": (("o_orderkey",), [(("o_custkey",), "customer", ("c_custkey",))]),
    "lineitem": (("l_orderkey", "l_linenumber"), [
        (("l_orderkey",), "orders", ("o_orderkey",)),
        (("l_partkey",), "part", ("p_partkey",)),
        (("l_suppkey",), "supplier", ("s_suppkey",)),
        (("l_partkey", "l_suppkey"), "partsupp", ("ps_partkey", "ps_suppkey")),
    ]),
}

#: TPC-DS surrogate keys: the relation each single-column key is the key of.
DS_KEYS = {
    "date_dim": "d_date_sk", "time_dim": "t_time_sk", "item": "i_item_sk", "customer": "c_customer_sk",
    "customer_demographics": "cd_demo_sk", "household_demographics": "hd_demo_sk",
    "customer_address": "ca_address_sk", "store": "s_store_sk", "promotion": "p_promo_sk",
    "reason": "r_reason_sk", "ship_mode": "sm_ship_mode_sk", "warehouse": "w_warehouse_sk",
    "web_page": "wp_web_page_sk", "web_site": "web_site_sk", "call_center": "cc_call_center_sk",
    "catalog_page": "cp_catalog_page_sk", "income_band": "ib_income_band_sk",
}
#: Fact tables' composite keys.
DS_COMPOSITE_KEYS = {
    "store_sales": ("ss_item_sk", "ss_ticket_number"), "store_returns": ("sr_item_sk", "sr_ticket_number"),
    "catalog_sales": ("cs_item_sk", "cs_order_number"), "catalog_returns": ("cr_item_sk", "cr_order_number"),
    "web_sales": ("ws_item_sk", "ws_order_number"), "web_returns": ("wr_item_sk", "wr_order_number"),
    "inventory": ("inv_date_sk", "inv_item_sk", "inv_warehouse_sk"),
}
_D, _T, _I, _C = "date_dim", "time_dim", "item", "customer"
_CD, _HD, _CA = "customer_demographics", "household_demographics", "customer_address"


def _parties(prefix: str, *roles: str) -> list[tuple[str, str]]:
    """Each role's customer, demographics, household and address keys (`cs_bill_customer_sk`, ...)."""
    return [(f"{prefix}_{role}_{what}_sk", parent) for role in roles
            for what, parent in (("customer", _C), ("cdemo", _CD), ("hdemo", _HD), ("addr", _CA))]


#: TPC-DS single-column foreign keys: table -> [(column, parent table)].
DS_FKS: dict[str, list[tuple[str, str]]] = {
    "call_center": [("cc_closed_date_sk", _D), ("cc_open_date_sk", _D)],
    "catalog_page": [("cp_start_date_sk", _D), ("cp_end_date_sk", _D)],
    "catalog_returns": [
        ("cr_returned_date_sk", _D), ("cr_returned_time_sk", _T), ("cr_item_sk", _I),
        *_parties("cr", "refunded", "returning"), ("cr_call_center_sk", "call_center"),
        ("cr_catalog_page_sk", "catalog_page"), ("cr_ship_mode_sk", "ship_mode"),
        ("cr_warehouse_sk", "warehouse"), ("cr_reason_sk", "reason")],
    "catalog_sales": [
        ("cs_sold_date_sk", _D), ("cs_sold_time_sk", _T), ("cs_ship_date_sk", _D),
        *_parties("cs", "bill", "ship"), ("cs_call_center_sk", "call_center"),
        ("cs_catalog_page_sk", "catalog_page"), ("cs_ship_mode_sk", "ship_mode"),
        ("cs_warehouse_sk", "warehouse"), ("cs_item_sk", _I), ("cs_promo_sk", "promotion")],
    "customer": [("c_current_cdemo_sk", _CD), ("c_current_hdemo_sk", _HD), ("c_current_addr_sk", _CA),
                 ("c_first_shipto_date_sk", _D), ("c_first_sales_date_sk", _D), ("c_last_review_date_sk", _D)],
    "household_demographics": [("hd_income_band_sk", "income_band")],
    "inventory": [("inv_date_sk", _D), ("inv_item_sk", _I), ("inv_warehouse_sk", "warehouse")],
    "promotion": [("p_start_date_sk", _D), ("p_end_date_sk", _D), ("p_item_sk", _I)],
    "store": [("s_closed_date_sk", _D)],
    "store_returns": [
        ("sr_returned_date_sk", _D), ("sr_return_time_sk", _T), ("sr_item_sk", _I), ("sr_customer_sk", _C),
        ("sr_cdemo_sk", _CD), ("sr_hdemo_sk", _HD), ("sr_addr_sk", _CA), ("sr_store_sk", "store"),
        ("sr_reason_sk", "reason")],
    "store_sales": [
        ("ss_sold_date_sk", _D), ("ss_sold_time_sk", _T), ("ss_item_sk", _I), ("ss_customer_sk", _C),
        ("ss_cdemo_sk", _CD), ("ss_hdemo_sk", _HD), ("ss_addr_sk", _CA), ("ss_store_sk", "store"),
        ("ss_promo_sk", "promotion")],
    "web_page": [("wp_creation_date_sk", _D), ("wp_access_date_sk", _D), ("wp_customer_sk", _C)],
    "web_returns": [
        ("wr_returned_date_sk", _D), ("wr_returned_time_sk", _T), ("wr_item_sk", _I),
        *_parties("wr", "refunded", "returning"), ("wr_web_page_sk", "web_page"), ("wr_reason_sk", "reason")],
    "web_sales": [
        ("ws_sold_date_sk", _D), ("ws_sold_time_sk", _T), ("ws_ship_date_sk", _D), ("ws_item_sk", _I),
        *_parties("ws", "bill", "ship"), ("ws_web_page_sk", "web_page"),
        ("ws_web_site_sk", "web_site"), ("ws_ship_mode_sk", "ship_mode"), ("ws_warehouse_sk", "warehouse"),
        ("ws_promo_sk", "promotion")],
    "web_site": [("web_open_date_sk", _D), ("web_close_date_sk", _D)],
}
#: A returned line is a sold line: each returns table's (item, ticket/order) -> its sales table's key.
DS_RETURNS = {"store_returns": "store_sales", "catalog_returns": "catalog_sales", "web_returns": "web_sales"}


def tpcds_schema() -> dict[str, tuple[tuple[str, ...], list]]:
    """TPC-DS in TPCH's shape: table -> (primary key, [(child columns, parent, parent columns)])."""
    out: dict[str, tuple[tuple[str, ...], list]] = {}
    for table in sorted(set(DS_KEYS) | set(DS_COMPOSITE_KEYS) | set(DS_FKS)):
        pk = DS_COMPOSITE_KEYS.get(table) or (DS_KEYS[table],)
        fks = [((col,), parent, (DS_KEYS[parent],)) for col, parent in DS_FKS.get(table, [])]
        if table in DS_RETURNS:
            fks.append((pk, DS_RETURNS[table], DS_COMPOSITE_KEYS[DS_RETURNS[table]]))
        out[table] = (pk, fks)
    return out


def _plain(value):
    """A value SQLite stores as the generators wrote it (dates as ISO text, decimals exactly)."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def write_sqlite(con, schema: str, tables: dict[str, tuple[tuple[str, ...], list]], path: Path) -> int:
    """Copy DuckDB schema ``schema`` into a new SQLite file with the keys declared; returns the FK count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    out = sqlite3.connect(tmp)
    fk_count = 0
    for table, (pk, fks) in tables.items():
        cols = con.execute("SELECT column_name, data_type FROM duckdb_columns() WHERE schema_name = ? "
                           "AND table_name = ? ORDER BY column_index", [schema, table]).fetchall()
        if not cols:
            raise SystemExit(f"error: the generator made no table {schema}.{table}")
        lines = [f"{_quote(c)} {t}" for c, t in cols]
        lines.append(f"PRIMARY KEY ({', '.join(map(_quote, pk))})")
        for child, parent, parent_cols in fks:
            lines.append(f"FOREIGN KEY ({', '.join(map(_quote, child))}) REFERENCES {_quote(parent)} "
                         f"({', '.join(map(_quote, parent_cols))})")
            fk_count += 1
        out.execute(f"CREATE TABLE {_quote(table)} (\n  " + ",\n  ".join(lines) + "\n)")
        cur = con.execute(f"SELECT * FROM {schema}.{_quote(table)}")
        marks = ", ".join("?" * len(cols))
        while rows := cur.fetchmany(50_000):
            out.executemany(f"INSERT INTO {_quote(table)} VALUES ({marks})", [tuple(map(_plain, r)) for r in rows])
    out.commit()
    out.close()
    tmp.replace(path)
    return fk_count


def _extension(name: str) -> Path:
    spec = importlib.util.find_spec(f"duckdb_extension_{name}")
    if spec is None or spec.origin is None:
        raise SystemExit(2)
    found = sorted(Path(spec.origin).parent.glob(f"extensions/*/{name}.duckdb_extension"))
    if not found:
        raise SystemExit(2)
    return found[-1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True, help="data folder to write (fk_recovery.py --data)")
    args = p.parse_args(argv)
    try:
        import duckdb
        paths = {name: _extension(name) for name in ("tpch", "tpcds")}
    except (ImportError, SystemExit):
        print("error: the TPC generators are not installed here: see this script's docstring", file=sys.stderr)
        return 2
    con = duckdb.connect()
    for name, path in paths.items():
        con.execute(f"LOAD '{path}'")
    con.execute("CREATE SCHEMA h; USE h")
    con.execute(f"CALL dbgen(sf={SCALE})")
    con.execute("CREATE SCHEMA ds; USE ds")
    con.execute(f"CALL dsdgen(sf={SCALE})")
    for name, schema, tables in (("tpch", "h", TPCH), ("tpcds", "ds", tpcds_schema())):
        target = args.out / "tpc" / name / f"{name}.sqlite"
        n = write_sqlite(con, schema, tables, target)
        print(f"{target}: {len(tables)} tables, {n} foreign keys")
    return 0


if __name__ == "__main__":
    sys.exit(main())
