"""A real ~100,000-column warehouse end to end (issue #18), the path a new user runs.

    python benchmarks/warehouse_large.py [--limit-databases N] [--work DIR] [--json OUT] [--needles 300]

Loads `../shared/data/warehouse_large` (53 public databases, 3,697 tables, 98k columns, up to 3
sample rows each; read-only, not shipped) into one DuckDB file as one dbt project: one schema and
one dbt source per database, the sample rows as the tables' data, the column descriptions as YAML
docs on the sources. Then runs, timing each step and sampling the peak resident memory of its
whole process tree:

    dbt deps, dbt docs generate, dbt-schema-link link (profiling every relation),
    dbt-schema-link write --dry-run, dbt-schema-link index, dbt-schema-link ask --questions (batch)

Question linking has no gold questions here: a needle test draws random columns whose
description is unique in the warehouse, asks the description with the column's and table's
names taken out (whbench/needle.py), and scores whether the column comes back in the first 20
columns, its table, and its database as the first-ranked group. Figures go to stdout beside the
targets (and to --json OUT); progress and each step's log path go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from scalebench import measure  # noqa: E402
from whbench.load import load_duckdb, read_warehouse, write_project  # noqa: E402
from whbench.needle import make_needles, score  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "warehouse_large"
START = time.perf_counter()
TOP = 20
STEPS = ("dbt_deps", "docs_generate", "link", "write_dry_run", "index", "ask_batch")
GIB = 1024.0
TARGETS = {
    "link_seconds": ("<= 1200 s", lambda v: v <= 1200),
    "index_seconds": ("<= 300 s", lambda v: v <= 300),
    "ask_p50_ms": ("<= 100 ms", lambda v: v <= 100),
    "peak_mib": ("<= 8192 MiB", lambda v: v <= 8 * GIB),
    f"needle_column_top{TOP}": (">= 0.80", lambda v: v >= 0.80),
    "needle_database_first": (">= 0.90", lambda v: v >= 0.90),
}


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - START:7.1f}s] {msg}", file=sys.stderr, flush=True)


def step(name: str, cmd: list[str], work: Path, results: dict, timeout: float, env: dict) -> measure.Measured:
    path = work / "logs" / f"{name}.log"
    log(f"{name}: {' '.join(cmd[:4])} ... (log {path})")
    m = measure.run(cmd, cwd=work, env=env, timeout=timeout, log=path, limit_mib=16 * GIB)
    results["steps"][name] = {"seconds": round(m.seconds, 1), "peak_mib": m.peak_mib, "returncode": m.returncode,
                              **({"timed_out": True} if m.timed_out else {})}
    log(f"{name}: rc {m.returncode}, {m.seconds:.1f} s, peak {m.peak_mib:,.0f} MiB")
    if m.returncode != 0:
        tail = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
        log(f"{name} failed:\n  " + "\n  ".join(tail))
    return m


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--limit-databases", type=int, default=None, help="only the first N databases (quick runs)")
    p.add_argument("--work", type=Path, default=Path("/tmp/warehouse_large_bench"), help="working directory")
    p.add_argument("--json", type=Path, default=None, help="write the figures here")
    p.add_argument("--needles", type=int, default=300, help="needle questions to ask")
    p.add_argument("--timeout", type=float, default=3600, help="seconds any one step may take")
    p.add_argument("--keep-index", action="store_true", help="keep the index (and its vector cache) from the last run")
    p.add_argument("--model", default=None, help="embedding model spec for `index` (default: the CLI's)")
    p.add_argument("--from-step", choices=STEPS, default=None,
                   help="reuse the work dir of an earlier run and start at this step")
    args = p.parse_args(argv)
    if not DATA.is_dir():
        print(f"error: {DATA} not found: this benchmark needs ../shared/data/warehouse_large", file=sys.stderr)
        return 2
    work = args.work.resolve()
    project = work / "project"
    if project.exists() and args.from_step is None:
        keep = project / "target" / "schema_link"
        saved = work / "kept_schema_link"
        if args.keep_index and keep.exists():
            shutil.rmtree(saved, ignore_errors=True)
            shutil.move(str(keep), saved)
        shutil.rmtree(project)
    (work / "logs").mkdir(parents=True, exist_ok=True)
    results: dict = {"steps": {}, "limit_databases": args.limit_databases}

    t = time.perf_counter()
    tables = read_warehouse(DATA, args.limit_databases)
    duck = work / "warehouse.duckdb"
    if args.from_step is None:
        load_duckdb(tables, duck)
        write_project(tables, project, duck, REPO)
    if args.keep_index and (work / "kept_schema_link").exists():
        (project / "target").mkdir(parents=True, exist_ok=True)
        shutil.move(str(work / "kept_schema_link"), project / "target" / "schema_link")
        shutil.rmtree(project / "target" / "schema_link" / "profiles.json", ignore_errors=True)
    results.update(databases=len({t.database for t in tables}), tables=len(tables),
                   columns=sum(len(t.columns) for t in tables),
                   described_columns=sum(1 for t in tables for c in t.columns if c.description))
    results["steps"]["load"] = {"seconds": round(time.perf_counter() - t, 1)}
    log(f"loaded {results['databases']} databases, {results['tables']:,} tables, {results['columns']:,} columns "
        f"into {duck} ({time.perf_counter() - t:.1f} s)")

    bin_dir = Path(sys.executable).parent
    dbt, dsl = str(bin_dir / "dbt"), str(bin_dir / "dbt-schema-link")
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1"}
    where = ["--project-dir", str(project)]
    dbt_where = where + ["--profiles-dir", str(project)]
    ok = True
    commands = {
        "dbt_deps": [dbt, "deps", *dbt_where],
        "docs_generate": [dbt, "docs", "generate", *dbt_where],
        "link": [dsl, "link", *where, "--format", "json"],
        "write_dry_run": [dsl, "write", "--dry-run", *where],
        "index": [dsl, "index", *where, *(["--model", args.model] if args.model else [])],
    }
    start_at = STEPS.index(args.from_step) if args.from_step else 0
    for name in STEPS[start_at:-1]:
        cmd = commands[name]
        m = step(name, cmd, work, results, args.timeout, env)
        if m.returncode != 0 and name != "write_dry_run":
            ok = False
            break
    links = project / "target" / "schema_link" / "links.json"
    if links.exists():
        data = json.loads(links.read_text(encoding="utf-8"))
        kinds: dict[str, int] = {}
        for link in data.get("links", []):
            kinds[link.get("kind", "?")] = kinds.get(link.get("kind", "?"), 0) + 1
        results["links"] = kinds
        cross = sum(1 for link in data.get("links", []) if str(link.get("child", {}).get("relation", "")).split(".")[2:3]
                    != str(link.get("parent", {}).get("relation", "")).split(".")[2:3])
        results["links_cross_database"] = cross

    if ok:
        needles, pool = make_needles(tables, args.needles)
        results["needle_pool"] = pool
        qfile = work / "needles.jsonl"
        qfile.write_text("".join(json.dumps({"id": n.id, "question": n.question}) + "\n" for n in needles), encoding="utf-8")
        m = step("ask_batch", [dsl, "ask", *where, "--questions", str(qfile), "--top", str(TOP), "--quiet"],
                 work, results, args.timeout, env)
        answers = {}
        for line in (work / "logs" / "ask_batch.log").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("{"):
                try:
                    a = json.loads(line)
                except ValueError:
                    continue
                answers[a.get("id")] = a
        lat = sorted(a.get("latency_ms", 0.0) for a in answers.values())
        if lat:
            results["ask_p50_ms"] = round(statistics.median(lat), 1)
            results["ask_p95_ms"] = round(lat[min(len(lat) - 1, int(0.95 * len(lat)))], 1)
        results.update(score(needles, answers, TOP))
        results["needle_examples"] = [{"question": n.question, "want": f"{n.unique_id}.{n.column}",
                                       "got_schema": (answers.get(n.id) or {}).get("schema")} for n in needles[:5]]
    steps = results["steps"]
    results["link_seconds"] = steps.get("link", {}).get("seconds")
    results["index_seconds"] = steps.get("index", {}).get("seconds")
    results["peak_mib"] = max((s.get("peak_mib") or 0) for s in steps.values())
    results["total_seconds"] = round(time.perf_counter() - START, 1)

    print(f"\nwarehouse_large: {results['databases']} databases, {results['tables']:,} tables, "
          f"{results['columns']:,} columns ({results['described_columns']:,} described)")
    print(f"{'step':<16}{'seconds':>10}{'peak MiB':>12}{'rc':>5}")
    for name, s in steps.items():
        print(f"{name:<16}{s['seconds']:>10.1f}{(s.get('peak_mib') or 0):>12,.0f}{s.get('returncode', 0):>5}")
    print()
    for key, value in results.items():
        if key in ("steps", "needle_examples"):
            continue
        target = TARGETS.get(key)
        mark = "" if target is None or value is None else ("  ok" if target[1](value) else "  MISSED")
        print(f"{key:<32}{json.dumps(value):>24}  {target[0] if target else ''}{mark}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
