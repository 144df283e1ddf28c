#!/usr/bin/env python
"""SaaS benchmark: which joins of eight real SaaS connector schemas does dbt-schema-link find?

What is measured
    The source tables of eight Fivetran connector packages with their integration-test rows
    (`../shared/data/saas_dev/<pkg>/seeds/*.csv`) and the joins each package's own SQL makes,
    traced to source columns (`<pkg>/truth.json`: 295 labels, `fk` or `sibling`). Per package,
    per half of a fixed tuning / held-back split by package (saasbench/split.py) and overall:
    links found; recall over all labels, over labels whose child column has values, and over
    data-confirmed labels (child non-empty, every child value in the parent); precision strict
    (a found link is a label) and with allowance (also an unlabelled link whose parent is a key
    its child's name designates, or two children of one labelled parent; saasbench/scoring.py);
    precision by confidence band and at the write bar (0.7); found links whose child column is
    all NULL; seconds of the link command.

How
    Per package, in `<workdir>/<pkg>/` (the dbt project itself): every seed loaded into
    `warehouse.duckdb` with `read_csv_auto(header=true)` as `<pkg>.<stem>`, every table declared
    as a source (no tests, no descriptions), `packages.yml` with `- local: <this repository>`,
    `dbt deps`, `dbt docs generate`, then
    `dbt-schema-link link --project-dir P --profiles-dir P --format json --quiet` and
    `P/target/schema_link/links.json` read by fkbench.product (lineage links are not joins).
    With `--reuse` a project whose seeds are unchanged keeps its warehouse and docs: only `link`
    runs (what to use while changing discovery code).

Usage
    python benchmarks/saas.py [--data ../shared/data] [--only PKG ...] [--json OUT]
        [--workdir DIR] [--jobs 1] [--reuse] [--prepare-only] [--link-args "ARGS"]

Exit status: 0 all ran, 1 some package failed (its row shows ERR), 2 no data / bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path

from fkbench import product
from fkbench.databases import select_named
from saasbench import labels, project, report, scoring, split
from saasbench.report import PackageResult

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"
DEFAULT_WORKDIR = BENCH_DIR / "out" / "saas"  # git-ignored


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"benchmark data folder (default {DEFAULT_DATA})")
    p.add_argument("--only", nargs="+", metavar="PKG", help="only these packages (folder names under saas_dev/)")
    p.add_argument("--json", type=Path, metavar="OUT",
                   help="write every found link with its verdict, every missed label and the totals here")
    p.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help=f"scratch folder (default {DEFAULT_WORKDIR})")
    p.add_argument("--jobs", type=int, default=1, help="packages in parallel (default 1: clean timings)")
    p.add_argument("--reuse", action="store_true",
                   help="keep a project whose warehouse and docs exist and whose seeds are unchanged: only rerun link")
    p.add_argument("--prepare-only", action="store_true",
                   help="build the warehouses and dbt projects (deps, docs generate) but do not run link")
    p.add_argument("--link-args", default="", metavar="ARGS",
                   help='extra arguments for `dbt-schema-link link`, one string (e.g. "--set min_confidence=0.2")')
    return p.parse_args(argv)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def select_packages(data_dir: Path, only: list[str] | None) -> list[labels.Package]:
    return select_named(labels.discover(data_dir), only, "package")


def run_one(package: labels.Package, args: argparse.Namespace) -> PackageResult:
    result = PackageResult(package.name, split.half_of(package.name), labels.read_labels(package.dir / "truth.json"))
    result.run = project.run_package(package, args.workdir.resolve(), REPO_ROOT, reuse=args.reuse,
                                     prepare_only=args.prepare_only, link_args=tuple(shlex.split(args.link_args)),
                                     log=log)
    if result.run.error or result.run.links_path is None:
        return result
    result.links_path = str(result.run.links_path)
    found = product.found_links(json.loads(result.run.links_path.read_text(encoding="utf-8")))
    null = project.all_null_columns(args.workdir.resolve() / package.name / "warehouse.duckdb", package.name,
                                    [link.child for link in found])
    result.links = scoring.judge(found, result.labels, null)
    return result


def run_all(packages: list[labels.Package], args: argparse.Namespace) -> list[PackageResult]:
    done: dict[str, PackageResult] = {}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_one, p, args): p for p in packages}
        for future in as_completed(futures):
            p = futures[future]
            try:
                done[p.name] = future.result()
            except Exception as exc:  # the harness broke on one package: record it, go on
                log(f"{p.name}: harness error\n{traceback.format_exc()}")
                r = PackageResult(p.name, split.half_of(p.name), labels.read_labels(p.dir / "truth.json"))
                r.run.error = f"harness error: {exc!r}"
                done[p.name] = r
            log(f"{p.name}: {brief(done[p.name])}")
    return [done[p.name] for p in packages]


def brief(r: PackageResult) -> str:
    if r.run.error:
        return "ERROR " + " ".join(r.run.error.split())[:400]
    if r.links is None:
        return f"prepared in {sum(r.run.phases.values()):.1f}s" + (" (reused)" if r.run.reused else "")
    return f"found {len(r.links)} in {r.run.link_seconds or 0.0:.1f}s" + (" (project reused)" if r.run.reused else "")


def commit_of(root: Path) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def to_json(results: list[PackageResult], args: argparse.Namespace, wall: float) -> dict:
    return {
        "benchmark": "saas",
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": commit_of(REPO_ROOT),
        "data_dir": str(args.data.resolve()), "jobs": args.jobs, "reuse": args.reuse,
        "link_args": shlex.split(args.link_args), "wall_seconds": round(wall, 3), "cpu_count": os.cpu_count(),
        "split": {"tuning": list(split.TUNING), "held_back": list(split.HELD_BACK)},
        "write_bar": scoring.WRITE_BAR,
        "packages": [r.to_dict() for r in results],
        "totals": report.totals(results),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    missing = labels.missing_data(args.data)
    if missing:
        log(missing)
        return 2
    try:
        packages = select_packages(args.data, args.only)
    except SystemExit as exc:
        log(str(exc))
        return 2
    product.measure_tree(REPO_ROOT)  # the CLI of this tree, not the venv's installed one
    args.workdir.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    results = run_all(packages, args)
    wall = time.perf_counter() - start

    print(report.render_table(results))
    if not args.prepare_only:
        print()
        print(report.render_bands(results))
    print(f"\n{len(results)} packages, {wall:.1f}s wall with --jobs {args.jobs}; work dir {args.workdir}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(to_json(results, args, wall), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 1 if any(r.run.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
