"""Run dbt commands one after another in this process: with dbt-spark's session method they
share one Spark session (one JVM start instead of one per command). Test harness only.

    python -m tests.support.spark_batch --project-dir DIR --target spark --dbt "seed" --dbt "run"
"""

from __future__ import annotations

import argparse
import shlex
import sys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--project-dir", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--dbt", action="append", default=[], help="one dbt command line (repeat)")
    args = parser.parse_args()
    from dbt.cli.main import dbtRunner

    runner = dbtRunner()
    for line in args.dbt:
        argv = [*shlex.split(line), "--project-dir", args.project_dir, "--profiles-dir", args.project_dir,
                "--target", args.target]
        print(f"== dbt {' '.join(argv)}", flush=True)
        result = runner.invoke(argv)
        if not result.success:
            print(f"dbt {line} failed: {result.exception}", flush=True)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
