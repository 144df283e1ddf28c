"""Inference from cached profiles, as its own process (so its peak memory is its own):

    python -m scalebench.infer PROJECT_DIR OUT.json     (run from benchmarks/)

Reads target/manifest.json, catalog.json and target/schema_link/profiles.json, runs `discover()`
with no warehouse (no exact verification), writes target/schema_link/links.json and OUT.json:
load and discovery seconds, per-stage timings, counts, peak RSS (MiB).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    project_dir, out = Path(argv[0]), Path(argv[1])
    t0 = time.perf_counter()
    from dbt_schema_link.artifacts.manifest import read_project
    from dbt_schema_link.discovery import discover
    from dbt_schema_link.profiling.stored import stored_profiles

    target = project_dir / "target"
    project = read_project(target, require_catalog=True, project_dir=project_dir)
    # what `link --no-warehouse` reads: the profile cache, K taken from the signatures themselves
    profiles = stored_profiles(target / "schema_link" / "profiles.json", project)
    relations, k = (profiles.relations, profiles.k) if profiles is not None else ({}, 0)
    t1 = time.perf_counter()
    links = discover(project, profiles, None, None,
                     lambda msg: print(f"  {msg}", file=sys.stderr, flush=True))
    t2 = time.perf_counter()
    (target / "schema_link" / "links.json").write_text(links.to_json(), encoding="utf-8")
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out.write_text(json.dumps({
        "load_seconds": round(t1 - t0, 3), "discover_seconds": round(t2 - t1, 3),
        "stages": links.timings.to_dict() if links.timings else {},
        "counts": links.counts, "k": k,
        # ru_maxrss counts the parent's size at fork too: the benchmark reports the sampled peak
        "ru_maxrss_mib": round(peak_kib / 1024, 1),
        "relations_profiled": len(relations),
    }, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
