#!/usr/bin/env python
"""Dirt benchmark: does join discovery hold on dirty data (orphans, drifted key types, tiny
dimensions, dense surrogate ranges, composite keys, calendar keys, sample rows)?

What is measured
    Dev databases of fk_recovery.py (`../shared/data`), each copied once per variant with one kind
    of dirt injected into its declared FKs (dirtbench/inject.py: orphans, drifted_types,
    tiny_dimensions, dense_surrogates, composite_keys, calendar_keys, sampled_rows). Names and
    declared FKs are unchanged (composite and calendar keys add theirs): they are the truth.
    Per variant and per half of convbench's fixed split (convbench/split.py, the same tuning and
    held-back halves as conventions.py): recall, precision and lenient precision (fkbench's
    scoring, micro-averaged), recall split by what each FK's own data says (confirms, partial,
    contradicts, empty: dirtbench/data_says.py), then the reliability table (found links per
    confidence bin).

Which databases
    By default a fixed subset of both halves, to keep a run moderate (DEFAULT_DATABASES: 5 + 5
    databases, 29 and 25 declared FKs); `--only` picks others, `--all` takes the 22.

How
    Per variant and database, in `<workdir>/<variant>/<db>/`: the dirty SQLite copy, then what
    fk_recovery.py does with a database (fkbench): a DuckDB file, a dbt project with every table
    as a source (no FKs, no tests), `dbt deps`, `dbt docs generate`, then
    `dbt-schema-link link --format json --quiet` (the CLI user path), links.json read by
    fkbench.product. Copies and projects are reused while their inputs are unchanged.

Usage
    python benchmarks/dirt.py [--variants V ...] [--only DB ... | --all] [--half H] [--jobs 2]
        [--workdir DIR] [--json OUT] [--seed N] [--rebuild] [--score-only] [--link-args "ARGS"]
        [--refresh-profiles] [--engine-ref REF]

Exit status: 0 all ran, 1 some task failed (see the JSON and stderr), 2 no data / bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path

from convbench import report, split
from dirtbench.data_says import DataSays
from dirtbench.inject import Variant
from dirtbench.runner import GENERATOR_VERSION, DirtResult, RunOptions, run_task
from fkbench import databases, product
from fkbench.scoring import score

BENCH_DIR = Path(__file__).resolve().parent
DEFAULT_DATA = BENCH_DIR.parent.parent / "shared" / "data"
DEFAULT_WORKDIR = BENCH_DIR / "out" / "dirt"  # git-ignored
DEFAULT_SEED = 30
#: The default subset, fixed: five databases of each half of convbench's split.
DEFAULT_DATABASES = (
    "car_1", "dog_kennels", "student_transcripts_tracking", "concert_singer", "employee_hire_evaluation",
    "real_estate_properties", "cre_Doc_Template_Mgt", "network_1", "orchestra", "superhero",
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    names = [v.value for v in Variant]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"benchmark data folder (default {DEFAULT_DATA})")
    p.add_argument("--variants", nargs="+", choices=names, metavar="V", help=f"variants (default all: {' '.join(names)})")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--only", nargs="+", metavar="DB", help="only these databases (folder names)")
    which.add_argument("--all", action="store_true", help="all 22 dev databases (default: DEFAULT_DATABASES)")
    p.add_argument("--half", choices=[h.value for h in split.Half], help="only the databases of this half")
    p.add_argument("--jobs", type=int, default=2, help="tasks in parallel (default 2)")
    p.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help=f"scratch folder (default {DEFAULT_WORKDIR})")
    p.add_argument("--json", type=Path, metavar="OUT", help="also write the results here")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"injection seed (default {DEFAULT_SEED})")
    p.add_argument("--rebuild", action="store_true", help="regenerate and re-prepare everything")
    p.add_argument("--score-only", action="store_true", help="run nothing: score the links.json of the last run")
    p.add_argument("--link-args", default="", metavar="ARGS", help="extra arguments for `dbt-schema-link link`")
    p.add_argument("--refresh-profiles", action="store_true", help="pass --refresh to link (after a macro change)")
    p.add_argument("--engine-ref", metavar="REF", help="measure this git revision (git archive into <workdir>/engines)")
    return p.parse_args(argv)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def select(args: argparse.Namespace) -> list[databases.BenchDatabase]:
    found = databases.discover(args.data)
    by_name = {db.name.lower(): db for db in found}
    wanted = args.only or ([] if args.all else list(DEFAULT_DATABASES))
    unknown = [n for n in wanted if n.lower() not in by_name]
    if unknown:
        raise SystemExit(f"error: unknown database(s) {unknown}; available: {sorted(by_name)}")
    chosen = [by_name[n.lower()] for n in wanted] if wanted else found
    if args.half:
        chosen = [db for db in chosen if split.half_of(db.name) is split.Half(args.half)]
    return chosen


def render(results: list[DirtResult]) -> str:
    groups = [h.value for h in report.HALVES] + ["all"]
    header = ["variant"] + [f"{col} {g}" if col == "R" else col for g in groups for col in ("R", "P", "lenP", "TP/gold")]
    rows = [header]
    for variant in dict.fromkeys(r.variant for r in results):
        row = [variant.value]
        for g in groups:
            cells = [r for r in results if r.variant is variant and (g == "all" or (r.half and r.half.value == g))]
            s = report.cell(cells).score
            row += ([report._fmt(s.recall), report._fmt(s.precision), report._fmt(s.lenient_precision),
                     f"{s.tp}/{s.gold}"] if s else ["-"] * 4)
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join([r[0].ljust(widths[0])] + [c.rjust(widths[i]) for i, c in enumerate(r) if i]) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + ["R recall, P precision, lenP lenient precision (micro over the databases of each half)"])


def _contradicted_shown(r: DirtResult) -> set:
    """Pairs links.json lists as named but contradicted by the data (shown, not linked)."""
    if r.links_json is None:
        return set()
    doc = json.loads(r.links_json.read_text(encoding="utf-8"))
    return {c.pair for c in product.rejected_candidates(doc) if c.trap == "contradicted"}


def render_by_data(results: list[DirtResult]) -> str:
    """Recall split by what each declared FK's own data says (dirtbench/data_says.py), per half;
    `shown` counts the misses links.json reports as named, contradicted by data."""
    groups = [h.value for h in report.HALVES] + ["all"]
    header = ["variant", "data says"] + [f"{col} {g}" if col == "R" else col for g in groups
                                         for col in ("R", "TP/gold", "shown")]
    rows = [header]
    for variant in dict.fromkeys(r.variant for r in results):
        mine = [r for r in results if r.variant is variant and r.ok]
        shown = {id(r): _contradicted_shown(r) for r in mine}
        for says in DataSays:
            if not any(v is says for r in mine for v in r.data_says.values()):
                continue
            row = [variant.value, says.value]
            for g in groups:
                cells = [r for r in mine if g == "all" or (r.half and r.half.value == g)]
                gold = [(r, p) for r in cells for p, v in r.data_says.items() if v is says]
                tp = sum(1 for r, p in gold if p in r.run.pairs)
                seen = sum(1 for r, p in gold if p not in r.run.pairs and p in shown[id(r)])
                row += [report._fmt(tp / len(gold)) if gold else "-", f"{tp}/{len(gold)}", str(seen)]
            rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join([r[0].ljust(widths[0]), r[1].ljust(widths[1])] + [c.rjust(widths[i]) for i, c in enumerate(r) if i > 1])
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + [
        "data says: the share of a declared FK's distinct child values its parent holds: confirms >= 0.9, "
        "partial, contradicts < 0.1, empty (no value); shown: misses reported as named, contradicted by data"])


def _names(p) -> list[str]:
    return sorted(f"{t}.{c}" for t, c in p)


def task_dict(r: DirtResult) -> dict:
    out = {"db": r.db, "variant": r.variant.value, "half": r.half.value if r.half else None, "notes": r.notes,
           "error": r.error or (r.run.error if r.run else None),
           "phases": {k: round(v, 3) for k, v in (r.run.phases if r.run else {}).items()}}
    if r.ok and r.truth is not None:
        out["score"] = score(r.run.pairs, r.truth).to_dict()
        out["false_positives"] = [_names(p) for p in sorted(r.run.pairs - r.truth.pairs, key=_names)]
        out["missed"] = [_names(p) for p in sorted(r.truth.pairs - r.run.pairs, key=_names)]
        out["data_says"] = {" ~ ".join(_names(p)): v.value for p, v in sorted(r.data_says.items(), key=lambda i: _names(i[0]))}
    return out


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
    variants = [Variant(v) for v in args.variants] if args.variants else list(Variant)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    from conventions import engine_dir  # the same --engine-ref handling
    args.engine = None
    try:
        engine = engine_dir(args, workdir)
    except SystemExit as exc:
        log(str(exc))
        return 2
    link_args = tuple(shlex.split(args.link_args)) + (("--refresh",) if args.refresh_profiles else ())
    opts = RunOptions(repo_root=engine, workdir=workdir, seed=args.seed, rebuild=args.rebuild,
                      score_only=args.score_only, link_args=link_args)
    log(f"engine: {engine}")
    tasks = [(v, db) for v in variants for db in dbs]
    start = time.perf_counter()
    done: dict[tuple[str, str], DirtResult] = {}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_task, db, v, opts): (v, db) for v, db in tasks}
        for n, future in enumerate(as_completed(futures), 1):
            v, db = futures[future]
            try:
                r = future.result()
            except Exception as exc:  # the harness broke on one task: record it, go on
                log(f"{v.value}/{db.name}: harness error\n{traceback.format_exc()}")
                r = DirtResult(db.name, db.collection, v, split.half_of(db.name), error=f"harness error: {exc!r}")
            done[(v.value, db.name)] = r
            s = score(r.run.pairs, r.truth) if r.ok and r.truth else None
            log(f"[{n}/{len(tasks)}] {v.value}/{db.name}: "
                + (f"TP {s.tp}/{s.gold}, found {s.found}" if s else f"ERROR {task_dict(r)['error']}"))
    results = [done[(v.value, db.name)] for v, db in tasks]
    wall = time.perf_counter() - start
    rel = report.reliability(report.labelled_links(results))
    print(render(results))
    print()
    print(render_by_data(results))
    print()
    print(report.render_reliability(rel, "all variants"))
    print(f"\n{len(variants)} variants x {len(dbs)} databases, {wall:.1f}s wall with --jobs {args.jobs}; "
          f"work dir {args.workdir}")
    doc = {"benchmark": "dirt", "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "seed": args.seed, "generator_version": {v.value: n for v, n in GENERATOR_VERSION.items()}, "engine": str(engine),
           "link_args": list(link_args), "databases": [db.name for db in dbs], "wall_seconds": round(wall, 3),
           "cpu_count": os.cpu_count(), "reliability": rel, "tasks": [task_dict(r) for r in results]}
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    (workdir / "results.json").write_text(text, encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text, encoding="utf-8")
    return 1 if any(not r.ok for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
