#!/usr/bin/env python
"""Join discovery benchmark: how many declared foreign keys does dbt-schema-link recover?

What is measured
    22 real SQLite databases with declared foreign keys (19 Spider dev, Chinook, Northwind, BIRD
    superhero; `../shared/data`). The ground truth is every declared FK column pair
    (`PRAGMA foreign_key_list`, an implicit parent column resolved to the parent's primary key),
    unordered and case-insensitive. For each database the FKs are taken away and the tool has to
    find the joins again. Scores: precision, lenient precision (a link between two FK columns
    that reference the same parent column also counts: it is a real join path), recall, F1, and
    wall time. Totals are micro-averaged (TP/FP/FN summed over the databases).

How
    dbt-schema-link: each database is copied into a DuckDB file (one schema named after it, no
    primary or foreign keys, types mapped from the SQLite declarations), a dbt project with every
    table as a source (no tests, no descriptions) is written under the work dir, then
    `dbt deps`, `dbt docs generate` and the product end to end through its CLI:
    `dbt-schema-link link --project-dir P --format json --quiet`. Found links are read from
    `P/target/schema_link/links.json` (`found_pairs` in fkbench/product.py; lineage links are
    not joins and are left out). "seconds" is the link command, "total" adds load, deps, docs.

    schema-linker 0.0.5 (the predecessor, from PyPI, in its own virtual environment under the
    work dir): run with its CLI on a SQLite copy whose tables were recreated without FOREIGN KEY
    clauses (primary and unique keys kept). Its Markdown report groups columns by shared value
    domain; every pair inside a group is a found link (see fkbench/peer.py). Its raw pairwise
    links are scored too ("edges" line).

Usage
    python benchmarks/fk_recovery.py [--data ../shared/data] [--only NAME ...] [--json OUT]
        [--workdir DIR] [--jobs 2] [--no-peer] [--no-product] [--prepare-only]

Exit status: 0 all ran, 1 a tool failed on some database (its row shows ERR), 2 no data / bad
arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path

from fkbench import databases, peer, product, report
from fkbench.report import DatabaseResult

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"
DEFAULT_WORKDIR = BENCH_DIR / "out"  # git-ignored


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"benchmark data folder (default {DEFAULT_DATA})")
    p.add_argument("--only", nargs="+", metavar="NAME", help="only these databases (folder names)")
    p.add_argument("--json", type=Path, metavar="OUT", help="write per-database and total figures here")
    p.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help=f"scratch folder (default {DEFAULT_WORKDIR})")
    p.add_argument("--jobs", type=int, default=2, help="databases run in parallel (default 2; use 1 for clean timings)")
    p.add_argument("--no-peer", action="store_true", help="do not run schema-linker 0.0.5")
    p.add_argument("--no-product", action="store_true", help="do not run dbt-schema-link")
    p.add_argument("--prepare-only", action="store_true",
                   help="build the DuckDB files and dbt projects (deps, docs generate) but do not run the product")
    return p.parse_args(argv)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def select_databases(data_dir: Path, only: list[str] | None) -> list[databases.BenchDatabase]:
    return databases.select_named(databases.discover(data_dir), only, "database")


def run_peer(db: databases.BenchDatabase, workdir: Path, peer_python: Path) -> peer.PeerRun:
    copy = workdir / db.name / "peer" / f"{db.name}.sqlite"
    peer.strip_foreign_keys(db.path, copy)
    return peer.run_peer(peer_python, copy, workdir / db.name / "peer" / "out")


def run_product(db: databases.BenchDatabase, workdir: Path, prepare_only: bool) -> product.ProductRun:
    return product.run_product(db, workdir / db.name, REPO_ROOT, run_link=not prepare_only)


def in_parallel(task, dbs: list[databases.BenchDatabase], jobs: int, label: str) -> dict[str, object]:
    """{db name: task(db) or the exception it raised}, `jobs` databases at a time."""
    out: dict[str, object] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(task, db): db for db in dbs}
        for future in as_completed(futures):
            db = futures[future]
            try:
                out[db.name] = future.result()
            except Exception as exc:  # the harness broke on one database: record it, go on
                log(f"{label} {db.name}: harness error\n{traceback.format_exc()}")
                out[db.name] = exc
            log(f"{label} {db.name}: {brief(out[db.name])}")
    return out


def brief(run: object) -> str:
    if isinstance(run, Exception):
        return f"harness error {run!r}"
    if run.error:
        return "ERROR " + " ".join(run.error.split())[:400]
    if isinstance(run, product.ProductRun) and not run.links_path:
        return f"prepared in {run.total_seconds:.1f}s"
    return f"found {len(run.pairs)} in {run.seconds:.1f}s"


def run_all(dbs: list[databases.BenchDatabase], args: argparse.Namespace, peer_python: Path | None) -> list[DatabaseResult]:
    """The peer on every database first, then the product, so the two never compete for CPU."""
    workdir = args.workdir.resolve()
    results = [DatabaseResult(db.name, db.collection, databases.ground_truth(db.path)) for db in dbs]
    if peer_python is not None:
        runs = in_parallel(lambda db: run_peer(db, workdir, peer_python), dbs, args.jobs, "schema-linker")
        for r in results:
            run = runs[r.name]
            if isinstance(run, Exception):
                run = peer.PeerRun(error=f"harness error: {run!r}")
            r.peer, r.peer_edges = report.peer_results(run, r.truth)
    if not args.no_product:
        runs = in_parallel(lambda db: run_product(db, workdir, args.prepare_only), dbs, args.jobs, "dbt-schema-link")
        for r in results:
            run = runs[r.name]
            if isinstance(run, Exception):
                run = product.ProductRun(error=f"harness error: {run!r}")
            r.product = report.product_result(run, r.truth, prepare_only=args.prepare_only)
    return results


def summary_lines(results: list[DatabaseResult]) -> list[str]:
    lines = []
    for label, attr in (("dbt-schema-link", "product"), ("schema-linker 0.0.5 report", "peer"),
                        ("schema-linker 0.0.5 edges", "peer_edges")):
        t = report.totals(results, attr)
        if not t or not t["score"]:
            continue
        s = t["score"]
        f = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
        lines.append(f"{label:28} P {f(s['precision'])}  lenient P {f(s['lenient_precision'])}  "
                     f"R {f(s['recall'])}  F1 {f(s['f1'])}  (TP {s['tp']} FP {s['fp']} FN {s['fn']})  "
                     f"{t['seconds']:.1f}s" + (f", {t['total_seconds']:.1f}s with load/deps/docs"
                                                if attr == "product" else "")
                     + (f"  [{t['failed']} of {t['databases']} failed]" if t["failed"] else ""))
    return lines


def to_json(results: list[DatabaseResult], args: argparse.Namespace, wall: float) -> dict:
    return {
        "benchmark": "fk_recovery",
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "data_dir": str(args.data.resolve()),
        "jobs": args.jobs, "wall_seconds": round(wall, 3), "cpu_count": os.cpu_count(),
        "peer": peer.PEER_SPEC,
        "databases": [r.to_dict() for r in results],
        "totals": {attr: report.totals(results, attr) for attr in ("product", "peer", "peer_edges")},
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    missing = databases.missing_data(args.data)
    if missing:
        log(missing)
        return 2
    if args.no_peer and args.no_product:
        log("error: --no-peer and --no-product leave nothing to run")
        return 2
    product.measure_tree(REPO_ROOT)  # the CLI of this tree, not the venv's installed one
    try:
        dbs = select_databases(args.data, args.only)
    except SystemExit as exc:
        log(str(exc))
        return 2
    args.workdir.mkdir(parents=True, exist_ok=True)
    peer_python = None if args.no_peer else peer.ensure_peer(args.workdir.resolve() / "peer-venv", log)

    start = time.perf_counter()
    results = run_all(dbs, args, peer_python)
    wall = time.perf_counter() - start

    print(report.render_table(results))
    print()
    for line in summary_lines(results):
        print(line)
    print(f"\n{len(results)} databases, {wall:.1f}s wall with --jobs {args.jobs}; work dir {args.workdir}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(to_json(results, args, wall), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    failed = any(t is not None and t.error for r in results for t in (r.product, r.peer))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
