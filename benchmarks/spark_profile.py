"""The example shop project on Apache Spark (dbt-spark, local session) beside DuckDB, in one run:
profiling wall time of `dbt-schema-link profile --refresh` on each, and the links diff (joins
found by `dbt-schema-link link` on Spark against those found on DuckDB).

Both projects are built from the same generated seeds in a scratch directory (Spark: seed, run
and docs generate in one dbt process, so one Spark start). The wall time includes dbt's start-up
and, on Spark, the local session's start (a JVM; 30-50 s on a loaded 2-core machine), which is
printed on its own too. Usage (needs the `spark` extra and Java 17+):

    python benchmarks/spark_profile.py [--scale 0.2]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DBT = str(Path(PYTHON).parent / "dbt")


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1", "PYTHONPATH": str(REPO)})
    env.update(extra)
    return env


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    return res


def _project(dest: Path, scale: str) -> Path:
    shutil.copytree(REPO / "examples" / "shop", dest, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
    (dest / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    subprocess.run([PYTHON, str(dest / "generate_seeds.py"), "--out", str(dest / "seeds"), "--scale", scale, "--quiet"], check=True)
    return dest


def _cli(project: Path, target: str, env: dict[str, str], *args: str) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    res = _run([PYTHON, "-m", "dbt_schema_link", *args, "--project-dir", str(project), "--profiles-dir", str(project),
                "--target", target], project, env)
    return time.perf_counter() - start, res


def _joins(project: Path) -> set[tuple[str, str, str]]:
    links = json.loads((project / "target" / "schema_link" / "links.json").read_text())
    def col(ref: dict) -> str:
        return f"{ref['relation'].split('.')[-1]}.{ref['column']}".lower()
    return {(col(l["child"]), col(l["parent"]), l["kind"]) for l in links["links"] if l["kind"] in ("inferred", "declared")}


def _session_start(project: Path) -> float:
    """Seconds the first statement of the last dbt run on Spark took: the local session's start."""
    for line in (project / "logs" / "dbt.log").read_text().splitlines():
        m = re.search(r'"elapsed": ([0-9.]+)', line)
        if m and '"E017"' in line:
            return float(m.group(1))
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", default="0.2", help="seed size multiplier (the tests use 0.2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="spark_profile_") as tmp:
        root = Path(tmp)
        duck = _project(root / "duck" / "shop", args.scale)
        duck_env = _env({"SHOP_DUCKDB_PATH": str(root / "duck" / "shop.duckdb")})
        for cmd in (["deps"], ["seed"], ["run"], ["docs", "generate"]):
            _run([DBT, *cmd, "--project-dir", str(duck), "--profiles-dir", str(duck)], duck, duck_env)

        spark = _project(root / "spark" / "shop", args.scale)
        spark_env = _env({"SCHEMA_LINK_SPARK_DIR": str(root / "spark" / "warehouse")})
        cmd = [PYTHON, "-m", "tests.support.spark_batch", "--project-dir", str(spark), "--target", "spark"]
        for line in ("deps", "seed", "run", "docs generate"):
            cmd += ["--dbt", line]
        build_start = time.perf_counter()
        _run(cmd, spark, spark_env)
        build = time.perf_counter() - build_start
        (spark / "logs" / "dbt.log").unlink()

        duck_s, _ = _cli(duck, "dev", duck_env, "profile", "--refresh")
        spark_s, _ = _cli(spark, "spark", spark_env, "profile", "--refresh")
        start_s = _session_start(spark)
        _cli(duck, "dev", duck_env, "link", "--quiet")
        _cli(spark, "spark", spark_env, "link", "--quiet")
        duck_joins, spark_joins = _joins(duck), _joins(spark)

    print(f"example shop, scale {args.scale}, 31 relations; wall time of `dbt-schema-link profile --refresh`:")
    print(f"  DuckDB  {duck_s:7.1f} s")
    print(f"  Spark   {spark_s:7.1f} s  (of which the local session's start {start_s:.1f} s; build: {build:.0f} s)")
    print(f"links: DuckDB {len(duck_joins)} joins, Spark {len(spark_joins)} joins")
    only_duck, only_spark = sorted(duck_joins - spark_joins), sorted(spark_joins - duck_joins)
    print(f"  only on DuckDB: {only_duck or 'none'}")
    print(f"  only on Spark:  {only_spark or 'none'}")
    return 0 if not only_duck and not only_spark else 1


if __name__ == "__main__":
    sys.exit(main())
