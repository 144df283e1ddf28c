"""`../shared/data/warehouse_large` (one JSON file per database) → one DuckDB file and one dbt
project: one schema (and one dbt source) per database, the sample rows as the tables' data, the
column descriptions as YAML docs on the sources."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

PROJECT = "whbench"

#: Snowflake/BigQuery types in the data → DuckDB types (values arrive as text: TRY_CAST).
TYPES = {
    "TEXT": "VARCHAR", "FLOAT": "DOUBLE", "NUMBER": "DOUBLE", "VARIANT": "VARCHAR", "BOOLEAN": "BOOLEAN",
    "DATE": "DATE", "BINARY": "VARCHAR", "TIMESTAMP_NTZ": "TIMESTAMP", "TIMESTAMP_TZ": "TIMESTAMPTZ",
    "ARRAY": "VARCHAR", "TIME": "TIME", "GEOGRAPHY": "VARCHAR",
}


@dataclass
class Column:
    name: str
    data_type: str      # DuckDB type
    description: str


@dataclass
class Table:
    database: str       # the source database (DuckDB schema, dbt source name), lower case
    identifier: str     # the table in that schema (schema__table where two schemas share a name)
    columns: list[Column]
    rows: list[dict] = field(default_factory=list)

    @property
    def unique_id(self) -> str:
        return f"source.{PROJECT}.{self.database}.{self.identifier}"


def _ident(name: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def read_warehouse(data_dir: Path, limit_databases: int | None = None) -> list[Table]:
    files = sorted(data_dir.glob("*.json"))
    if limit_databases:
        files = files[:limit_databases]
    tables: list[Table] = []
    for path in files:
        raw = json.loads(path.read_text(encoding="utf-8"))
        database = _ident(raw["database"])
        names = [_ident(t["table"]) for t in raw["tables"]]
        for t, name in zip(raw["tables"], names):
            ident = name if names.count(name) == 1 else f"{_ident(t['schema'])}__{name}"
            cols = [Column(c["name"], TYPES.get(str(c["type"]).upper(), "VARCHAR"), (c.get("description") or "").strip())
                    for c in t["columns"]]
            tables.append(Table(database, ident, cols, t.get("sample_rows") or []))
    return tables


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def load_duckdb(tables: list[Table], path: Path, fresh: bool = True) -> None:
    """One schema per database; `fresh=False` adds them to an existing file (the haystack)."""
    import duckdb

    if fresh and path.exists():
        path.unlink()
    con = duckdb.connect(str(path))
    for schema in sorted({t.database for t in tables}):
        con.execute(f"create schema {_quote(schema)}")
    for t in tables:
        target = f"{_quote(t.database)}.{_quote(t.identifier)}"
        con.execute(f"create table {target} ({', '.join(f'{_quote(c.name)} {c.data_type}' for c in t.columns)})")
        if t.rows:
            values = ", ".join(f"try_cast(? as {c.data_type})" for c in t.columns)
            con.executemany(f"insert into {target} values ({values})",
                            [[_text(row.get(c.name)) for c in t.columns] for row in t.rows])
    con.close()


def write_project(tables: list[Table], project_dir: Path, duckdb_path: Path, repo_root: Path) -> None:
    (project_dir / "models").mkdir(parents=True, exist_ok=True)
    _dump(project_dir / "dbt_project.yml", {"name": PROJECT, "version": "1.0.0", "config-version": 2,
                                           "profile": PROJECT, "model-paths": ["models"]})
    _dump(project_dir / "profiles.yml", {PROJECT: {"target": "duckdb", "outputs": {"duckdb": {
        "type": "duckdb", "path": str(duckdb_path.resolve()), "threads": 1, "schema": "main"}}}})
    _dump(project_dir / "packages.yml", {"packages": [{"local": str(repo_root.resolve())}]})
    write_sources(tables, project_dir / "models" / "sources")


def _dump(path: Path, doc: dict) -> None:
    path.write_text(yaml.dump(doc, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                              allow_unicode=True, width=1_000_000), encoding="utf-8")


def write_sources(tables: list[Table], folder: Path) -> None:
    """One dbt source YAML per database (schema = database), column descriptions as docs."""
    folder.mkdir(parents=True, exist_ok=True)
    by_db: dict[str, list[Table]] = {}
    for t in tables:
        by_db.setdefault(t.database, []).append(t)
    for db, members in by_db.items():
        _dump(folder / f"{db}.yml", {"version": 2, "sources": [{
            "name": db, "schema": db, "tables": [{
                "name": t.identifier,
                "columns": [{"name": c.name, **({"description": c.description} if c.description else {})}
                            for c in t.columns],
            } for t in members]}]})
