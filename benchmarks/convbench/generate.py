"""Write a renamed copy of a SQLite database: same rows and values, new names, FKs renamed.

Each table is recreated with its declared column types, NOT NULL, its primary key and every
declared FK (composite ones as one clause, the parent column always named), all under the new
names, and the rows are copied value for value. The renamed file's `PRAGMA foreign_key_list` is
then the truth for the renamed database, read by fkbench's `ground_truth` like any other.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from fkbench.databases import GroundTruth, Pair, connect_readonly, ground_truth, pair, quote_sqlite

from .naming import Convention, Renaming, rename
from .schema import Schema, read_schema


def create_statement(schema: Schema, renaming: Renaming, table_name: str) -> str:
    table = schema.table(table_name)
    q = quote_sqlite
    parts = [f"{q(renaming.columns[(table.name, c.name)])} {c.declared_type}".rstrip()
             + (" NOT NULL" if c.not_null else "") for c in table.columns]
    if table.primary_key:
        parts.append("PRIMARY KEY (" + ", ".join(q(renaming.columns[(table.name, c)]) for c in table.primary_key) + ")")
    for fk in schema.foreign_keys:
        if fk.child_table != table.name:
            continue
        child = ", ".join(q(renaming.columns[(fk.child_table, c)]) for c in fk.child_columns)
        parent = ", ".join(q(renaming.columns[(fk.parent_table, c)]) for c in fk.parent_columns)
        parts.append(f"FOREIGN KEY ({child}) REFERENCES {q(renaming.tables[fk.parent_table])} ({parent})")
    return f"CREATE TABLE {q(renaming.tables[table.name])} (\n  " + ",\n  ".join(parts) + "\n)"


def write_renamed(source: Path, schema: Schema, renaming: Renaming, out: Path) -> None:
    """A fresh SQLite file at `out`: every table of `source` under its new names."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    src = connect_readonly(source)
    dst = sqlite3.connect(tmp)
    try:
        for table in schema.tables:
            dst.execute(create_statement(schema, renaming, table.name))
            names = ", ".join(quote_sqlite(c.name) for c in table.columns)
            rows = src.execute(f"SELECT {names} FROM {quote_sqlite(table.name)}")
            marks = ", ".join("?" * len(table.columns))
            dst.executemany(f"INSERT INTO {quote_sqlite(renaming.tables[table.name])} VALUES ({marks})", rows)
        dst.commit()
    finally:
        dst.close()
        src.close()
    tmp.replace(out)


def renamed_pair(p: Pair, schema: Schema, renaming: Renaming) -> Pair:
    """An original truth pair (lower-cased names) under the new names."""
    tables = {t.name.lower(): t for t in schema.tables}
    ends = []
    for table_l, column_l in p:
        table = tables[table_l]
        column = next(c.name for c in table.columns if c.name.lower() == column_l)
        ends.append(renaming.column(table.name, column))
    return pair(*ends)


def original_names(schema: Schema, renaming: Renaming) -> dict[tuple[str, str], tuple[str, str]]:
    """(new table, new column) lower-cased → (original table, original column)."""
    return {(renaming.tables[t].lower(), new.lower()): (t, c) for (t, c), new in renaming.columns.items()}


def check_truth(source: Path, renamed: Path, schema: Schema, renaming: Renaming) -> GroundTruth:
    """The renamed database's truth; raises if it is not the original truth renamed."""
    truth = ground_truth(renamed)
    expected = {renamed_pair(p, schema, renaming) for p in ground_truth(source).pairs}
    if truth.pairs != expected:
        raise AssertionError(f"renamed FKs differ from the original ones: missing {expected - truth.pairs}, "
                             f"extra {truth.pairs - expected}")
    return truth


def generate(source: Path, db_name: str, convention: Convention, out: Path, seed: int) -> tuple[Schema, Renaming]:
    schema = read_schema(source, db_name)
    renaming = rename(schema, convention, seed)
    write_renamed(source, schema, renaming, out)
    return schema, renaming
