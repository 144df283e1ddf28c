"""Copy a SQLite database into a DuckDB file, one schema, no key constraints.

SQLite is loosely typed, so every value travels as text into a VARCHAR staging table and is
then cast with TRY_CAST to the type its declared SQLite type suggests; a column with any value
that does not convert losslessly stays VARCHAR. Table and column names are kept exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from .databases import connect_readonly, quote_sqlite, table_columns, user_tables

BATCH_ROWS = 500
STAGE = "main.__fkbench_stage"


@dataclass
class LoadReport:
    tables: int = 0
    rows: int = 0
    kept_varchar: list[str] = field(default_factory=list)  # "table.column (declared TYPE)"


def sqlite_affinity(declared: str) -> str:
    """``integer``, ``real`` or ``text``: SQLite's own affinity rules for a declared type, simplified."""
    t = declared.upper()
    if "INT" in t:
        return "integer"
    if any(k in t for k in ("REAL", "FLOA", "DOUB", "NUMERIC", "DEC")):
        return "real"
    return "text"


def duckdb_type(declared: str) -> str:
    """SQLite declared type → DuckDB type (text, blobs, booleans, dates and times, no type at
    all: VARCHAR)."""
    return {"integer": "BIGINT", "real": "DOUBLE"}.get(sqlite_affinity(declared), "VARCHAR")


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def as_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.hex()
    return str(value)


def _lossless(col: str, target: str) -> str:
    """SQL condition: the VARCHAR `col` converts to `target` without losing anything."""
    if target == "BIGINT":  # TRY_CAST('1.5' AS BIGINT) rounds to 2: compare with the double
        return f"TRY_CAST({col} AS BIGINT) IS NOT NULL AND TRY_CAST({col} AS DOUBLE) = TRY_CAST({col} AS BIGINT)"
    return f"TRY_CAST({col} AS {target}) IS NOT NULL"


def _insert_rows(con: duckdb.DuckDBPyConnection, rows: list[tuple], width: int) -> None:
    row_sql = "(" + ", ".join("?" * width) + ")"
    for start in range(0, len(rows), BATCH_ROWS):
        chunk = rows[start:start + BATCH_ROWS]
        con.execute(f"INSERT INTO {STAGE} VALUES " + ", ".join([row_sql] * len(chunk)),
                    [v for row in chunk for v in row])


def copy_table(src, con: duckdb.DuckDBPyConnection, schema: str, table: str, report: LoadReport) -> None:
    columns = table_columns(src, table)
    names = [quote(c.name) for c in columns]
    rows = [tuple(as_text(v) for v in row) for row in src.execute(f"SELECT * FROM {quote_sqlite(table)}")]
    con.execute(f"CREATE OR REPLACE TABLE {STAGE} (" + ", ".join(f"{n} VARCHAR" for n in names) + ")")
    _insert_rows(con, rows, len(columns))
    selects = []
    for col, name in zip(columns, names):
        target = duckdb_type(col.declared_type)
        if target != "VARCHAR":
            bad = con.execute(
                f"SELECT count(*) FROM {STAGE} WHERE {name} IS NOT NULL AND NOT ({_lossless(name, target)})"
            ).fetchone()[0]
            if bad:
                report.kept_varchar.append(f"{table}.{col.name} ({col.declared_type})")
                target = "VARCHAR"
        selects.append(name if target == "VARCHAR" else f"TRY_CAST({name} AS {target}) AS {name}")
    con.execute(f"CREATE TABLE {quote(schema)}.{quote(table)} AS SELECT {', '.join(selects)} FROM {STAGE}")
    con.execute(f"DROP TABLE {STAGE}")
    report.tables += 1
    report.rows += len(rows)


def copy_sqlite_to_duckdb(sqlite_path: Path, duckdb_path: Path, schema: str) -> LoadReport:
    """Write a fresh `duckdb_path` holding every user table of `sqlite_path` in `schema`."""
    for stale in (duckdb_path, duckdb_path.with_name(duckdb_path.name + ".wal")):
        stale.unlink(missing_ok=True)
    duckdb_path.parent.mkdir(parents=True, exist_ok=True)
    report = LoadReport()
    src = connect_readonly(sqlite_path)
    con = duckdb.connect(str(duckdb_path))
    try:
        con.execute(f"CREATE SCHEMA {quote(schema)}")
        for table in user_tables(src):
            copy_table(src, con, schema, table, report)
        con.execute("CHECKPOINT")
    finally:
        con.close()
        src.close()
    return report


_PLAIN = re.compile(r"[a-z_][a-z0-9_]*")


def reserved_words() -> set[str]:
    con = duckdb.connect()
    try:
        rows = con.execute("SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category <> 'unreserved'")
        return {r[0].lower() for r in rows.fetchall()}
    finally:
        con.close()


def needs_quoting(name: str, reserved: set[str]) -> bool:
    """Anything but a plain lower-case identifier is quoted, so the exact name is kept."""
    return not _PLAIN.fullmatch(name) or name in reserved
