"""Question time on a (metadata-only) project, as its own process:

    python -m scalebench.question PROJECT_DIR OUT.json [--model NAME]   (run from benchmarks/)

Builds the question-time index from scratch (`dbt_schema_link.linker.index`, the default local
embedding model unless --model), measures its size on disk, opens a session (load time), then
asks 60 questions built from the warehouse's own vocabulary (one warm-up, 40 timed one by one,
p50/p95). Writes OUT.json.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path


def questions(project_dir: Path, n: int = 60, seed: int = 3) -> list[str]:
    manifest = json.loads((project_dir / "target" / "manifest.json").read_text(encoding="utf-8"))
    tables = sorted(s["name"] for s in manifest["sources"].values())
    rng = random.Random(seed)
    forms = ("What is the total {m} of {t} per {g}?", "How many {t} have status {s} in {y}?",
             "Average {m} of {t} by {g} for the last month", "List the {t} created by each employee",
             "Which {g} has the most {t} with {m} above 100?")
    out = []
    for _ in range(n):
        t = rng.choice(tables).replace("_", " ")
        g = rng.choice(tables).rstrip("s").replace("_", " ")
        out.append(rng.choice(forms).format(t=t, g=g, m=rng.choice(("amount", "unit price", "weight")),
                                            s=rng.choice(("active", "pending", "closed")),
                                            y=rng.choice(("2023", "2024", "Q3"))))
    return out


def dir_mib(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("project_dir")
    p.add_argument("out")
    p.add_argument("--model", default=None)
    args = p.parse_args(argv)
    import numpy as np

    from dbt_schema_link.linker import service
    from dbt_schema_link.linker.service import default_index_dir
    from dbt_schema_link.project_config import locate

    project = Path(args.project_dir)
    say = lambda msg: print(f"  {msg}", file=sys.stderr, flush=True)  # noqa: E731
    kwargs = {} if args.model is None else {"model": args.model}
    t = time.perf_counter()
    report = service.index([project], force=True, notice=say, **kwargs)
    build_s = time.perf_counter() - t
    say(report.summary())
    index_dir = default_index_dir(locate(str(project), None))
    t = time.perf_counter()
    session = service.open_session([project], refresh=False, notice=say)
    load_s = time.perf_counter() - t
    qs = questions(project)
    session.ask(qs[0])  # warm-up: the first call pays lazy initialisation
    times = []
    for q in qs[1:41]:
        t = time.perf_counter()
        session.ask(q)
        times.append((time.perf_counter() - t) * 1000)
    Path(args.out).write_text(json.dumps({
        "index_build_seconds": round(build_s, 2), "index_size_mib": dir_mib(index_dir),
        "index_load_seconds": round(load_s, 2),
        "ask_p50_ms": round(float(np.percentile(times, 50)), 1),
        "ask_p95_ms": round(float(np.percentile(times, 95)), 1),
        "index_model": report.model, "index_columns": report.columns, "index_relations": report.relations,
        "index_embedded": report.embedded, "questions_timed": len(times),
        "question_peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
