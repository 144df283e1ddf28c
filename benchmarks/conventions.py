#!/usr/bin/env python
"""Convention-robustness benchmark: does join discovery hold when the names follow another convention?

What is measured
    The 22 dev databases of fk_recovery.py (`../shared/data`), each rewritten under naming
    conventions (convbench/naming.py: original, table_prefixed, glued, camel, upper_snake,
    abbreviated, kimball, hungarian, non_english, opaque; tpch on request). Relations and columns
    are renamed consistently, values are unchanged, and the declared FKs, renamed, are the truth.
    Per convention and per half of the fixed split (convbench/split.py: a tuning half and a
    held-back half): recall, precision and lenient precision (fkbench's scoring, micro-averaged),
    then a reliability table: found links per confidence bin and the share that are declared FKs.

How
    Per convention and database, in `<workdir>/<convention>/<db>/`: the renamed SQLite copy, then
    exactly what fk_recovery.py does with a database (fkbench): a DuckDB file, a dbt project with
    every table as a source (no FKs, no tests), `dbt deps`, `dbt docs generate`, then
    `dbt-schema-link link --format json --quiet`, links.json read by fkbench.product. The renamed
    copy, the DuckDB file and the dbt project are reused while their inputs are unchanged, so a
    rerun after an engine change is only the link commands (`--rebuild` makes everything again).

Usage
    python benchmarks/conventions.py [--conventions C ...] [--only DB ...] [--jobs 2]
        [--workdir DIR] [--json OUT] [--rebuild] [--prepare-only] [--score-only] [--resume]
        [--link-args "ARGS"] [--refresh-profiles] [--reliability-conventions C ...]
        [--dump-candidates OUT.jsonl] [--seed N] [--engine DIR | --engine-ref REF]

Exit status: 0 all ran, 1 some task failed (see the JSON and stderr), 2 no data / bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path

from convbench import report, split
from convbench.naming import DEFAULT_CONVENTIONS, DEFAULT_SEED, Convention
from convbench.runner import GENERATOR_VERSION, RunOptions, TaskResult, run_task
from fkbench import databases, product

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"
DEFAULT_WORKDIR = BENCH_DIR / "out" / "conventions"  # git-ignored


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    names = [c.value for c in Convention]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"benchmark data folder (default {DEFAULT_DATA})")
    p.add_argument("--conventions", nargs="+", choices=names, metavar="C",
                   help=f"conventions to run (default: {' '.join(c.value for c in DEFAULT_CONVENTIONS)}; "
                        f"all: {' '.join(names)})")
    p.add_argument("--only", nargs="+", metavar="DB", help="only these databases (folder names)")
    p.add_argument("--half", choices=[h.value for h in split.Half], help="only the databases of this half")
    p.add_argument("--jobs", type=int, default=2, help="tasks (convention x database) in parallel (default 2)")
    p.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help=f"scratch folder (default {DEFAULT_WORKDIR})")
    p.add_argument("--json", type=Path, metavar="OUT",
                   help="also write the results here (always written to <workdir>/results.json)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"renaming seed (default {DEFAULT_SEED})")
    p.add_argument("--rebuild", action="store_true",
                   help="regenerate, reload and re-prepare every project even when nothing changed")
    p.add_argument("--prepare-only", action="store_true", help="make the renamed databases and dbt projects; no link")
    p.add_argument("--score-only", action="store_true", help="run nothing: score the links.json of the last run")
    p.add_argument("--resume", action="store_true",
                   help="keep the links.json of tasks already linked with the same engine directory and link "
                        "arguments (finish an interrupted run); others run as usual")
    p.add_argument("--link-args", default="", metavar="ARGS",
                   help='extra arguments for `dbt-schema-link link`, one string (e.g. "--set min_confidence=0.2")')
    p.add_argument("--refresh-profiles", action="store_true",
                   help="pass --refresh to link: profile again (after a change to profiling)")
    engine = p.add_mutually_exclusive_group()
    engine.add_argument("--engine", type=Path, metavar="DIR",
                        help="measure the package (Python and macros) of this checkout instead of this working tree")
    engine.add_argument("--engine-ref", metavar="REF",
                        help="measure this git revision of this repository (git archive into <workdir>/engines/<sha>), "
                             "e.g. HEAD while the working tree is being edited")
    p.add_argument("--reliability-conventions", nargs="+", choices=names, metavar="C",
                   help="conventions pooled in the reliability table (default: all that ran)")
    p.add_argument("--dump-candidates", type=Path, metavar="OUT.jsonl",
                   help="write every found link with its evidence vector, and every trap-rejected candidate, "
                        "labelled against the declared FKs (one JSON object a line)")
    args = p.parse_args(argv)
    if args.prepare_only and args.score_only:
        p.error("--prepare-only and --score-only exclude each other")
    return args


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def select(args: argparse.Namespace) -> list[databases.BenchDatabase]:
    found = databases.discover(args.data)
    if args.only:
        by_name = {db.name.lower(): db for db in found}
        unknown = [n for n in args.only if n.lower() not in by_name]
        if unknown:
            raise SystemExit(f"error: unknown database(s) {unknown}; available: {sorted(db.name for db in found)}")
        found = [by_name[n.lower()] for n in args.only]
    if args.half:
        found = [db for db in found if split.half_of(db.name) is split.Half(args.half)]
    return found


def brief(r: TaskResult) -> str:
    if r.error:
        return "ERROR " + " ".join(r.error.split())[:300]
    if r.run is None:
        return "-"
    if r.run.error:
        return f"ERROR in {r.run.failed_phase}: " + " ".join(r.run.error.split())[:300]
    s = report.task_score(r)
    made = ("generated, " if r.generated else "") + ("prepared, " if r.prepared else "reused, ")
    if r.reused_links:
        made = "kept links.json, "
    if s is None:
        return f"{made}{r.run.total_seconds:.1f}s"
    return (f"{made}found {s.found}, TP {s.tp}/{s.gold}, link {r.run.seconds:.1f}s"
            + (f", total {r.run.total_seconds:.1f}s" if r.prepared else ""))


def run_all(dbs, conventions, opts: RunOptions, jobs: int) -> list[TaskResult]:
    tasks = [(conv, db) for conv in conventions for db in dbs]
    out: dict[tuple[str, str], TaskResult] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(run_task, db, conv, opts): (conv, db) for conv, db in tasks}
        for n, future in enumerate(as_completed(futures), 1):
            conv, db = futures[future]
            try:
                r = future.result()
            except Exception as exc:  # the harness broke on one task: record it, go on
                log(f"{conv.value}/{db.name}: harness error\n{traceback.format_exc()}")
                r = TaskResult(db.name, db.collection, conv, split.half_of(db.name), error=f"harness error: {exc!r}")
            out[(conv.value, db.name)] = r
            log(f"[{n}/{len(tasks)}] {conv.value}/{db.name}: {brief(r)}")
    return [out[(conv.value, db.name)] for conv, db in tasks]


def engine_dir(args: argparse.Namespace, workdir: Path) -> Path:
    """The checkout whose package is measured; its Python package goes first on PYTHONPATH of
    every dbt and dbt-schema-link process, and the dbt projects install its macros."""
    if args.engine:
        root = args.engine.resolve()
    elif args.engine_ref:
        sha = subprocess.run(["git", "rev-parse", "--verify", args.engine_ref + "^{commit}"], cwd=REPO_ROOT,
                             capture_output=True, text=True)
        if sha.returncode != 0:
            raise SystemExit(f"error: --engine-ref {args.engine_ref}: not a revision of {REPO_ROOT}")
        root = workdir / "engines" / sha.stdout.strip()[:12]
        if not (root / "dbt_schema_link").is_dir():
            tmp = root.with_name(root.name + ".tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            archive = subprocess.run(["git", "archive", sha.stdout.strip()], cwd=REPO_ROOT, capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
            tmp.replace(root)
    else:
        root = REPO_ROOT  # the tree the benchmark lives in, not the venv's installed package
    if not (root / "dbt_schema_link" / "__init__.py").exists() or not (root / "dbt_project.yml").exists():
        raise SystemExit(f"error: --engine {root}: not a dbt-schema-link checkout (no dbt_schema_link/ or dbt_project.yml)")
    product.measure_tree(root)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    missing = databases.missing_data(args.data)
    if missing:
        log(missing)
        return 2
    try:
        dbs = select(args)
    except SystemExit as exc:
        log(str(exc))
        return 2
    if not dbs:
        log("error: no database selected (check --only and --half)")
        return 2
    conventions = [Convention(c) for c in args.conventions] if args.conventions else list(DEFAULT_CONVENTIONS)
    link_args = tuple(shlex.split(args.link_args)) + (("--refresh",) if args.refresh_profiles else ())
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        engine = engine_dir(args, workdir)
    except SystemExit as exc:
        log(str(exc))
        return 2
    log(f"engine: {engine}")
    opts = RunOptions(repo_root=engine, workdir=workdir, seed=args.seed, rebuild=args.rebuild,
                      prepare_only=args.prepare_only, score_only=args.score_only, resume=args.resume,
                      link_args=link_args)

    start = time.perf_counter()
    results = run_all(dbs, conventions, opts, args.jobs)
    wall = time.perf_counter() - start

    g = report.grid(results)
    pooled = set(args.reliability_conventions or [c.value for c in conventions])
    scope = "all conventions that ran" if not args.reliability_conventions else ", ".join(sorted(pooled))
    labelled = [x for x in report.labelled_links(results) if x.result.convention.value in pooled]
    rel = report.reliability(labelled)
    if not args.prepare_only:
        print(report.render_grid(g))
        print()
        print(report.render_reliability(rel, scope))
    print(f"\n{len(conventions)} conventions x {len(dbs)} databases, {wall:.1f}s wall with --jobs {args.jobs}; "
          f"work dir {args.workdir}")

    doc = {
        "benchmark": "conventions",
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "data_dir": str(args.data.resolve()), "seed": args.seed, "generator_version": GENERATOR_VERSION,
        "engine": str(engine), "link_args": list(link_args), "jobs": args.jobs, "wall_seconds": round(wall, 3),
        "cpu_count": os.cpu_count(), "split": {"tuning": list(split.TUNING), "held_back": list(split.HELD_BACK)},
        "grid": {conv.value: {k: c.to_dict() for k, c in cells.items()} for conv, cells in g.items()},
        "reliability": {"conventions": sorted(pooled), "bins": rel},
        "tasks": [report.task_dict(r) for r in results],
    }
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    (workdir / "results.json").write_text(text, encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text, encoding="utf-8")
        print(f"wrote {args.json}")
    if args.dump_candidates:
        rows = report.candidate_rows(results)
        args.dump_candidates.parent.mkdir(parents=True, exist_ok=True)
        with args.dump_candidates.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"wrote {len(rows)} candidates to {args.dump_candidates}")
    failed = any(not r.ok for r in results) and not args.prepare_only
    failed = failed or any(r.error or (r.run and r.run.error) for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
