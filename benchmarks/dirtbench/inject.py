"""Dirty copies of a SQLite database: the same tables, names and declared FKs, dirtier values.

Each variant injects one kind of dirt real warehouses have into every declared single-column FK it
applies to (the dev corpus declares no composite FK; `composite_keys` makes some):

- `orphans`: 5-30% of a child's non-null rows (seeded per FK) point at parents that do not exist:
  a late-arriving dimension, about as many missing keys as that share of the child's distinct
  values (integer keys past the parent's maximum, text keys with a suffix no parent has).
- `drifted_types`: per referenced integer parent column, one of three drifts: the parent stored as
  REAL (1.0, 2.0, ...), the parent stored as zero-padded text ('00017'), or the child stored as
  text ('17'); the other side stays INTEGER.
- `tiny_dimensions`: a referenced parent table cut to 5-12 rows, every child value remapped onto
  the kept keys (containment stays full).
- `dense_surrogates`: a referenced integer key renumbered into a dense 1..N range (N 2,000-12,000,
  the old keys spread across it, every child remapped), the parent padded with copies of its rows
  up to N, and two small-integer non-key columns (1..m, m <= 300) added to every child table: small
  integers any dense key range contains.
- `composite_keys`: two keys merged into one composite key: a referenced integer key renumbered
  1..k inside each of 2-4 partitions of at least two keys (a site, region, branch or zone code column added to the
  parent), so neither the partition code nor the key is unique alone; every child gets the
  partition column beside its FK column and the declared FK becomes (code, fk) -> (code, key).
  The truth is then the source's pairs plus one pair per partition column.
- `calendar_keys`: a calendar dimension added (`calendar`: one row per day, `day_date` first, then
  weekday, month, quarter and year), spanning every date-valued column that is no declared key's
  side, padded by a few weeks; each such column cut to its day (`2017-09-08 20:10:13` ->
  `2017-09-08`, declared DATE) and declared a FK to `calendar.day_date`. The truth is the
  source's pairs plus those: date keys whose names share only a date word with the calendar's.
- `sampled_rows`: sample data, as a SaaS connector's dev environment or a half-loaded source
  holds it: every table keeps its own random 30-80% of rows (at least two), so children point at
  parents the sample dropped (referentially inconsistent, from a few orphans to none found), and
  about one in six FK columns no one's key references arrives with no value at all, declared TEXT
  whatever its parent is (the loader's guess for an empty column).

Except for `composite_keys` and `calendar_keys`, the declared FKs are written unchanged (names and
pairs), so `ground_truth` of the dirty file is the truth, equal to the source's. Primary keys are
not declared in the copy (remapping may make a key column repeat); nothing downstream reads them
(the DuckDB copy has no constraints either).
Every choice comes from `random.Random` seeded by (seed, variant, database, object): the same seed
gives the same file.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from enum import Enum
from pathlib import Path

from convbench.schema import ForeignKeyGroup, Schema, read_schema
from fkbench.databases import connect_readonly, quote_sqlite


class Variant(str, Enum):
    ORPHANS = "orphans"
    DRIFTED_TYPES = "drifted_types"
    TINY_DIMENSIONS = "tiny_dimensions"
    DENSE_SURROGATES = "dense_surrogates"
    COMPOSITE_KEYS = "composite_keys"
    CALENDAR_KEYS = "calendar_keys"
    SAMPLED_ROWS = "sampled_rows"


#: Orphan share of a child's non-null rows, drawn uniformly per FK.
ORPHAN_SHARE = (0.05, 0.30)
#: Rows a tiny dimension keeps.
TINY_ROWS = (5, 12)
#: A tiny dimension is made only from a parent with more rows than this.
TINY_FROM_ROWS = 12
#: The dense key range 1..N, N drawn per parent (at least 20x its rows).
DENSE_RANGE = (2000, 12000)
#: The small integers added beside a dense key reference: 1..m, m drawn per column.
SMALL_INT_MAX = (4, 300)
#: Neutral measure-like names for the added small-integer columns (names of no relation).
SMALL_INT_NAMES = ("line_number", "quantity", "sequence_number", "page_count", "step_count", "slot_number")

#: Partitions a composite key's first column splits a parent's rows into, drawn per parent.
PARTITIONS = (2, 4)
#: A composite key is made only from a parent with at least this many rows.
COMPOSITE_FROM_ROWS = 4
#: Names of the partition column (the first one no table involved has is taken).
PARTITION_NAMES = ("site_code", "region_code", "branch_code", "zone_code")

#: Share of its rows each table keeps in a sample, drawn per table.
SAMPLE_KEEP = (0.3, 0.8)
#: Chance that an FK column (no key's parent) arrives empty, per FK.
EMPTY_CHILD_CHANCE = 1 / 6

#: Days a calendar reaches before the first and after the last date it serves, drawn per side.
CALENDAR_PAD_DAYS = (7, 60)
#: Names of the calendar table (the first one the database does not use is taken).
CALENDAR_NAMES = ("calendar", "calendar_days", "date_calendar")

_INT = re.compile(r"[+-]?\d+")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?")


@dataclass
class TableData:
    name: str
    columns: list[str]
    types: list[str]  # declared SQLite types
    not_null: list[bool]
    rows: list[list]

    def index(self, column: str) -> int:
        return self.columns.index(column)

    def values(self, column: str) -> list:
        i = self.index(column)
        return [r[i] for r in self.rows]


@dataclass
class Dirty:
    """A database's tables in memory, the FKs they declare and what was injected (one line each)."""

    schema: Schema
    tables: dict[str, TableData]
    notes: list[str] = field(default_factory=list)


def as_int(v: object) -> int | None:
    """The integer a stored value means (1, '17', 3.0), else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str) and _INT.fullmatch(v.strip()):
        return int(v.strip())
    return None


def canonical(v: object) -> object:
    """The value a key comparison sees: the integer a stored value means, else its text."""
    n = as_int(v)
    return str(v) if n is None else n


def integral(values: list) -> bool:
    present = [v for v in values if v is not None]
    return bool(present) and all(as_int(v) is not None for v in present)


def load(path: Path, db_name: str) -> Dirty:
    schema = read_schema(path, db_name)
    con = connect_readonly(path)
    try:
        tables = {}
        for t in schema.tables:
            cols = [c.name for c in t.columns]
            rows = [list(r) for r in con.execute(
                f"SELECT {', '.join(quote_sqlite(c) for c in cols)} FROM {quote_sqlite(t.name)}")]
            tables[t.name] = TableData(t.name, cols, [c.declared_type for c in t.columns],
                                       [c.not_null for c in t.columns], rows)
        return Dirty(schema, tables)
    finally:
        con.close()


def write(d: Dirty, out: Path) -> None:
    """A fresh SQLite file: every table with its (possibly changed) declared types and FKs."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    q = quote_sqlite
    con = sqlite3.connect(tmp)
    try:
        for t in d.tables.values():
            parts = [f"{q(c)} {ty}".rstrip() + (" NOT NULL" if nn else "")
                     for c, ty, nn in zip(t.columns, t.types, t.not_null)]
            for fk in d.schema.foreign_keys:
                if fk.child_table == t.name:
                    parts.append(f"FOREIGN KEY ({', '.join(map(q, fk.child_columns))}) REFERENCES "
                                 f"{q(fk.parent_table)} ({', '.join(map(q, fk.parent_columns))})")
            con.execute(f"CREATE TABLE {q(t.name)} (\n  " + ",\n  ".join(parts) + "\n)")
            marks = ", ".join("?" * len(t.columns))
            con.executemany(f"INSERT INTO {q(t.name)} VALUES ({marks})", t.rows)
        con.commit()
    finally:
        con.close()
    tmp.replace(out)


def _rng(seed: int, variant: Variant, db: str, *what: str) -> random.Random:
    return random.Random(":".join((str(seed), variant.value, db, *what)))


def single_fks(schema: Schema) -> list[ForeignKeyGroup]:
    return [fk for fk in schema.foreign_keys if len(fk.child_columns) == 1]


def _label(fk: ForeignKeyGroup) -> str:
    return f"{fk.child_table}.{fk.child_columns[0]} -> {fk.parent_table}.{fk.parent_columns[0]}"


# --- orphans -----------------------------------------------------------------------------------
def inject_orphans(d: Dirty, seed: int) -> None:
    for fk in single_fks(d.schema):
        child, parent = d.tables[fk.child_table], d.tables[fk.parent_table]
        ci = child.index(fk.child_columns[0])
        present = [n for n, r in enumerate(child.rows) if r[ci] is not None]
        if not present:
            continue
        rng = _rng(seed, Variant.ORPHANS, d.schema.name, _label(fk))
        share = rng.uniform(*ORPHAN_SHARE)
        chosen = rng.sample(present, max(1, round(share * len(present))))
        parents = [v for v in parent.values(fk.parent_columns[0]) if v is not None]
        # a late-arriving dimension: a few missing keys, each in several rows (the orphan share
        # of the child's distinct values is about that of its rows)
        pool_size = max(1, round(share * len({child.rows[n][ci] for n in present})))
        if integral(parents):
            top = max(as_int(v) for v in parents)
            pool = [top + 1 + k for k in range(pool_size)]
        else:
            taken = {str(v) for v in parents}
            pool = []
            for k in range(pool_size):
                base = f"{rng.choice(parents)}{k + 7}"
                while base in taken:
                    base += "7"
                pool.append(base)
        for n in chosen:
            child.rows[n][ci] = rng.choice(pool)
        d.notes.append(f"{_label(fk)}: {len(chosen)} of {len(present)} rows orphaned ({len(chosen) / len(present):.0%})")


# --- drifted key types -------------------------------------------------------------------------
DRIFTS = ("parent_real", "parent_padded_text", "child_text")


def _set_column(t: TableData, column: str, declared: str, convert) -> None:
    i = t.index(column)
    t.types[i] = declared
    for r in t.rows:
        if r[i] is not None:
            r[i] = convert(as_int(r[i]))


def inject_drifted_types(d: Dirty, seed: int) -> None:
    by_parent: dict[tuple[str, str], list[ForeignKeyGroup]] = {}
    for fk in single_fks(d.schema):
        by_parent.setdefault((fk.parent_table, fk.parent_columns[0]), []).append(fk)
    touched: set[tuple[str, str]] = set()
    for (ptable, pcol), fks in by_parent.items():
        columns = [(ptable, pcol)] + [(fk.child_table, fk.child_columns[0]) for fk in fks]
        if touched & set(columns) or not all(integral(d.tables[t].values(c)) for t, c in columns):
            continue  # a text key, or a column another drift already changed
        touched |= set(columns)
        rng = _rng(seed, Variant.DRIFTED_TYPES, d.schema.name, ptable, pcol)
        drift = rng.choice(DRIFTS)
        children = [(fk.child_table, fk.child_columns[0]) for fk in fks]
        if drift == "parent_real":
            _set_column(d.tables[ptable], pcol, "REAL", float)
        elif drift == "parent_padded_text":
            width = max(len(str(as_int(v))) for v in d.tables[ptable].values(pcol) if v is not None) + rng.randint(1, 3)
            _set_column(d.tables[ptable], pcol, "TEXT", lambda v: str(v).zfill(width))
        else:
            _set_column(d.tables[ptable], pcol, "INTEGER", int)
        for t, c in children:
            _set_column(d.tables[t], c, "TEXT" if drift == "child_text" else "INTEGER",
                        str if drift == "child_text" else int)
        d.notes.append(f"{ptable}.{pcol} ({len(children)} children): {drift}")


# --- tiny dimensions ---------------------------------------------------------------------------
def _parent_columns(schema: Schema) -> set[tuple[str, str]]:
    return {(fk.parent_table, c) for fk in schema.foreign_keys for c in fk.parent_columns}


def _eligible_parents(d: Dirty) -> dict[str, list[ForeignKeyGroup]]:
    """Parent tables every FK reaches by one column, not self-referencing, whose children's
    columns are no one's parent (remapping them would orphan grandchildren)."""
    composite = {fk.parent_table for fk in d.schema.foreign_keys if len(fk.child_columns) > 1}
    parents = _parent_columns(d.schema)
    out: dict[str, list[ForeignKeyGroup]] = {}
    for fk in single_fks(d.schema):
        out.setdefault(fk.parent_table, []).append(fk)
    return {t: fks for t, fks in out.items()
            if t not in composite and all(fk.child_table != t for fk in fks)
            and not any((fk.child_table, fk.child_columns[0]) in parents for fk in fks)}


def inject_tiny_dimensions(d: Dirty, seed: int) -> None:
    for ptable, fks in _eligible_parents(d).items():
        parent = d.tables[ptable]
        if len(parent.rows) <= TINY_FROM_ROWS:
            continue
        rng = _rng(seed, Variant.TINY_DIMENSIONS, d.schema.name, ptable)
        keep = sorted(rng.sample(range(len(parent.rows)), rng.randint(*TINY_ROWS)))
        parent.rows = [parent.rows[n] for n in keep]
        for fk in fks:
            kept = sorted({v for v in parent.values(fk.parent_columns[0]) if v is not None}, key=str)
            if not kept:
                continue
            child = d.tables[fk.child_table]
            ci = child.index(fk.child_columns[0])
            mapping: dict = {}
            for r in child.rows:
                if r[ci] is not None:
                    r[ci] = mapping.setdefault(r[ci], rng.choice(kept))
        d.notes.append(f"{ptable}: {len(parent.rows)} rows kept, {len(fks)} FKs remapped")


# --- dense surrogate ranges --------------------------------------------------------------------
def inject_dense_surrogates(d: Dirty, seed: int) -> None:
    for ptable, fks in _eligible_parents(d).items():
        parent = d.tables[ptable]
        columns = {fk.parent_columns[0] for fk in fks}
        if len(columns) != 1 or not parent.rows:
            continue
        (pcol,) = columns
        keys = [as_int(v) for v in parent.values(pcol)]
        if None in keys or len(set(keys)) != len(keys):
            continue  # not an integer key
        rng = _rng(seed, Variant.DENSE_SURROGATES, d.schema.name, ptable)
        n = len(keys)
        top = max(rng.randint(*DENSE_RANGE), 20 * n)
        new_keys = sorted(rng.sample(range(1, top + 1), n))
        mapping = dict(zip(sorted(keys), new_keys))
        pi = parent.index(pcol)
        for r in parent.rows:
            r[pi] = mapping[as_int(r[pi])]
        unused = sorted(set(range(1, top + 1)) - set(new_keys))
        template = list(parent.rows)
        for k in unused:
            row = list(rng.choice(template))
            row[pi] = k
            parent.rows.append(row)
        parent.types[pi] = "INTEGER"
        for fk in fks:
            child = d.tables[fk.child_table]
            ci = child.index(fk.child_columns[0])
            child.types[ci] = "INTEGER"
            for r in child.rows:
                if r[ci] is not None and as_int(r[ci]) in mapping:
                    r[ci] = mapping[as_int(r[ci])]
        added = []
        for table in dict.fromkeys(fk.child_table for fk in fks):
            added += _add_small_ints(d.tables[table], rng)
        d.notes.append(f"{ptable}.{pcol}: dense 1..{top} ({n} original keys spread), small ints {', '.join(added)}")


def _add_small_ints(t: TableData, rng: random.Random) -> list[str]:
    taken = {c.lower() for c in t.columns}
    added = []
    for name in [n for n in SMALL_INT_NAMES if n not in taken][:2]:
        top = rng.randint(*SMALL_INT_MAX)
        added.append(f"{t.name}.{name} 1..{top}")
        t.columns.append(name)
        t.types.append("INTEGER")
        t.not_null.append(False)
        for r in t.rows:
            r.append(rng.randint(1, top))
    return added


# --- composite keys ---------------------------------------------------------------------------
def inject_composite_keys(d: Dirty, seed: int) -> None:
    fk_children = {(fk.child_table, c) for fk in d.schema.foreign_keys for c in fk.child_columns}
    groups = list(d.schema.foreign_keys)
    for ptable, fks in _eligible_parents(d).items():
        parent = d.tables[ptable]
        columns = {fk.parent_columns[0] for fk in fks}
        children = [fk.child_table for fk in fks]
        if len(columns) != 1 or len(parent.rows) < COMPOSITE_FROM_ROWS or len(set(children)) != len(children):
            continue  # one key, enough rows, and one FK per child (one partition column each)
        (pcol,) = columns
        keys = [as_int(v) for v in parent.values(pcol)]
        if None in keys or len(set(keys)) != len(keys) or (ptable, pcol) in fk_children:
            continue  # not an integer key, or itself a foreign key
        taken = {c.lower() for t in [ptable, *children] for c in d.tables[t].columns}
        name = next((n for n in PARTITION_NAMES if n not in taken), None)
        if name is None:
            continue
        rng = _rng(seed, Variant.COMPOSITE_KEYS, d.schema.name, ptable)
        # every partition holds at least two keys: neither the code nor the renumbered key is unique alone
        codes = [chr(ord("A") + i) for i in range(min(rng.randint(*PARTITIONS), len(keys) // 2))]
        order = sorted(keys)
        rng.shuffle(order)
        mapping: dict[int, tuple[str, int]] = {}
        for n, k in enumerate(order):
            mapping[k] = (codes[n % len(codes)], n // len(codes) + 1)
        pi = parent.index(pcol)
        for r in parent.rows:
            code, number = mapping[as_int(r[pi])]
            r[pi] = number
            r.append(code)
        parent.types[pi] = "INTEGER"
        parent.columns.append(name)
        parent.types.append("TEXT")
        parent.not_null.append(True)
        for fk in fks:
            child = d.tables[fk.child_table]
            ci = child.index(fk.child_columns[0])
            child.columns.append(name)
            child.types.append("TEXT")
            child.not_null.append(False)
            for r in child.rows:
                hit = mapping.get(as_int(r[ci])) if r[ci] is not None else None
                r.append(hit[0] if hit else None)
                if hit:
                    r[ci] = hit[1]
            groups[groups.index(fk)] = ForeignKeyGroup(fk.child_table, (name, fk.child_columns[0]), ptable,
                                                       (name, pcol))
        d.notes.append(f"{ptable}({name}, {pcol}): {len(codes)} partitions, {len(fks)} FKs made composite")
    d.schema = replace(d.schema, foreign_keys=tuple(groups))


# --- calendar keys ----------------------------------------------------------------------------
def _day(value: object) -> date | None:
    """The day a stored date or timestamp text names, else None."""
    m = _DATE.fullmatch(value.strip()) if isinstance(value, str) else None
    if m is None:
        return None
    try:
        return date.fromisoformat(m.group(1))
    except ValueError:
        return None


def inject_calendar_keys(d: Dirty, seed: int) -> None:
    taken = {t.lower() for t in d.tables}
    name = next((n for n in CALENDAR_NAMES if n not in taken), None)
    keys = d.schema.fk_children() | _parent_columns(d.schema)
    served: list[tuple[str, str]] = []
    days: set[date] = set()
    for t in d.tables.values():
        for i, column in enumerate(t.columns):
            if (t.name, column) in keys:
                continue
            found = [_day(r[i]) for r in t.rows if r[i] is not None]
            if not found or None in found:
                continue  # no value, or not every value is a date
            for r in t.rows:
                if r[i] is not None:
                    r[i] = _day(r[i]).isoformat()
            t.types[i] = "DATE"
            served.append((t.name, column))
            days.update(found)
    if name is None or not served:
        d.notes.append("no date-valued column: no calendar")
        return
    rng = _rng(seed, Variant.CALENDAR_KEYS, d.schema.name, name)
    first = min(days) - timedelta(days=rng.randint(*CALENDAR_PAD_DAYS))
    last = max(days) + timedelta(days=rng.randint(*CALENDAR_PAD_DAYS))
    rows = []
    day = first
    while day <= last:
        rows.append([day.isoformat(), day.strftime("%A"), day.month, (day.month - 1) // 3 + 1, day.year])
        day += timedelta(days=1)
    d.tables[name] = TableData(name, ["day_date", "weekday_name", "month_number", "quarter_number", "year_number"],
                               ["DATE", "TEXT", "INTEGER", "INTEGER", "INTEGER"], [True, False, False, False, False],
                               rows)
    groups = [ForeignKeyGroup(table, (column,), name, ("day_date",)) for table, column in served]
    d.schema = replace(d.schema, foreign_keys=(*d.schema.foreign_keys, *groups))
    d.notes.append(f"{name}: {len(rows)} days {first}..{last}, {len(served)} date columns keyed to it: "
                   + ", ".join(f"{t}.{c}" for t, c in served))


# --- sampled rows ------------------------------------------------------------------------------
def inject_sampled_rows(d: Dirty, seed: int) -> None:
    for t in d.tables.values():
        if len(t.rows) <= 2:
            continue
        rng = _rng(seed, Variant.SAMPLED_ROWS, d.schema.name, t.name)
        keep = max(2, round(rng.uniform(*SAMPLE_KEEP) * len(t.rows)))
        t.rows = [t.rows[n] for n in sorted(rng.sample(range(len(t.rows)), keep))]
    parents = _parent_columns(d.schema)
    emptied: set[tuple[str, str]] = set()
    for fk in single_fks(d.schema):
        child_column = (fk.child_table, fk.child_columns[0])
        rng = _rng(seed, Variant.SAMPLED_ROWS, d.schema.name, _label(fk))
        if child_column not in parents and child_column not in emptied and rng.random() < EMPTY_CHILD_CHANCE:
            child = d.tables[fk.child_table]
            i = child.index(fk.child_columns[0])
            child.types[i], child.not_null[i] = "TEXT", False
            for r in child.rows:
                r[i] = None
            emptied.add(child_column)
            d.notes.append(f"{_label(fk)}: empty, declared TEXT")
            continue
        found, distinct = _found_in_parent(d, fk)
        d.notes.append(f"{_label(fk)}: {found} of {distinct} child values in the parent")


def found_in(child: Iterable, parent: Iterable) -> tuple[int, int]:
    """How many of the child's distinct non-null values the parent holds (as keys compare), of how many."""
    c = {canonical(v) for v in child if v is not None}
    return len(c & {canonical(v) for v in parent if v is not None}), len(c)


def _found_in_parent(d: Dirty, fk: ForeignKeyGroup) -> tuple[int, int]:
    return found_in(d.tables[fk.child_table].values(fk.child_columns[0]),
                    d.tables[fk.parent_table].values(fk.parent_columns[0]))


INJECT = {
    Variant.ORPHANS: inject_orphans,
    Variant.DRIFTED_TYPES: inject_drifted_types,
    Variant.TINY_DIMENSIONS: inject_tiny_dimensions,
    Variant.DENSE_SURROGATES: inject_dense_surrogates,
    Variant.COMPOSITE_KEYS: inject_composite_keys,
    Variant.CALENDAR_KEYS: inject_calendar_keys,
    Variant.SAMPLED_ROWS: inject_sampled_rows,
}


def generate(source: Path, db_name: str, variant: Variant, out: Path, seed: int) -> Dirty:
    """Write the dirty copy of `source` at `out`; returns what was injected."""
    d = load(source, db_name)
    INJECT[variant](d, seed)
    write(d, out)
    return d
