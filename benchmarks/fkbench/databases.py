"""The benchmark databases and their declared foreign keys (the ground truth).

A column is `(table, column)` lower-cased; a link is the unordered pair of two columns
(`frozenset`), so direction and case never matter when scoring.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

Column = tuple[str, str]
Pair = frozenset  # frozenset[Column] of size 2

# Where the SQLite files live under the data folder; the database is named after its folder.
SQLITE_GLOBS = (
    "spider_dev/database/*/*.sqlite",
    "classic/*/*.sqlite",
    "bird_superhero/*/*.sqlite",
    "tpc/*/*.sqlite",  # written by tpc_data.py (not in the shared data)
)


@dataclass(frozen=True)
class BenchDatabase:
    name: str
    path: Path
    collection: str  # first folder under the data dir: spider_dev, classic, bird_superhero, tpc


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    declared_type: str
    pk_position: int  # 0 = not part of the primary key, else 1-based position
    not_null: bool


@dataclass(frozen=True)
class ForeignKey:
    child: Column
    parent: Column

    @property
    def pair(self) -> Pair:
        return pair(self.child, self.parent)


@dataclass
class GroundTruth:
    foreign_keys: list[ForeignKey]
    unresolved: list[str] = field(default_factory=list)  # declared FKs that point nowhere

    @property
    def pairs(self) -> set[Pair]:
        return {fk.pair for fk in self.foreign_keys if len(fk.pair) == 2}

    def parents_of(self) -> dict[Column, set[Column]]:
        """FK child column → the parent columns it references."""
        out: dict[Column, set[Column]] = {}
        for fk in self.foreign_keys:
            out.setdefault(fk.child, set()).add(fk.parent)
        return out


def pair(a: Column, b: Column) -> Pair:
    return frozenset({(a[0].lower(), a[1].lower()), (b[0].lower(), b[1].lower())})


def discover(data_dir: Path) -> list[BenchDatabase]:
    found = []
    for pattern in SQLITE_GLOBS:
        for path in sorted(data_dir.glob(pattern)):
            collection = path.relative_to(data_dir).parts[0]
            found.append(BenchDatabase(name=path.parent.name, path=path, collection=collection))
    return found


def missing_data(data_dir: Path) -> str | None:
    """Why the benchmark data cannot be used (one line), or ``None`` when it is there."""
    if data_dir.is_dir() and discover(data_dir):
        return None
    return (f"benchmark data is not available: no SQLite databases under {data_dir} "
            "(it lives in ../shared/data beside the repository; pass --data DIR)")


def connect_readonly(path: Path) -> sqlite3.Connection:
    # immutable=1: the data folder may have no write bits, and nothing may be written beside it.
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)


def quote_sqlite(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def user_tables(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
        "ORDER BY name"
    )
    return [r[0] for r in rows]


def table_columns(conn: sqlite3.Connection, table: str) -> list[ColumnInfo]:
    rows = conn.execute(f"PRAGMA table_info({quote_sqlite(table)})").fetchall()
    # table_info: cid, name, type, notnull, dflt_value, pk
    return [ColumnInfo(name=r[1], declared_type=r[2] or "", pk_position=r[5], not_null=bool(r[3])) for r in rows]


def primary_key(columns: list[ColumnInfo]) -> list[str]:
    return [c.name for c in sorted(columns, key=lambda c: c.pk_position) if c.pk_position > 0]


def ground_truth(path: Path) -> GroundTruth:
    """Declared FKs from `PRAGMA foreign_key_list`, one ForeignKey per column pair.

    A parent column left implicit (`to` is NULL) is the parent's primary key column at the
    same position. FKs whose parent table or column does not exist are kept out and listed
    in `unresolved` (they are not joins anyone could find).
    """
    conn = connect_readonly(path)
    try:
        tables = {t.lower(): t for t in user_tables(conn)}
        columns = {t: table_columns(conn, real) for t, real in tables.items()}
        fks: list[ForeignKey] = []
        unresolved: list[str] = []
        for table_l, table in tables.items():
            for row in conn.execute(f"PRAGMA foreign_key_list({quote_sqlite(table)})"):
                # id, seq, table, from, to, on_update, on_delete, match
                _, seq, parent_table, child_col, parent_col = row[:5]
                parent_l = parent_table.lower()
                label = f"{table}.{child_col} -> {parent_table}.{parent_col}"
                if parent_l not in columns:
                    unresolved.append(label + " (no such table)")
                    continue
                parent_cols = {c.name.lower() for c in columns[parent_l]}
                if parent_col is None:
                    pk = primary_key(columns[parent_l])
                    if seq >= len(pk):
                        unresolved.append(label + " (implicit, parent has no matching primary key)")
                        continue
                    parent_col = pk[seq]
                if parent_col.lower() not in parent_cols:
                    unresolved.append(label + " (no such parent column)")
                    continue
                fks.append(ForeignKey(child=(table_l, child_col.lower()), parent=(parent_l, parent_col.lower())))
        return GroundTruth(foreign_keys=fks, unresolved=unresolved)
    finally:
        conn.close()


def select_named(found: list, only: list[str] | None, what: str) -> list:
    """The items of ``found`` (each with a ``name``) that ``only`` names, case-insensitively, in
    ``only``'s order; all of them without ``only``. An unknown name exits with the ones there are."""
    if not only:
        return found
    by_name = {item.name.lower(): item for item in found}
    unknown = [n for n in only if n.lower() not in by_name]
    if unknown:
        raise SystemExit(f"error: unknown {what}(s) {unknown}; available: {sorted(item.name for item in found)}")
    return [by_name[n.lower()] for n in dict.fromkeys(only)]
