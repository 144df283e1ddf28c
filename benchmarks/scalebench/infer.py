"""Inference from cached profiles, as its own process (so its peak memory is its own):

    python -m scalebench.infer PROJECT_DIR OUT.json [--memo PATH] [--change UID ...]   (from benchmarks/)

Reads target/manifest.json, catalog.json and target/schema_link/profiles.json, runs `discover()`
with no warehouse (no exact verification), writes target/schema_link/links.json and OUT.json:
load and discovery seconds, per-stage timings, counts, peak RSS (MiB).

``--memo PATH``: what `link` does with its scores memo: the last run's is read when PATH exists
(children whose inputs are unchanged are not scored again) and this run's is written there, in
projects of at most ``relink_max_columns`` columns.
``--change UID``: that relation's profile is altered after loading, as if a build had changed it
and the on-run-end hook had profiled it again: one more row, one more distinct value in each
profiled column, the first minimum of each signature replaced (deterministic).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import sys
import time
from pathlib import Path


def changed(profile):
    """``profile`` after one new row whose values are new in every column."""
    import numpy as np

    from dbt_schema_link.profiling.records import Signature

    columns = {}
    for name, col in profile.columns.items():
        if col.minhash is not None:
            array = np.asarray(col.minhash).copy()
            array[0] = array[0] // 2 + 1  # the new value's hash is the smallest under the first function
            col = dataclasses.replace(col, minhash=Signature.of_array(array), non_null=col.non_null + 1,
                                      distinct=col.distinct + 1)
        columns[name] = col
    return dataclasses.replace(profile, row_count=profile.row_count + 1, columns=columns)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scalebench.infer")
    parser.add_argument("project_dir", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--memo", type=Path)
    parser.add_argument("--change", nargs="*", default=[])
    args = parser.parse_args(argv)
    from dbt_schema_link.collector import collector_paused

    with collector_paused():  # as `link` runs (api.link)
        return _infer(args)


def _infer(args: argparse.Namespace) -> int:
    project_dir, out = args.project_dir, args.out
    t0 = time.perf_counter()
    from dbt_schema_link.artifacts.manifest import read_project
    from dbt_schema_link.discovery import DiscoverySettings, discover
    from dbt_schema_link.discovery.memo import Relink, keeps_memo
    from dbt_schema_link.profiling.stored import stored_profiles
    from dbt_schema_link.score_memo_file import read_memo, write_memo

    target = project_dir / "target"
    project = read_project(target, require_catalog=True, project_dir=project_dir)
    # what `link --no-warehouse` reads: the profile cache, K taken from the signatures themselves
    profiles = stored_profiles(target / "schema_link" / "profiles.json", project)
    relations, k = (profiles.relations, profiles.k) if profiles is not None else ({}, 0)
    for uid in args.change:
        relations[uid] = changed(relations[uid])
    relink = None
    if args.memo is not None and keeps_memo(project, DiscoverySettings()):  # as `link` decides
        relink = Relink(previous=read_memo(args.memo))
    t1 = time.perf_counter()
    links = discover(project, profiles, None, None,
                     lambda msg: print(f"  {msg}", file=sys.stderr, flush=True), relink=relink)
    t2 = time.perf_counter()
    (target / "schema_link" / "links.json").write_text(links.to_json(), encoding="utf-8")
    if relink is not None and relink.memo is not None:
        write_memo(args.memo, relink.memo)
    t3 = time.perf_counter()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out.write_text(json.dumps({
        "load_seconds": round(t1 - t0, 3), "discover_seconds": round(t2 - t1, 3),
        "write_seconds": round(t3 - t2, 3),
        "stages": links.timings.to_dict() if links.timings else {},
        "counts": links.counts, "k": k,
        # ru_maxrss counts the parent's size at fork too: the benchmark reports the sampled peak
        "ru_maxrss_mib": round(peak_kib / 1024, 1),
        "relations_profiled": len(relations),
        "children_reused": relink.use.children_reused if relink else None,
        "lookups_reused": relink.use.lookups_reused if relink else None,
        "children_scored": relink.use.children_scored if relink else None,
        "children_generated": relink.use.children_generated if relink else None,
    }, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
