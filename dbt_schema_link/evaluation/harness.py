"""Evaluation harness: benchmark → dbt-duckdb project → `dbt docs generate` → the product's own
index → batch linking → metrics. Used by `benchmarks/question_linking.py` (and an `eval` command).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Callable, Sequence

from dbt_schema_link.dbt_runner import find_dbt
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.evaluation.convert import (
    DatabaseSpec,
    add_bird_descriptions,
    add_spider_names,
    read_tables_json,
    write_project,
)
from dbt_schema_link.evaluation.gold import gold_columns
from dbt_schema_link.evaluation.metrics import QuestionResult, Summary, summarize  # noqa: F401 (re-exported)
from dbt_schema_link.linker.service import LinkSession
from dbt_schema_link.profiling.options import ProfileOptions

Progress = Callable[[str], None]
REPO = Path(__file__).resolve().parents[2]


class JoinSource(str, Enum):
    """Where the index's join graph comes from."""

    DECLARED = "declared"  # the benchmark's FKs written as relationships tests (a perfect graph)
    INFERRED = "inferred"  # the user path: sources without tests, `dbt-schema-link link` infers joins


@dataclass
class Question:
    id: str
    db: str
    question: str
    sql: str
    hint: str | None = None


@dataclass
class Benchmark:
    name: str
    specs: list[DatabaseSpec]
    questions: list[Question]
    notes: list[str] = field(default_factory=list)


def dbt_executable() -> str:
    return find_dbt()


def dbt_version() -> str:
    try:
        from importlib.metadata import version

        return version("dbt-core")
    except Exception:  # noqa: BLE001
        return "1.11.0"


def run_dbt(project_dir: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1"})
    cmd = [dbt_executable(), *args, "--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=project_dir)
    if res.returncode != 0:
        tail = (res.stdout + res.stderr).strip().splitlines()[-15:]
        raise SchemaLinkError(f"`dbt {' '.join(args)}` failed in {project_dir}: " + " | ".join(tail))


def spider_benchmark(data_dir: Path, questions_file: str = "dev.json", name: str = "spider_dev",
                     descriptions: bool = True) -> Benchmark:
    root = Path(data_dir) / "spider_dev"
    specs = read_tables_json(root / "tables.json", root / "database")
    if descriptions:
        for s in specs:
            add_spider_names(s)
    raw = json.loads((root / questions_file).read_text(encoding="utf-8"))
    qs = [Question(f"{name}-{i}", q["db_id"], q.get("SpiderSynQuestion") or q["question"], q["query"])
          for i, q in enumerate(raw)]
    return Benchmark(name, specs, qs)


def bird_benchmark(data_dir: Path, db: str = "superhero", hints: bool = True) -> Benchmark:
    root = Path(data_dir) / f"bird_{db}"
    specs = read_tables_json(root / "tables.json", root)
    for s in specs:
        add_bird_descriptions(s, root / s.db_id / "database_description")
    raw = json.loads((root / "questions.json").read_text(encoding="utf-8"))
    qs = [Question(str(q.get("question_id", i)), q["db_id"], q["question"], q["SQL"],
                   (q.get("evidence") or None) if hints else None) for i, q in enumerate(raw)]
    return Benchmark(f"bird_{db}" + ("_hints" if hints else ""), specs, qs)


def prepare_project(bench: Benchmark, work_dir: Path, reuse: bool = True, progress: Progress | None = None,
                    profile: ProfileOptions | None = None, joins: JoinSource = JoinSource.DECLARED) -> Path:
    """Write the dbt project for a benchmark and generate its manifest + catalog.

    DECLARED: FKs as relationships tests; with `profile`, also profiled through the product
    (`dbt-schema-link profile`), which gives the index its sample values.
    INFERRED: the path the README gives users: sources without tests, then `dbt-schema-link link`
    (its own profiling with default options, inference, verification) writes links.json."""
    out = Path(work_dir)
    marker = out / ".prepared.json"
    digest = json.dumps({"dbs": sorted(s.db_id for s in bench.specs), "v": 4, "joins": joins.value,
                         "profile": profile.macro_args() if profile and joins is JoinSource.DECLARED else None,
                         "desc": sorted((s.db_id, t.name, sorted(t.descriptions.items()))
                                        for s in bench.specs for t in s.tables)}, sort_keys=True, default=str)
    if reuse and marker.exists() and marker.read_text(encoding="utf-8") == digest \
            and (out / "target" / "catalog.json").exists():
        return out
    if out.exists():
        shutil.rmtree(out)
    t = time.perf_counter()
    inferred = joins is JoinSource.INFERRED
    write_project(bench.specs, out, project_name=f"eval_{bench.name.split('_')[0]}", dbt_version=dbt_version(),
                  package_dir=REPO if (profile or inferred) else None, declared_tests=not inferred)
    if profile is not None or inferred:
        run_dbt(out, "deps")
    run_dbt(out, "docs", "generate")
    if inferred:
        run_link(out)
    elif profile is not None:
        from dbt_schema_link import api
        from dbt_schema_link.dbt_runner import DbtInvocation
        from dbt_schema_link.project_config import locate

        paths = locate(out)
        inv = DbtInvocation(project_dir=paths.project_dir, profiles_dir=paths.project_dir, target=None,
                            dbt_executable=dbt_executable())
        run = api.profile(paths, inv, profile)
        if run.profiles.failures:
            raise SchemaLinkError(f"profiling {bench.name} failed for {len(run.profiles.failures)} relation(s): "
                                  f"{run.profiles.failures[0].message}")
    marker.write_text(digest, encoding="utf-8")
    if progress:
        progress(f"{bench.name} ({joins.value}): dbt project with {len(bench.specs)} schema(s) ready in "
                 f"{time.perf_counter() - t:.1f}s")
    return out


def run_link(project_dir: Path) -> None:
    """`dbt-schema-link link` exactly as a user runs it (default settings), through the CLI."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1"})
    # the package this harness belongs to, not the one the venv installed (another checkout's, editable)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in [env.get("PYTHONPATH")] if p])
    cmd = [sys.executable, "-m", "dbt_schema_link", "link", "--project-dir", str(project_dir),
           "--profiles-dir", str(project_dir), "--format", "json", "--quiet"]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=project_dir)
    if res.returncode != 0:
        tail = res.stderr.strip().splitlines()[-8:]
        raise SchemaLinkError(f"`dbt-schema-link link` failed in {project_dir}: " + " | ".join(tail))


def evaluate(session: LinkSession, bench: Benchmark, restrict_db: bool, name: str | None = None,
             dbs: Sequence[str] | None = None) -> tuple[Summary, list[QuestionResult]]:
    """Link every question in batch mode and score it against the gold SQL."""
    specs = {s.db_id: s for s in bench.specs}
    items, golds, unresolved, partial = [], {}, 0, 0
    for q in bench.questions:
        if dbs is not None and q.db not in dbs:
            continue
        spec = specs[q.db]
        gold = gold_columns(q.sql, spec.schema_map(source=True))
        renamed = spec.renamed()
        if renamed:  # a variant renamed columns: the gold SQL names them as the source does
            gold.columns = {(t, renamed.get((t, c), c)) for t, c in gold.columns}
        if not gold.ok or (not gold.tables):
            unresolved += 1
            continue
        if gold.unresolved:
            partial += 1
        golds[q.id] = (q, gold)
        items.append({"id": q.id, "question": q.question, "hint": q.hint, "db": q.db if restrict_db else None})
    results = []
    for ans in session.ask_many(items):
        q, gold = golds[ans.id]
        results.append(QuestionResult(
            id=q.id, db=q.db, gold=gold,
            predicted_columns=ans.column_names(),
            predicted_tables={r.name.lower() for r in ans.relations},
            predicted_db=ans.group.schema if ans.group else None,
            latency_ms=ans.latency_ms, tokens=ans.tokens, spans=len(ans.spans),
        ))
    summary = summarize(name or bench.name, results, unresolved, partial, localization=not restrict_db)
    return summary, results
