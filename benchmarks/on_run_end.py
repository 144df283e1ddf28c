"""Warehouse time the on-run-end hook saves per build, on the example shop project (DuckDB).

**Question:** after `dbt build`, `dbt-schema-link link` must have profiles of every relation.
Without the hook its profile step runs `dbt run-operation link_schemas` over everything the build
just made; with the hook (the line `init --on-run-end` adds, switched on per build with
`--vars '{schema_link_on_run_end: true}'`; "without" switches it off) the build profiles what it
built and `link` takes the profiles from logs/dbt.log. What does that save per build?

**Measured** (wall seconds, median of --repeat runs, each on a fresh build):
- `build`: `dbt build` without / with the hook; `hook`: the hook's own time as it logs it
  ("on-run-end profiled N relations ... in X s"), the warehouse time the build gains;
- `profile`: `dbt-schema-link profile` right after the build, without the hook (profiles every
  relation: one dbt start plus the scans) / with it (0 relations profiled, N from the build);
- saved per build = profile(without) − profile(with) − hook.

    python benchmarks/on_run_end.py --scale 1 --repeat 3

No benchmark data needed: the example's seeds are generated (examples/shop/generate_seeds.py).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
HOOK_LINE = re.compile(r"on-run-end profiled (\d+) relations built by this run \((\d+) columns\) in ([0-9.]+) s")


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    return seconds, res.stdout + res.stderr


def _project(root: Path, scale: str) -> tuple[Path, dict[str, str]]:
    path = root / "shop"
    shutil.copytree(REPO / "examples" / "shop", path,
                    ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
    (path / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    subprocess.run([sys.executable, str(path / "generate_seeds.py"), "--out", str(path / "seeds"), "--scale", scale],
                   check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1", "PYTHONPATH": str(REPO),
                "SHOP_DUCKDB_PATH": str(root / "shop.duckdb"), "DBT_PROFILES_DIR": str(path)})
    _run([str(BIN / "dbt"), "deps"], path, env)
    # the hook line and its switch, as a user adds them; the switch is then set per build (--vars)
    _run([sys.executable, "-m", "dbt_schema_link", "init", "--on-run-end", "--project-dir", str(path)], path, env)
    _run([str(BIN / "dbt"), "build"], path, env)
    _run([str(BIN / "dbt"), "docs", "generate"], path, env)
    return path, env


def _one(path: Path, env: dict[str, str], hook: bool) -> dict[str, float]:
    shutil.rmtree(path / "target" / "schema_link", ignore_errors=True)  # no cached profiles
    shutil.rmtree(path / "logs", ignore_errors=True)
    build = [str(BIN / "dbt"), "build", "--vars", f"{{schema_link_on_run_end: {str(hook).lower()}}}"]
    build_s, out = _run(build, path, env)
    match = HOOK_LINE.search(out)
    if hook and not match:
        raise SystemExit("the hook did not report its time: is the package installed (dbt deps)?")
    profile_s, err = _run([sys.executable, "-m", "dbt_schema_link", "profile", "--project-dir", str(path)], path, env)
    counted = re.search(r"profiling (\d+) relations in the warehouse", err)
    return {"build_s": build_s, "hook_s": float(match.group(3)) if match else 0.0, "profile_s": profile_s,
            "profiled": int(counted.group(1)) if counted else -1,
            "relations": int(match.group(1)) if match else 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="1", help="example seed scale (generate_seeds.py --scale)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="on_run_end_") as tmp:
        path, env = _project(Path(tmp), args.scale)
        runs = {hook: [_one(path, env, hook) for _ in range(args.repeat)] for hook in (False, True)}

    def median(hook: bool, key: str) -> float:
        return statistics.median(r[key] for r in runs[hook])

    figures = {
        "scale": args.scale, "repeat": args.repeat,
        "relations_built": runs[True][0]["relations"],
        "build_s": {"without": median(False, "build_s"), "with": median(True, "build_s")},
        "hook_s": median(True, "hook_s"),
        "profile_s": {"without": median(False, "profile_s"), "with": median(True, "profile_s")},
        "relations_profiled_by_link": {"without": runs[False][0]["profiled"], "with": runs[True][0]["profiled"]},
    }
    figures["saved_per_build_s"] = figures["profile_s"]["without"] - figures["profile_s"]["with"] - figures["hook_s"]
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(f"example shop, scale {args.scale}, median of {args.repeat} fresh builds "
              f"({figures['relations_built']} relations built)")
        print(f"  dbt build            without hook {figures['build_s']['without']:6.1f} s   with hook "
              f"{figures['build_s']['with']:6.1f} s   (the hook itself: {figures['hook_s']:.1f} s)")
        print(f"  profile after build  without hook {figures['profile_s']['without']:6.1f} s   with hook "
              f"{figures['profile_s']['with']:6.1f} s   (relations profiled: "
              f"{figures['relations_profiled_by_link']['without']} / {figures['relations_profiled_by_link']['with']})")
        print(f"  saved per build: {figures['saved_per_build_s']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
