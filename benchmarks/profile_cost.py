"""What in-warehouse profiling costs, compared with reading every relation once.

Builds the example shop project (DuckDB, or PostgreSQL with --postgres-env) in a scratch
directory, then times in one run, each inside one `dbt run-operation`:

  scan     a plain full scan of every relation the profiler reads: `select count(c1), count(c2), ...`
           (a bare `count(*)` is answered from metadata by DuckDB, so it would not read the data)
  profile  `link_schemas` (suggest off): counts, distinct counts, lengths, MinHash k=128, top values

dbt's own start-up is measured separately (an empty run-operation) and subtracted, so the ratio
compares warehouse work. Usage:

    python benchmarks/profile_cost.py [--scale 1.0] [--repeat 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DBT = str(Path(sys.executable).parent / "dbt")

COUNT_MACRO = """
{% macro bench_count_all() %}
  {% set rels = [] %}
  {% for node in graph.nodes.values() if node.resource_type in ('model', 'seed', 'snapshot')
       and node.package_name == project_name and node.config.materialized != 'ephemeral' %}
    {% do rels.append(adapter.get_relation(node.database, node.schema, node.alias or node.name)) %}
  {% endfor %}
  {% for rel in rels if rel is not none %}
    {% set cols = adapter.get_columns_in_relation(rel) %}
    {% set exprs = [] %}
    {% for col in cols %}{% do exprs.append('count(' ~ adapter.quote(col.name) ~ ')') %}{% endfor %}
    {% do run_query('select ' ~ (exprs | join(', ')) ~ ' from ' ~ rel) %}
  {% endfor %}
  {{ log('counted ' ~ rels | length ~ ' relations', info=True) }}
{% endmacro %}
{% macro bench_noop() %}{{ log('noop', info=True) }}{% endmacro %}
"""


def _run(project: Path, env: dict, *args: str) -> float:
    start = time.perf_counter()
    res = subprocess.run([DBT, *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                         capture_output=True, text=True, env=env, cwd=project)
    elapsed = time.perf_counter() - start
    if res.returncode != 0:
        sys.exit(f"dbt {' '.join(args)} failed:\n{res.stdout[-3000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default="1.0")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="schema_link_cost_"))
    project = work / "shop"
    shutil.copytree(REPO / "examples" / "shop", project, ignore=shutil.ignore_patterns("target", "dbt_packages", "*.csv"))
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (project / "macros").mkdir(exist_ok=True)
    (project / "macros" / "bench.sql").write_text(COUNT_MACRO)
    env = {**os.environ, "SHOP_DUCKDB_PATH": str(work / "shop.duckdb"), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    subprocess.run([sys.executable, str(project / "generate_seeds.py"), "--out", str(project / "seeds"),
                    "--scale", args.scale], check=True, capture_output=True)
    print(f"building the example at scale {args.scale} in {work} ...", file=sys.stderr)
    for step in (["deps"], ["build"]):
        _run(project, env, *step)

    noop, scan, prof = [], [], []
    for i in range(args.repeat):
        noop.append(_run(project, env, "run-operation", "bench_noop"))
        scan.append(_run(project, env, "run-operation", "bench_count_all"))
        prof.append(_run(project, env, "run-operation", "link_schemas", "--args", "{suggest: false}"))
        print(f"round {i + 1}: noop {noop[-1]:.2f}s  scan {scan[-1]:.2f}s  profile {prof[-1]:.2f}s", file=sys.stderr)
    base = statistics.median(noop)
    scan_s = max(statistics.median(scan) - base, 1e-3)
    prof_s = max(statistics.median(prof) - base, 1e-3)
    result = {
        "scale": float(args.scale),
        "dbt_startup_seconds": round(base, 3),
        "scan_seconds": round(scan_s, 3),
        "profile_seconds": round(prof_s, 3),
        "profile_ratio": round(prof_s / scan_s, 2),
        "repeat": args.repeat,
    }
    print(f"{'dbt start-up (subtracted)':28s} {base:8.2f} s")
    print(f"{'full scan of every relation':28s} {scan_s:8.2f} s")
    print(f"{'link_schemas profiling':28s} {prof_s:8.2f} s")
    print(f"{'ratio profile / scan':28s} {prof_s / scan_s:8.2f} x")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
