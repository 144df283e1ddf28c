"""Run dbt-schema-link end to end on a generated project, through its CLI only.

Phases (each timed): load (SQLite → DuckDB), project (write the dbt files), deps
(`dbt deps`), docs (`dbt docs generate`: manifest + catalog), link (`dbt-schema-link link
--format json --quiet`: profiling via `dbt run-operation link_schemas`, inference, verification).
"product seconds" is the link phase; "total seconds" is all phases.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .databases import BenchDatabase, Pair, pair
from .dbt_project import write_project
from .duckdb_load import copy_sqlite_to_duckdb

# ---------------------------------------------------------------------------------------------
# The one place that knows the shape of links.json. Adapt only this if the format changes.
# ---------------------------------------------------------------------------------------------
EXCLUDED_KINDS = {"lineage"}  # a lineage link is a copy of a column, not a join


def _table_column(ref: dict) -> tuple[str, str]:
    """A links.json column reference → (table, column); a source is named by its table."""
    relation = ref["relation"]
    table = relation.split(".", 3)[3] if relation.startswith("source.") else relation.rsplit(".", 1)[-1]
    return (table, ref["column"])


def _column_pairs(link: dict) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """(child, parent) of a link, then a composite key's further pairs (`extra_pairs`, links.json
    v3): the ground truth has one FK per column pair, so each pair of a composite key counts."""
    first = (_table_column(link["child"]), _table_column(link["parent"]))
    return [first] + [(_table_column(x["child"]), _table_column(x["parent"])) for x in link.get("extra_pairs", ())]


def found_pairs(links_json: dict) -> set[Pair]:
    """Joins the product found: unordered (table, column) pairs, lineage links left out.

    Expects `{"links": [{"child": {"relation": "source.<project>.<source>.<table>", "column": c},
    "parent": {...}, "kind": "inferred" | "declared" | "lineage", "extra_pairs": [...], ...}]}`.
    """
    return {pair(child, parent) for link in links_json.get("links", []) if link.get("kind") not in EXCLUDED_KINDS
            for child, parent in _column_pairs(link)}


@dataclass(frozen=True)
class FoundLink:
    """One found join with what links.json says about it (for reliability tables and fits).

    `evidence` maps a signal name to `(strength, contribution)` (contribution: its log-odds)."""

    pair: Pair
    child: tuple[str, str]  # (table, column) as written, not lower-cased
    parent: tuple[str, str]
    kind: str
    confidence: float
    evidence: dict[str, tuple[float, float]]


@dataclass(frozen=True)
class RejectedCandidate:
    """A candidate links.json lists as rejected by a trap rule (no evidence vector is written)."""

    pair: Pair
    child: tuple[str, str]
    parent: tuple[str, str]
    trap: str
    would_be_confidence: float


def found_links(links_json: dict) -> list[FoundLink]:
    """Every non-lineage link of links.json with its confidence and evidence (same reading of
    relations as `found_pairs`; a pair written twice appears twice)."""
    out = []
    for link in links_json.get("links", []):
        if link.get("kind") in EXCLUDED_KINDS:
            continue
        evidence = {e["signal"]: (float(e.get("strength", 0.0)), float(e.get("contribution", 0.0)))
                    for e in link.get("evidence", [])}
        for child, parent in _column_pairs(link):  # a composite key: one labelled item per pair
            out.append(FoundLink(pair(child, parent), child, parent, str(link.get("kind")),
                                 float(link.get("confidence", 0.0)), evidence))
    return out


def rejected_candidates(links_json: dict) -> list[RejectedCandidate]:
    """The `rejected` list of links.json (trap rejections, capped by `max_rejected_reported`)."""
    out = []
    for r in links_json.get("rejected", []):
        child, parent = _table_column(r["child"]), _table_column(r["parent"])
        out.append(RejectedCandidate(pair(child, parent), child, parent, str(r.get("trap")),
                                     float(r.get("would_be_confidence", 0.0))))
    return out
# ---------------------------------------------------------------------------------------------


@dataclass
class ProductRun:
    pairs: set[Pair] = field(default_factory=set)
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase
    error: str | None = None
    failed_phase: str | None = None
    links_path: str | None = None
    kept_varchar: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        """The product itself: `dbt-schema-link link`."""
        return self.phases.get("link", 0.0)

    @property
    def total_seconds(self) -> float:
        return sum(self.phases.values())


def tool(name: str) -> str:
    """An executable beside this Python (the benchmark's venv), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if not found:
        raise FileNotFoundError(f"{name} not found beside {sys.executable} nor on PATH")
    return found


def measure_tree(root: Path) -> None:
    """Make every dbt and dbt-schema-link process this benchmark starts import the package of
    `root` (first on PYTHONPATH). Otherwise the `dbt-schema-link` beside the benchmark's Python runs
    whatever its venv installed, and an editable install of another checkout is what gets measured."""
    os.environ["PYTHONPATH"] = os.pathsep.join([str(root)] + [p for p in [os.environ.get("PYTHONPATH")] if p])


def dbt_env(project_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"DBT_PROFILES_DIR": str(project_dir), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
                "DO_NOT_TRACK": "1", "DBT_USE_COLORS": "false"})
    return env


def _run(cmd: list[str], project_dir: Path, log: Path, timeout_s: float) -> str | None:
    """Run one command in the project; its output goes to `log`. Returns an error or None."""
    try:
        proc = subprocess.run(cmd, cwd=project_dir, env=dbt_env(project_dir), capture_output=True,
                              text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout_s:.0f}s: {' '.join(cmd)}"
    log.write_text(f"$ {' '.join(cmd)}\n{proc.stdout}\n--- stderr ---\n{proc.stderr}", encoding="utf-8")
    if proc.returncode != 0:
        lines = [l.strip() for l in (proc.stderr.strip() or proc.stdout.strip()).splitlines() if l.strip()]
        return f"exit {proc.returncode}, see {log}: " + " | ".join(lines[-6:])[-800:]
    return None


def check_catalog(project_dir: Path) -> str | None:
    """Every declared source must be in catalog.json with its columns, or the input is broken."""
    target = project_dir / "target"
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    catalog = json.loads((target / "catalog.json").read_text(encoding="utf-8"))
    declared = set(manifest.get("sources", {}))
    missing = sorted(uid for uid in declared if not catalog.get("sources", {}).get(uid, {}).get("columns"))
    if not declared:
        return "manifest.json declares no sources"
    return f"not in catalog.json (or no columns): {missing}" if missing else None


def run_product(db: BenchDatabase, db_dir: Path, repo_root: Path, timeout_s: float = 1800,
                run_link: bool = True) -> ProductRun:
    """Load, write the project, `dbt deps`, `dbt docs generate`, then (unless `run_link` is
    False: prepare only) `dbt-schema-link link`."""
    run = ProductRun()
    project_dir = db_dir / "project"
    shutil.rmtree(project_dir, ignore_errors=True)
    logs = db_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    duckdb_path = db_dir / "warehouse.duckdb"

    start = time.perf_counter()
    report = copy_sqlite_to_duckdb(db.path, duckdb_path, schema=db.name)
    run.kept_varchar = report.kept_varchar
    run.phases["load"] = time.perf_counter() - start

    start = time.perf_counter()
    write_project(project_dir, db.name, db.path, duckdb_path, repo_root)
    run.phases["project"] = time.perf_counter() - start

    dbt = tool("dbt")
    common = ["--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
    steps = [
        ("deps", [dbt, "deps", *common]),
        ("docs", [dbt, "docs", "generate", *common]),
    ]
    for phase, cmd in steps:
        start = time.perf_counter()
        error = _run(cmd, project_dir, logs / f"{phase}.log", timeout_s)
        run.phases[phase] = time.perf_counter() - start
        if not error and phase == "docs":
            error = check_catalog(project_dir)
        if error:
            run.error, run.failed_phase = error, phase
            return run
    if not run_link:
        return run
    return link_project(project_dir, logs, timeout_s, run=run)


def link_project(project_dir: Path, logs: Path, timeout_s: float = 1800, extra_args: tuple[str, ...] = (),
                 run: ProductRun | None = None) -> ProductRun:
    """Only the link phase, on a project that `run_product(..., run_link=False)` prepared
    (deps and docs done): `dbt-schema-link link --format json --quiet [extra_args]`, then read
    links.json. `run`: a record to add the phase to (else a fresh one)."""
    run = ProductRun() if run is None else run
    logs.mkdir(parents=True, exist_ok=True)
    common = ["--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
    cmd = [tool("dbt-schema-link"), "link", *common, "--format", "json", "--quiet", *extra_args]
    start = time.perf_counter()
    error = _run(cmd, project_dir, logs / "link.log", timeout_s)
    run.phases["link"] = time.perf_counter() - start
    if error:
        run.error, run.failed_phase = error, "link"
        return run

    links_path = project_dir / "target" / "schema_link" / "links.json"
    if not links_path.exists():
        run.error, run.failed_phase = f"{links_path} was not written", "link"
        return run
    run.links_path = str(links_path)
    try:
        run.pairs = found_pairs(json.loads(links_path.read_text(encoding="utf-8")))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        run.error, run.failed_phase = f"could not read {links_path}: {exc!r}", "parse"
    return run
