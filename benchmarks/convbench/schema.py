"""A SQLite database's schema as the renaming needs it: tables, columns, keys, FK groups.

Foreign keys are kept as declared groups (a composite FK stays one group of column tuples), with
an implicit parent column (`REFERENCES parent`) resolved to the parent's primary key and every
name spelled as its table spells it. FKs that point nowhere are left out, as in fkbench.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fkbench.databases import connect_readonly, primary_key, quote_sqlite, table_columns, user_tables


@dataclass(frozen=True)
class Column:
    name: str
    declared_type: str
    pk_position: int  # 0: not in the primary key, else 1-based
    not_null: bool


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]

    @property
    def primary_key(self) -> tuple[str, ...]:
        return tuple(c.name for c in sorted(self.columns, key=lambda c: c.pk_position) if c.pk_position)


@dataclass(frozen=True)
class ForeignKeyGroup:
    """One declared FK: child columns → parent columns, position by position."""

    child_table: str
    child_columns: tuple[str, ...]
    parent_table: str
    parent_columns: tuple[str, ...]


@dataclass(frozen=True)
class Schema:
    name: str  # the database (its folder name)
    tables: tuple[Table, ...]
    foreign_keys: tuple[ForeignKeyGroup, ...]

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def fk_children(self) -> set[tuple[str, str]]:
        """(table, column) of every column that is part of a declared FK's child side."""
        return {(fk.child_table, c) for fk in self.foreign_keys for c in fk.child_columns}

    def tables_with_fks(self) -> set[str]:
        return {fk.child_table for fk in self.foreign_keys}


def read_schema(path: Path, name: str) -> Schema:
    conn = connect_readonly(path)
    try:
        tables = tuple(Table(t, tuple(Column(c.name, c.declared_type, c.pk_position, c.not_null)
                                      for c in table_columns(conn, t))) for t in user_tables(conn))
        by_lower = {t.name.lower(): t for t in tables}
        fks: list[ForeignKeyGroup] = []
        for table in tables:
            spelled = {c.name.lower(): c.name for c in table.columns}
            groups: dict[int, list[tuple]] = {}
            for row in conn.execute(f"PRAGMA foreign_key_list({quote_sqlite(table.name)})"):
                groups.setdefault(row[0], []).append(row)  # id, seq, table, from, to, ...
            for rows in groups.values():
                rows.sort(key=lambda r: r[1])
                parent = by_lower.get(rows[0][2].lower())
                if parent is None:
                    continue
                parent_spelled = {c.name.lower(): c.name for c in parent.columns}
                pk = primary_key(list(parent.columns))
                child_cols, parent_cols = [], []
                for _, seq, _, child_col, parent_col in (r[:5] for r in rows):
                    if parent_col is None:
                        parent_col = pk[seq] if seq < len(pk) else None
                    if parent_col is None or parent_col.lower() not in parent_spelled \
                            or child_col.lower() not in spelled:
                        break
                    child_cols.append(spelled[child_col.lower()])
                    parent_cols.append(parent_spelled[parent_col.lower()])
                else:
                    fks.append(ForeignKeyGroup(table.name, tuple(child_cols), parent.name, tuple(parent_cols)))
        return Schema(name, tables, tuple(fks))
    finally:
        conn.close()
