"""Re-linking after one relation changed, against a full run (issue #35).

    python benchmarks/relink.py --project /tmp/scale/L/project --work /tmp/relink [--relations 3] [--seed 35]

Reads a project `scale.py` generated (target/manifest.json, catalog.json, the profile cache), and
runs inference from cached profiles as `link` does, each in its own process (`scalebench.infer`):

1. a first run: no scores memo to read, one written (what a first `link` costs);
2. for each of ``--relations`` relations drawn with ``--seed`` (profiled ones, any kind): that
   relation's profile changed as a re-profile after a build would change it (one new row, a new
   value in every column, `scalebench.infer --change`), then
   - the relink: the first run's memo read, children whose inputs are unchanged not scored again;
   - a full run on the same change, without a memo;
   and the two links.json compared byte for byte.

Prints, per run: process seconds (loading included), discover() seconds, peak memory of the process,
children whose scores were reused / scored, value lookups reused, columns whose candidates were
generated, and whether the links are identical. The target
(issue #35): one changed relation in L re-links in <= 10 s with links identical to a full run.
--json writes the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from scalebench import measure  # noqa: E402


def run_infer(project: Path, work: Path, label: str, memo: Path | None, change: list[str]) -> dict:
    out = work / f"{label}.json"
    cmd = [sys.executable, "-m", "scalebench.infer", str(project), str(out)]
    if memo is not None:
        cmd += ["--memo", str(memo)]
    if change:
        cmd += ["--change", *change]
    m = measure.run(cmd, cwd=HERE, log=work / f"{label}.log", timeout=3600, limit_mib=12_000)
    if m.returncode != 0 or not out.exists():
        tail = (work / f"{label}.log").read_text(errors="replace")[-2000:]
        raise SystemExit(f"{label} failed (exit {m.returncode}):\n{tail}")
    data = json.loads(out.read_text(encoding="utf-8"))
    links = project / "target" / "schema_link" / "links.json"
    shutil.copyfile(links, work / f"{label}.links.json")
    return {"process_seconds": round(m.seconds, 2), "discover_seconds": data["discover_seconds"],
            "load_seconds": data["load_seconds"], "write_seconds": data["write_seconds"],
            "peak_mib": m.peak_mib, "children_reused": data["children_reused"],
            "lookups_reused": data.get("lookups_reused"),
            "children_scored": data["children_scored"], "children_generated": data.get("children_generated"),
            "columns": data["counts"].get("columns"), "stages": data["stages"]}


def profiled_relations(project: Path) -> list[str]:
    cache = json.loads((project / "target" / "schema_link" / "profiles.json").read_text(encoding="utf-8"))
    return sorted(cache["relations"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", type=Path, required=True, help="a project scale.py generated (its L size)")
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--relations", type=int, default=3, help="how many changed relations to try, one at a time")
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    memo = args.work / "scores.memo"
    memo.unlink(missing_ok=True)
    first = run_infer(args.project, args.work, "first", memo, [])
    print(f"first run (memo written): {first['process_seconds']} s process, {first['discover_seconds']} s discover(), "
          f"{first['peak_mib']:.0f} MiB")
    chosen = random.Random(args.seed).sample(profiled_relations(args.project), args.relations)
    figures = {"first": first, "changes": []}
    for i, uid in enumerate(chosen):
        kept = args.work / "first.memo"
        shutil.copyfile(memo, kept)  # every change is re-linked against the first run's memo
        again = run_infer(args.project, args.work, f"relink_{i}", memo, [uid])
        shutil.copyfile(kept, memo)
        full = run_infer(args.project, args.work, f"full_{i}", None, [uid])
        same = (args.work / f"relink_{i}.links.json").read_bytes() == (args.work / f"full_{i}.links.json").read_bytes()
        figures["changes"].append({"relation": uid, "relink": again, "full": full, "identical": same})
        print(f"{uid}: relink {again['process_seconds']} s process ({again['discover_seconds']} s discover(), "
              f"{again['peak_mib']:.0f} MiB; {again['children_reused']} children reused, "
              f"{again['children_scored']} scored, {again['lookups_reused']} value lookups reused, candidates of "
              f"{again['children_generated']} of {again['columns']} columns generated) | full {full['process_seconds']} s process "
              f"({full['discover_seconds']} s discover(), {full['peak_mib']:.0f} MiB) | links identical: {same}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0 if all(c["identical"] for c in figures["changes"]) else 1


if __name__ == "__main__":
    sys.exit(main())
