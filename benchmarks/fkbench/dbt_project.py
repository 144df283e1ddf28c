"""Write a minimal dbt project whose only content is the benchmark tables as sources.

No tests, no descriptions, no models: what a team has on day one. The dbt-schema-link package
is installed from the repository itself (`packages.yml: - local: <repo>`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from .databases import connect_readonly, user_tables
from .duckdb_load import needs_quoting, reserved_words


@dataclass(frozen=True)
class BenchProject:
    dir: Path
    name: str  # dbt project name, also the profile name
    source_name: str


def slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")
    return s if s and not s[0].isdigit() else f"db_{s}"


def _dump(path: Path, data: object) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def write_project(project_dir: Path, db_name: str, sqlite_path: Path, duckdb_path: Path,
                  repo_root: Path) -> BenchProject:
    name = f"bench_{slug(db_name)}"
    source_name = slug(db_name)
    (project_dir / "models").mkdir(parents=True, exist_ok=True)
    _dump(project_dir / "dbt_project.yml", {
        "name": name, "version": "1.0.0", "config-version": 2, "profile": name,
        "model-paths": ["models"],
    })
    _dump(project_dir / "profiles.yml", {
        name: {"target": "bench", "outputs": {"bench": {
            "type": "duckdb", "path": str(duckdb_path.resolve()), "threads": 1}}},
    })
    _dump(project_dir / "packages.yml", {"packages": [{"local": str(repo_root.resolve())}]})
    reserved = reserved_words()
    src = connect_readonly(sqlite_path)
    try:
        tables = user_tables(src)
    finally:
        src.close()
    _dump(project_dir / "models" / "sources.yml",
          {"version": 2, "sources": [source_entry(source_name, db_name, tables, reserved)]})
    return BenchProject(dir=project_dir, name=name, source_name=source_name)


def source_entry(name: str, schema: str, tables, reserved) -> dict:
    """One dbt source declaring every table, quoting the names that need it (the one place
    benchmarks write a sources.yml entry)."""
    entries = []
    for table in tables:
        entry: dict = {"name": table}
        if needs_quoting(table, reserved):
            entry["quoting"] = {"identifier": True}
        entries.append(entry)
    source: dict = {"name": name, "schema": schema, "tables": entries}
    if needs_quoting(schema, reserved):
        source["quoting"] = {"schema": True}
    return source
