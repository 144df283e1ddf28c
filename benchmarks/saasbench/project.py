"""One package's sources-only dbt project: seeds → DuckDB, dbt files, deps, docs, then `link`.

Layout of `<workdir>/<pkg>/` (the project folder P itself):
    warehouse.duckdb      every `seeds/*.csv` as `<pkg>.<stem>` (`read_csv_auto(header=true)`,
                          names kept exactly, identifiers quoted; no keys)
    dbt_project.yml, profiles.yml (dbt-duckdb on that file), packages.yml (`- local: <repo>`),
    models/sources.yml    every table a source of source `<pkg>` (no tests, no descriptions)
    target/               manifest.json + catalog.json (`dbt docs generate`), schema_link/links.json
    bench_logs/           one log per step; prepared.json (the stamp `--reuse` compares)

Commands run through fkbench.product (the CLI only, this tree's package first on PYTHONPATH).
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import yaml

from convbench.runner import point_package_at
from fkbench import product
from fkbench.dbt_project import source_entry
from fkbench.duckdb_load import quote, reserved_words

from .labels import Package

#: Bump when what the project holds changes: every stamp differs then, `--reuse` rebuilds.
PROJECT_VERSION = 1


@dataclass
class PackageRun:
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase
    error: str | None = None
    failed_phase: str | None = None
    links_path: Path | None = None
    reused: bool = False  # warehouse and docs of an earlier run kept (--reuse)
    tables: int = 0

    @property
    def link_seconds(self) -> float | None:
        return self.phases.get("link")


def project_name(pkg: str) -> str:
    return f"saas_{pkg}"


def stamp(package: Package, repo_root: Path) -> dict:
    """What the built project depends on: the seed files (name, size, mtime) and the harness."""
    return {"version": PROJECT_VERSION, "package": package.name, "repo": str(repo_root.resolve()),
            "seeds": [[f.name, f.stat().st_size, f.stat().st_mtime_ns] for f in package.seeds]}


def _sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def load_seeds(package: Package, duckdb_path: Path) -> list[str]:
    """A fresh DuckDB file with every seed as `<pkg>.<stem>`; the table names, in order."""
    duckdb_path.unlink(missing_ok=True)
    con = duckdb.connect(str(duckdb_path))
    try:
        con.execute(f"CREATE SCHEMA {quote(package.name)}")
        tables = []
        for f in package.seeds:
            con.execute(f"CREATE TABLE {quote(package.name)}.{quote(f.stem)} AS "
                        f"SELECT * FROM read_csv_auto({_sql_string(str(f.resolve()))}, header=true)")
            tables.append(f.stem)
        return tables
    finally:
        con.close()


def _dump(path: Path, data: object) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def write_project(project_dir: Path, pkg: str, tables: list[str], duckdb_path: Path, repo_root: Path) -> None:
    name = project_name(pkg)
    (project_dir / "models").mkdir(parents=True, exist_ok=True)
    _dump(project_dir / "dbt_project.yml", {
        "name": name, "version": "1.0.0", "config-version": 2, "profile": name, "model-paths": ["models"]})
    _dump(project_dir / "profiles.yml", {
        name: {"target": "dev", "outputs": {"dev": {
            "type": "duckdb", "path": str(duckdb_path.resolve()), "schema": pkg, "threads": 1}}}})
    _dump(project_dir / "packages.yml", {"packages": [{"local": str(repo_root.resolve())}]})
    reserved = reserved_words()
    _dump(project_dir / "models" / "sources.yml",
          {"version": 2, "sources": [source_entry(pkg, pkg, tables, reserved)]})


def reusable(project_dir: Path, wanted: dict) -> str | None:
    """Why the project of an earlier run cannot be reused (None: it can)."""
    for rel in ("warehouse.duckdb", "target/manifest.json", "target/catalog.json"):
        if not (project_dir / rel).exists():
            return f"{rel} missing"
    try:
        kept = json.loads((project_dir / "bench_logs" / "prepared.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "no prepared.json"
    return None if kept == wanted else "seeds or harness changed since it was built"


def prepare(package: Package, project_dir: Path, repo_root: Path, run: PackageRun, timeout_s: float) -> None:
    """Rebuild the project from nothing: load, files, `dbt deps`, `dbt docs generate`, catalog check."""
    shutil.rmtree(project_dir, ignore_errors=True)
    logs = project_dir / "bench_logs"
    logs.mkdir(parents=True)
    duckdb_path = project_dir / "warehouse.duckdb"
    start = time.perf_counter()
    tables = load_seeds(package, duckdb_path)
    run.tables = len(tables)
    run.phases["load"] = time.perf_counter() - start
    write_project(project_dir, package.name, tables, duckdb_path, repo_root)
    dbt = product.tool("dbt")
    common = ["--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
    for phase, cmd in (("deps", [dbt, "deps", *common]), ("docs", [dbt, "docs", "generate", *common])):
        start = time.perf_counter()
        error = product._run(cmd, project_dir, logs / f"{phase}.log", timeout_s)
        run.phases[phase] = time.perf_counter() - start
        if not error and phase == "docs":
            error = product.check_catalog(project_dir)
        if error:
            run.error, run.failed_phase = error, phase
            return
    (logs / "prepared.json").write_text(json.dumps(stamp(package, repo_root), indent=1) + "\n", encoding="utf-8")


def run_package(package: Package, workdir: Path, repo_root: Path, *, reuse: bool = False,
                prepare_only: bool = False, link_args: tuple[str, ...] = (), timeout_s: float = 1800,
                log=lambda message: None) -> PackageRun:
    """Prepare (or, with `reuse`, keep) the project, then run `dbt-schema-link link` on it."""
    run = PackageRun()
    project_dir = workdir / package.name
    logs = project_dir / "bench_logs"
    why_not = reusable(project_dir, stamp(package, repo_root)) if reuse else "no --reuse"
    if why_not is None:
        run.reused = True
        run.tables = len(package.seeds)
        holder = product.ProductRun()
        error = point_package_at(project_dir, repo_root, logs, timeout_s, holder)
        run.phases.update(holder.phases)
        if error:
            run.error, run.failed_phase = error, "deps"
            return run
    else:
        if reuse:
            log(f"{package.name}: rebuilding ({why_not})")
        prepare(package, project_dir, repo_root, run, timeout_s)
        if run.error:
            return run
    if prepare_only:
        return run
    links_path = project_dir / "target" / "schema_link" / "links.json"
    links_path.unlink(missing_ok=True)  # never score the links of an earlier run
    linked = product.link_project(project_dir, logs, timeout_s, link_args)
    run.phases["link"] = linked.phases.get("link", 0.0)
    if linked.error:
        run.error, run.failed_phase = linked.error, linked.failed_phase
        return run
    run.links_path = links_path
    return run


def all_null_columns(duckdb_path: Path, schema: str, columns: list[tuple[str, str]]) -> dict[tuple[str, str], bool]:
    """(table, column) as written → True when the column has no non-null value (keys lower-cased).
    One `count(...)` statement per table, on a read-only connection."""
    by_table: dict[str, list[str]] = {}
    for table, col in columns:
        by_table.setdefault(table, [])
        if col not in by_table[table]:
            by_table[table].append(col)
    out: dict[tuple[str, str], bool] = {}
    con = duckdb.connect(str(duckdb_path), read_only=True)
    try:
        for table, cols in by_table.items():
            counts = con.execute("SELECT " + ", ".join(f"count({quote(c)})" for c in cols)
                                 + f" FROM {quote(schema)}.{quote(table)}").fetchone()
            out.update({(table.lower(), c.lower()): n == 0 for c, n in zip(cols, counts)})
    finally:
        con.close()
    return out
