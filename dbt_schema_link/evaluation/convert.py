"""Turn a Spider/BIRD-style benchmark into a dbt-duckdb project: one schema per database, every
table a dbt source with its columns, descriptions (BIRD description CSVs; Spider's natural-language
column names where they add something) and its declared foreign keys as `relationships` tests,
so they reach the index as declared links through the manifest like any project's (or, for the
user path, no tests at all: `dbt-schema-link link` infers the joins).

Data is copied from the SQLite files into one DuckDB file with Python's sqlite3 and DuckDB's
`read_csv` (no DuckDB extension needed); a database without a data file gets empty tables.
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import yaml

from dbt_schema_link.linker.text import identifier_words

PROFILE_NAME = "schema_link_eval"


@dataclass
class TableSpec:
    name: str  # original (warehouse) name
    nl_name: str
    columns: list[tuple[str, str, str]]  # (original name, natural-language name, spider type)
    primary_key: list[str] = field(default_factory=list)
    descriptions: dict[str, str] = field(default_factory=dict)  # lower column → text
    description: str = ""
    # lower column → its name in the source database, for variants that rename columns
    source_names: dict[str, str] = field(default_factory=dict)

    def source_name(self, column: str) -> str:
        return self.source_names.get(column.lower(), column)


@dataclass
class DatabaseSpec:
    db_id: str
    tables: list[TableSpec]
    foreign_keys: list[tuple[str, str, str, str]]  # child table, child column, parent table, parent column
    sqlite_path: Path | None = None

    def schema_map(self, source: bool = False) -> dict[str, dict[str, str]]:
        """{table: {column: type}} lower-cased, for sqlglot; `source`: the columns' names in the
        source database (what the benchmark's gold SQL uses), where a variant renamed them."""
        return {t.name.lower(): {(t.source_name(c[0]) if source else c[0]).lower(): c[2] for c in t.columns}
                for t in self.tables}

    def renamed(self) -> dict[tuple[str, str], str]:
        """(table, source column) → column, lower case, for the columns a variant renamed."""
        return {(t.name.lower(), src.lower()): new for t in self.tables for new, src in t.source_names.items()}


def read_tables_json(path: Path, database_dir: Path | None = None) -> list[DatabaseSpec]:
    """Spider `tables.json` (also BIRD's) → database specs; FKs de-duplicated."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for db in raw:
        tables = [TableSpec(name=t, nl_name=nl, columns=[]) for t, nl in zip(db["table_names_original"], db["table_names"])]
        names = db["column_names_original"]
        nls = db["column_names"]
        for i, ((t, col), (_, nl), typ) in enumerate(zip(names, nls, db["column_types"])):
            if t < 0:
                continue
            tables[t].columns.append((col, nl, typ))
        for pk in db.get("primary_keys", []):
            group = pk if isinstance(pk, list) else [pk]
            for p in group:
                t, col = names[p]
                tables[t].primary_key.append(col)
        fks = []
        for child, parent in db.get("foreign_keys", []):
            ct, cc = names[child]
            pt, pc = names[parent]
            fk = (tables[ct].name, cc, tables[pt].name, pc)
            if fk not in fks and ct != pt:
                fks.append(fk)
        sqlite = None
        if database_dir is not None:
            cand = Path(database_dir) / db["db_id"] / f"{db['db_id']}.sqlite"
            sqlite = cand if cand.exists() else None
        out.append(DatabaseSpec(db["db_id"], tables, fks, sqlite))
    return out


def add_bird_descriptions(spec: DatabaseSpec, description_dir: Path) -> None:
    """BIRD's database_description/<table>.csv → table column descriptions."""
    for table in spec.tables:
        path = Path(description_dir) / f"{table.name}.csv"
        if not path.exists():
            continue
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        for row in csv.DictReader(text.splitlines()):
            row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
            col = row.get("original_column_name", "")
            if not col:
                continue
            parts = []
            expanded = row.get("column_name", "")
            if expanded and expanded.lower() != identifier_words(col):
                parts.append(expanded)
            if row.get("column_description"):
                parts.append(row["column_description"])
            value_desc = " ".join(row.get("value_description", "").split())
            if value_desc:
                parts.append(f"Values: {value_desc}")
            table.descriptions[col.lower()] = ". ".join(p.rstrip(". ") for p in parts)


def add_spider_names(spec: DatabaseSpec) -> None:
    """Spider's natural-language names, as descriptions where they say more than the identifier."""
    for table in spec.tables:
        if table.nl_name and table.nl_name.lower() != identifier_words(table.name):
            table.description = table.nl_name
        for col, nl, _ in table.columns:
            if nl and nl.lower() != identifier_words(col) and col.lower() not in table.descriptions:
                table.descriptions[col.lower()] = nl


_DUCK_TYPES = {"number": "DOUBLE", "text": "VARCHAR", "time": "VARCHAR", "boolean": "BOOLEAN", "others": "VARCHAR"}


def _duck_type(sqlite_decl: str | None, spider_type: str) -> str:
    decl = (sqlite_decl or "").upper()
    if "INT" in decl:
        return "BIGINT"
    if any(k in decl for k in ("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL")):
        return "DOUBLE"
    if any(k in decl for k in ("DATE", "TIME")):
        return "VARCHAR"
    if decl.startswith(("CHAR", "VARCHAR", "TEXT", "STRING")):
        return "VARCHAR"
    return _DUCK_TYPES.get(spider_type, "VARCHAR")


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def load_duckdb(specs: Sequence[DatabaseSpec], duckdb_path: Path) -> None:
    """Create one schema per database in a DuckDB file and copy the SQLite data in."""
    import duckdb

    duckdb_path = Path(duckdb_path)
    if duckdb_path.exists():
        duckdb_path.unlink()
    con = duckdb.connect(str(duckdb_path))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for spec in specs:
                con.execute(f"CREATE SCHEMA IF NOT EXISTS {_q(spec.db_id)}")
                src = None
                if spec.sqlite_path is not None:
                    src = sqlite3.connect(str(spec.sqlite_path))
                    src.text_factory = lambda b: b.decode("utf-8", "replace")
                for table in spec.tables:
                    decls: dict[str, str | None] = {}
                    real_table = None
                    if src is not None:
                        for (name,) in src.execute("SELECT name FROM sqlite_master WHERE type='table'"):
                            if name.lower() == table.name.lower():
                                real_table = name
                        if real_table:
                            for row in src.execute(f"PRAGMA table_info({_q(real_table)})"):
                                decls[row[1].lower()] = row[2]
                    cols = [(c, _duck_type(decls.get(table.source_name(c).lower()), t)) for c, _, t in table.columns]
                    target = f"{_q(spec.db_id)}.{_q(table.name)}"
                    ddl = ", ".join(f"{_q(c)} {t}" for c, t in cols)
                    con.execute(f"CREATE TABLE {target} ({ddl})")
                    if real_table is None:
                        continue
                    present = [c for c, _ in cols if table.source_name(c).lower() in decls]
                    if not present:
                        continue
                    csv_path = Path(tmp) / "t.csv"
                    with csv_path.open("w", newline="", encoding="utf-8") as handle:
                        writer = csv.writer(handle)
                        writer.writerow([f"c{i}" for i in range(len(present))])
                        select = ", ".join(_q(table.source_name(c)) for c in present)
                        for row in src.execute(f"SELECT {select} FROM {_q(real_table)}"):
                            writer.writerow(["\\N" if v is None else v for v in row])
                    types = dict(cols)
                    casts = ", ".join(f"TRY_CAST(c{i} AS {types[c]}) AS {_q(c)}" for i, c in enumerate(present))
                    names = ", ".join(_q(c) for c in present)
                    con.execute(
                        f"INSERT INTO {target} ({names}) SELECT {casts} FROM read_csv('{csv_path}', header=true, "
                        f"all_varchar=true, nullstr='\\N', quote='\"', escape='\"', delim=',', strict_mode=false)"
                    )
                if src is not None:
                    src.close()
    finally:
        con.close()


def _source_yaml(spec: DatabaseSpec, arguments_style: bool, declared_tests: bool = True) -> dict:
    fks: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for ct, cc, pt, pc in spec.foreign_keys:
        fks.setdefault((ct.lower(), cc.lower()), []).append((pt, pc))
    tables = []
    for table in spec.tables:
        cols = []
        for col, _, _ in table.columns:
            entry: dict = {"name": col}
            if table.descriptions.get(col.lower()):
                entry["description"] = table.descriptions[col.lower()]
            tests = []
            if len(table.primary_key) == 1 and table.primary_key[0].lower() == col.lower():
                tests += ["unique", "not_null"]
            for pt, pc in fks.get((table.name.lower(), col.lower()), []):
                args = {"to": f"source('{spec.db_id}', '{pt}')", "field": pc}
                tests.append({"relationships": {"arguments": args} if arguments_style else args})
            if tests and declared_tests:
                entry["data_tests"] = tests
            if re.search(r"[^A-Za-z0-9_]", col) or col[:1].isdigit():
                entry["quote"] = True
            cols.append(entry)
        t: dict = {"name": table.name, "columns": cols}
        if table.description:
            t["description"] = table.description
        tables.append(t)
    return {"name": spec.db_id, "schema": spec.db_id, "tables": tables}


def write_project(specs: Sequence[DatabaseSpec], out_dir: Path, project_name: str, dbt_version: str,
                  load_data: bool = True, package_dir: Path | None = None, declared_tests: bool = True) -> Path:
    """Write the dbt project (and its DuckDB warehouse) to `out_dir`; returns the project dir.
    Without `declared_tests` the sources carry no tests at all (no keys, no relationships): what
    a team has before `dbt-schema-link link` infers the joins."""
    out_dir = Path(out_dir)
    (out_dir / "models").mkdir(parents=True, exist_ok=True)
    duck = out_dir / "warehouse.duckdb"
    major_minor_patch = tuple(int(x) for x in re.findall(r"\d+", dbt_version)[:3])
    arguments_style = major_minor_patch >= (1, 10, 5)
    project = {"name": project_name, "version": "1.0.0", "config-version": 2, "profile": PROFILE_NAME,
               "model-paths": ["models"], "target-path": "target", "flags": {"send_anonymous_usage_stats": False}}
    (out_dir / "dbt_project.yml").write_text(yaml.safe_dump(project, sort_keys=False), encoding="utf-8")
    profiles = {PROFILE_NAME: {"target": "dev", "outputs": {"dev": {"type": "duckdb", "path": str(duck.resolve()),
                                                                     "threads": 1}}}}
    (out_dir / "profiles.yml").write_text(yaml.safe_dump(profiles, sort_keys=False), encoding="utf-8")
    if package_dir is not None:
        (out_dir / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(package_dir)}]}), encoding="utf-8")
    for spec in specs:
        doc = {"version": 2, "sources": [_source_yaml(spec, arguments_style, declared_tests)]}
        (out_dir / "models" / f"{spec.db_id}.yml").write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True),
                                                              encoding="utf-8")
    if load_data:
        load_duckdb(specs, duck)
    return out_dir
