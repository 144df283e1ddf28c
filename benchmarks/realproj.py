#!/usr/bin/env python
"""Real-project benchmark: the path a user runs, on eleven real dbt projects (issue #61).

What is measured
    The user loop of the README ("Use it on your project"), command by command, on
    - three real dbt projects (`../shared/data/dbt_projects/`: jaffle_shop, adventureworks_kimball,
      synthea_omop), judged by their `labels.json` (records child/parent/child_node/parent_node
      with a verdict true / false / doubtful);
    - the eight SaaS connector packages of `../shared/data/saas_dev/` built as layered package
      projects (staging `_tmp` views, staging, intermediate and mart models over the seeds; the dbt
      project is `<pkg>/package/integration_tests/`), judged by `<pkg>/truth.json`, whose labels
      name SOURCE columns: a found link between models is traced back to source columns through
      the lineage links of links.json (renames such as `id` -> `<entity>_id` included) and judged
      on those (realbench/judge.py; a side that traces to no source column is unjudged, and the
      count of unjudged links is shown beside every precision).
    Per project, per half of a fixed tuning / held-back split (realbench/split.py; the SaaS half
    is saasbench's), for the dbt projects and the SaaS packages apart, and overall: discovered
    links by confidence band (<0.5, 0.5-0.7, 0.7-0.9, 0.9-1.0) with their verdicts and share true
    (unjudged shown apart), precision at the write bar 0.7, recall of labelled joins (by any link,
    and of those no declared link covers by a discovered link), the written tests' statuses
    (PASS / WARN / ERROR / FAIL), `link --check` green or red with its lines, join links and
    written tests on `_tmp` pass-through views (should be 0), and seconds of `link`, the second
    `link`, `link --check` and `index`. Figures are printed, never asserted.

How
    Each project is copied into the work dir with its `_deps` beside it (the data stays read only;
    a DuckDB profiles.yml is written where the project has none), then, from its project folder
    (realbench/loop.py): dbt deps, seed, build (synthea: data tests excluded, its 49 known failing
    relationships tests; SaaS: dbt run), docs generate; `dbt-schema-link init --profiles-dir .`
    (packages.yml must then point at this checkout: the CLI runs as `python -m dbt_schema_link`
    with this tree first on PYTHONPATH, and `init` pins the dbt package of the checkout it runs
    from), `link` (timed, scored), `write`, `dbt test -s tag:schema_link`, `link` again, `link
    --check`, `index`. Logs and both links.json in `<workdir>/bench/<project>/`.
    `--reuse` keeps a project built from unchanged data (the project's files, manifest and catalog
    put back as they were after `docs generate`) and reruns only the dbt-schema-link steps;
    `--skip-build` does the same with whatever built project is there, without comparing the data.

Usage
    python benchmarks/realproj.py [--data ../shared/data] [--only NAME ...] [--json OUT]
        [--workdir DIR] [--reuse] [--skip-build] [--link-args "ARGS"]

Exit status: 0 all ran, 1 some project failed (a step that must pass did not; its row shows ERR),
2 no data / bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

from fkbench import product
from fkbench.databases import select_named
from realbench import judge, links, loop, projects, report, split
from realbench.projects import RealProject
from realbench.report import ProjectResult
from saas import commit_of
from saasbench import labels as saas_labels

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"
DEFAULT_WORKDIR = BENCH_DIR / "out" / "realproj"  # git-ignored


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"benchmark data folder (default {DEFAULT_DATA})")
    p.add_argument("--only", nargs="+", metavar="NAME", help="only these projects (jaffle_shop, hubspot, ...)")
    p.add_argument("--json", type=Path, metavar="OUT", help="write every scored link, step and total here")
    p.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help=f"scratch folder (default {DEFAULT_WORKDIR})")
    p.add_argument("--reuse", action="store_true",
                   help="keep a project built from unchanged data: only rerun the dbt-schema-link steps")
    p.add_argument("--skip-build", action="store_true",
                   help="never build: use the built project in the work dir as it is (fails where there is none)")
    p.add_argument("--link-args", default="", metavar="ARGS",
                   help='extra arguments for every `dbt-schema-link link`, e.g. "--set min_confidence=0.6"')
    return p.parse_args(argv)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def make_judge(project: RealProject, links_doc: dict,
               manifest: dict) -> tuple[judge.Judge, dict[str, int], list[str]]:
    """The project's judge, its label counts, and notes on how it reads the project."""
    if project.family == "dbt":
        records = judge.read_records(project.labels)
        counts: dict[str, int] = {}
        for r in records:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        return judge.DbtJudge(records), dict(sorted(counts.items())), []
    labels = saas_labels.read_labels(project.labels)
    tables = judge.source_tables(manifest)
    seeds = [uid for uid in tables if uid.startswith("seed.")]
    kinds: dict[str, int] = {}
    for label in labels:
        kinds[label.kind] = kinds.get(label.kind, 0) + 1
    notes = [f"{len(seeds)} seeds mapped to source tables"]
    return judge.SaasJudge(labels, links.lineage_map(links_doc), tables), dict(sorted(kinds.items())), notes


def run_one(project: RealProject, args: argparse.Namespace) -> ProjectResult:
    workdir = args.workdir.resolve()
    result = ProjectResult(project.name, project.family, split.half_of(project.name))
    result.run = loop.run_loop(project, workdir, REPO_ROOT, reuse=args.reuse, skip_build=args.skip_build,
                               link_args=tuple(shlex.split(args.link_args)), log=log)
    if result.run.links1 is None:
        return result
    doc = json.loads(result.run.links1.read_text(encoding="utf-8"))
    # the manifest as `docs generate` left it (the pristine copy: dbt test rewrote target/manifest.json)
    manifest = json.loads((project.bench_dir(workdir) / "pristine" / "target" / "manifest.json")
                          .read_text(encoding="utf-8"))
    the_judge, result.label_counts, result.notes = make_judge(project, doc, manifest)
    report.score(result, doc, the_judge)
    if result.run.links2 is not None:
        result.provenance2 = links.provenance_counts(
            links.join_links(json.loads(result.run.links2.read_text(encoding="utf-8"))))
    return result


def brief(r: ProjectResult) -> str:
    if r.scored is None:
        return "ERROR " + " ".join((r.run.error or "not linked").split())[:400]
    t = r.tally
    return (f"{t.links} discovered links ({t.bar_links} at the bar, P {report._f(t.bar_precision)}), "
            f"R {report._f(t.recall)}, link {r.run.seconds('link') or 0:.1f}s"
            + (" (project reused)" if r.run.reused else "") + (f"; {r.run.error}" if r.run.error else ""))


def to_json(results: list[ProjectResult], args: argparse.Namespace, wall: float) -> dict:
    return {
        "benchmark": "realproj",
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": commit_of(REPO_ROOT), "data_dir": str(args.data.resolve()), "reuse": args.reuse,
        "skip_build": args.skip_build, "link_args": shlex.split(args.link_args), "wall_seconds": round(wall, 3),
        "cpu_count": os.cpu_count(),
        "split": {"tuning": list(split.TUNING), "held_back": list(split.HELD_BACK)},
        "write_bar": report.WRITE_BAR,
        "projects": [r.to_dict() for r in results],
        "totals": report.totals(results),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    missing = projects.missing_data(args.data)
    if missing:
        log(missing)
        return 2
    try:
        chosen = select_named(projects.discover(args.data), args.only, "project")
    except SystemExit as exc:
        log(str(exc))
        return 2
    product.measure_tree(REPO_ROOT)  # the CLI of this tree, not the venv's installed one
    args.workdir.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    results = []
    for project in chosen:  # one at a time: dbt builds and timings never overlap
        try:
            r = run_one(project, args)
        except Exception as exc:  # the harness broke on one project: record it, go on
            log(f"{project.name}: harness error\n{traceback.format_exc()}")
            r = ProjectResult(project.name, project.family, split.half_of(project.name))
            r.run.error = f"harness error: {exc!r}"
        log(f"{project.name}: {brief(r)}")
        results.append(r)
    wall = time.perf_counter() - start

    print(report.render_table(results))
    print()
    print(report.render_bands(results))
    print()
    print(report.render_checks(results))
    print()
    print(report.render_problems(results))
    print(f"\n{len(results)} projects, {wall:.1f}s wall; work dir {args.workdir}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(to_json(results, args, wall), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 1 if any(r.run.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
