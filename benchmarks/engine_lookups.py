"""Value lookups in Python's LSH index vs as one join in the engine (issue #35).

    python benchmarks/engine_lookups.py --project /tmp/scale/L/project --work /tmp/eng [--engines duckdb spark]

Reads a project `scale.py` generated (target/manifest.json, catalog.json and the profile cache
target/schema_link/profiles.json), then, each in its own process (so each peak is its own): the
value candidates from the LSH index in Python, and from the `schema_link_band_candidates` macro
run through dbt on DuckDB and on a local Spark session (a small dbt project under --work that
installs this package; the macro reads the band files, so no warehouse data is needed). Prints,
per mode: the seconds of the index and the lookups (the engine's split into building the band
rows, writing them, the dbt run, reading the hits), the process tree's peak memory (the engine's
included), the candidate pairs and the engine's candidate recall of the Python pairs (the target:
>= 0.99). --json writes the figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from scalebench import measure  # noqa: E402

PROFILES = """engine_probe:
  target: duckdb
  outputs:
    duckdb:
      type: duckdb
      path: "{work}/engine.duckdb"
      threads: 2
      settings:
        memory_limit: 4GB
    spark:
      type: spark
      method: session
      host: localhost
      schema: engine_probe
      threads: 1
      server_side_parameters:
        spark.master: "local[2]"
        spark.driver.memory: "6g"
        spark.ui.enabled: "false"
        spark.sql.shuffle.partitions: "4"
        spark.sql.warehouse.dir: "{work}/spark/warehouse"
        spark.hadoop.javax.jdo.option.ConnectionURL: "jdbc:derby:;databaseName={work}/spark/metastore_db;create=true"
        spark.driver.extraJavaOptions: "-Dderby.system.home={work}/spark"
"""


def dbt_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1", "PYTHONPATH": str(REPO)})
    return env


def engine_project(work: Path) -> Path:
    """A dbt project that installs this package (from the checkout) and can reach both engines."""
    project = work / "engine_project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "dbt_project.yml").write_text("name: engine_probe\nversion: '1.0'\nconfig-version: 2\n"
                                             "profile: engine_probe\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (project / "profiles.yml").write_text(PROFILES.format(work=work.resolve()))
    dbt = str(Path(sys.executable).with_name("dbt"))
    res = subprocess.run([dbt, "deps", "--project-dir", str(project), "--profiles-dir", str(project)],
                         env=dbt_env(), capture_output=True, text=True, cwd=project)
    if res.returncode != 0:
        raise SystemExit(f"dbt deps failed:\n{res.stdout[-2000:]}")
    return project


def child(args) -> int:
    """One mode, in its own process: load, index, look up; the pairs and timings to --out."""
    t0 = time.perf_counter()
    from dbt_schema_link.artifacts.manifest import read_project
    from dbt_schema_link.dbt_runner import DbtInvocation
    from dbt_schema_link.discovery.candidates import value_candidates, value_index
    from dbt_schema_link.discovery.features import build_features
    from dbt_schema_link.discovery.settings import DiscoverySettings
    from dbt_schema_link.profiling import band_join
    from dbt_schema_link.profiling.stored import stored_profiles

    target = args.project / "target"
    project = read_project(target, require_catalog=True, project_dir=args.project)
    profiles = stored_profiles(target / "schema_link" / "profiles.json", project)
    engine = args.child != "python"
    settings = DiscoverySettings(engine_lookup_min_columns=1 if engine else 0)
    features = build_features(project, profiles, settings)
    t1 = time.perf_counter()
    lsh, parents = value_index(features, settings, bands=not engine)
    t2 = time.perf_counter()
    split: dict[str, float] = {}
    join = None
    if engine:
        inv = DbtInvocation(project_dir=args.engine_project, profiles_dir=args.engine_project, target=args.child)
        run = band_join.warehouse_band_join(inv, args.work / "bands")

        def join(tables):
            start = time.perf_counter()
            hits = run(tables)
            split.update({"join_seconds": round(time.perf_counter() - start, 3), **{
                k: round(v, 3) if isinstance(v, float) else v for k, v in dataclasses.asdict(run.timings).items()}})
            return hits
    pairs = [(f"{c.key[0]}|{c.key[1]}", f"{p.key[0]}|{p.key[1]}")
             for c, p in value_candidates(features, settings, lsh, parents, join)]
    t3 = time.perf_counter()
    args.out.write_text(json.dumps({
        "load_seconds": round(t1 - t0, 3), "index_seconds": round(t2 - t1, 3),
        "lookup_seconds": round(t3 - t2, 3), **split, "parents": len(parents), "pairs": pairs,
    }))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", type=Path, required=True, help="a project scale.py generated (e.g. <work>/L/project)")
    ap.add_argument("--work", type=Path, required=True, help="scratch folder (engine project, band files)")
    ap.add_argument("--engines", nargs="+", default=["duckdb", "spark"], choices=["duckdb", "spark"])
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--child", choices=["python", "duckdb", "spark"], help=argparse.SUPPRESS)
    ap.add_argument("--engine-project", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.project, args.work = args.project.resolve(), args.work.resolve()
    if args.child:
        return child(args)
    if not (args.project / "target" / "schema_link" / "profiles.json").exists():
        raise SystemExit(f"{args.project} has no target/schema_link/profiles.json: generate it with "
                         "benchmarks/scale.py --size L --skip-index")
    args.work.mkdir(parents=True, exist_ok=True)
    eng = engine_project(args.work)
    results: dict[str, dict] = {}
    for mode in ["python", *args.engines]:
        out = args.work / f"{mode}.json"
        out.unlink(missing_ok=True)
        print(f"{mode}: looking up value candidates ...", file=sys.stderr, flush=True)
        m = measure.run([sys.executable, __file__, "--child", mode, "--project", str(args.project),
                         "--work", str(args.work), "--engine-project", str(eng), "--out", str(out)],
                        cwd=eng, env=dbt_env(), log=args.work / f"{mode}.log", timeout=3600, limit_mib=16_000)
        if m.returncode != 0 or not out.exists():
            tail = (args.work / f"{mode}.log").read_text(errors="replace")[-2000:]
            raise SystemExit(f"{mode} failed (exit {m.returncode}):\n{tail}")
        data = json.loads(out.read_text())
        results[mode] = {**{k: v for k, v in data.items() if k != "pairs"}, "process_seconds": round(m.seconds, 2),
                         "peak_mib": round(m.peak_mib), "pairs": {tuple(p) for p in data["pairs"]}}
    python = results["python"]["pairs"]
    print(f"{'mode':<8} {'index s':>8} {'lookups s':>10} {'process s':>10} {'peak MiB':>9} {'pairs':>8} "
          f"{'recall':>7} {'extra':>6}")
    for mode, r in results.items():
        found = r["pairs"]
        r["candidate_recall"] = round(len(found & python) / max(len(python), 1), 4)
        r["extra_pairs"] = len(found - python)
        print(f"{mode:<8} {r['index_seconds']:>8.2f} {r['lookup_seconds']:>10.2f} {r['process_seconds']:>10.2f} "
              f"{r['peak_mib']:>9} {len(found):>8} {r['candidate_recall']:>7.4f} {r['extra_pairs']:>6}")
        if mode != "python":
            print(f"         {r['band_rows']} band rows written in {r['write_seconds']} s; dbt run-operation "
                  f"{r['engine_seconds']} s; {r['hits']} hits read in {r['read_seconds']} s; the rest of the "
                  f"lookups (band rows, hits to pairs) {r['lookup_seconds'] - r['join_seconds']:.2f} s")
        r["pairs"] = len(found)
    if args.json:
        args.json.write_text(json.dumps({"project": str(args.project), "cpu_count": os.cpu_count(),
                                         "load_avg_1m": os.getloadavg()[0], "modes": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
