"""Spark for tests: dbt-spark's `session` method runs Spark SQL inside the dbt process.

The CLI runs dbt as a subprocess, so each of its dbt commands starts (and stops) a local Spark
session of its own; the warehouse directory and the Derby metastore that keeps tables between
those sessions live in one folder per test module (SCHEMA_LINK_SPARK_DIR, read by the example's
and the integration project's profiles.yml). Derby admits one process at a time, so sessions
never overlap. Building a project (seed, run, docs generate) runs all its dbt commands in one
Python process, hence one Spark session, through `python -m tests.support.spark_batch`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.packages import first_missing


class SparkUnavailable(RuntimeError):
    """pyspark, dbt-spark or Java is missing."""


def check_spark() -> None:
    """Raise SparkUnavailable naming what is missing (install: pip install -e '.[spark]')."""
    missing = first_missing((("pyspark", "pyspark"), ("dbt.adapters.spark", "dbt-spark[session]")))
    if missing:
        raise SparkUnavailable(f"{missing} is not installed (pip install -e '.[spark]')")
    if shutil.which("java") is None:
        raise SparkUnavailable("java is not on PATH (Spark needs Java 17 or 21)")


def spark_env(spark_dir: Path) -> dict[str, str]:
    """Environment the profiles' spark targets read: where warehouse and metastore live."""
    spark_dir.mkdir(parents=True, exist_ok=True)
    return {"SCHEMA_LINK_SPARK_DIR": str(spark_dir)}


def run_in_one_session(project_dir: Path, target: str, commands: list[list[str]], env: dict[str, str]) -> str:
    """Run several dbt commands in one process (one Spark session); their output, or raise."""
    cmd = [sys.executable, "-m", "tests.support.spark_batch", "--project-dir", str(project_dir),
           "--target", target]
    for args in commands:
        cmd += ["--dbt", " ".join(args)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=project_dir)
    if res.returncode != 0:
        raise AssertionError(f"dbt on Spark failed ({res.returncode}):\n{res.stdout[-6000:]}\n{res.stderr[-3000:]}")
    return res.stdout
