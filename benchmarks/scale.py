"""Scale and speed on a synthetic warehouse with planted joins (issue #7).

    python benchmarks/scale.py --size S [--json OUT] [--work DIR] [--skip-peer]
    python benchmarks/scale.py --size L
    python benchmarks/scale.py --size M            # opt-in: 10M rows in the largest table
    python benchmarks/scale.py --size XL --skip-index   # opt-in: 1,000,000 columns, metadata only

S (200 relations / ~4,000 columns / 1M rows in the largest table) and M (1,000 / ~20,000 / 10M)
are generated inside DuckDB with SQL (`scalebench/duck.py`) as dbt sources plus staging and mart
models; L (5,000 relations / ~100,000 columns) and XL (50,000 / ~1,000,000) are metadata only:
manifest.json, catalog.json and cached profiles with MinHash signatures written directly
(`scalebench/metadata.py`).

Measured (each against its target, printed side by side):
  profiling cost (S, M)   `dbt-schema-link profile --refresh` wall time over one plain full scan of
                          every relation it reads (`count(c)` of every column, one run-operation);
                          dbt start-up (an empty run-operation) subtracted from both       ≤ 3x
  hash floor (S, M)       one statement per relation hashing every value of the sketched
                          columns once (`sum(hash(c))`): exact-mode profiling (nothing sampled,
                          `--sample-rows 10**12`) over it                                  ≤ 1.5x
                          with planted recall/precision from exact-mode profiles beside the default's
  inference               `discover()` from cached profiles, in its own process: seconds, peak
                          memory, per-stage timings, recall/precision vs the planted joins
                          (L: ≤ 30 s for the process, ≤ 2 GiB; XL: ≤ 600 s, ≤ 12 GiB;
                          growth exponent fitted over the sizes run so far in the work dir)
  question time (L)       index build, size on disk, load, p50/p95 per question (p50 ≤ 50 ms, build ≤ 3 min)
  side by side (S)        S in a throwaway PostgreSQL; schema-linker 0.0.5 and this product
                          (dbt-postgres, `dbt-schema-link link`): seconds, peak MiB, recall, precision

Results of every size run are kept in the work dir (`results_<size>.json`); the growth exponent is
fitted over those. Progress goes to stderr, the table to stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from scalebench import duck, measure, metadata  # noqa: E402
from scalebench.spec import SIZES, build  # noqa: E402
from scalebench.truth import links_pairs, score_pairs  # noqa: E402

START = time.perf_counter()
#: --sample-rows for exact mode: above any table, so nothing is sampled (the macro's maximum)
EXACT_SAMPLE_ROWS = 10**12
TARGETS = {  # every size that measures the figure
    "profile_ratio": ("<= 3x", lambda v: v <= 3),
    "exact_floor_ratio": ("<= 1.5x", lambda v: v <= 1.5),
    "inference_growth_exponent": ("~1 (near-linear)", lambda v: v <= 1.2),
}
#: Targets of one size (issues #7, #35): inference is the whole process, loading included.
SIZE_TARGETS = {
    "L": {"inference_process_seconds": ("<= 30 s (L)", lambda v: v <= 30),
          "inference_peak_mib": ("<= 2048 MiB (L)", lambda v: v <= 2048),
          "index_build_seconds": ("<= 180 s (L)", lambda v: v <= 180),
          "ask_p50_ms": ("<= 50 ms (L)", lambda v: v <= 50)},
    "XL": {"inference_process_seconds": ("<= 600 s (XL)", lambda v: v <= 600),
           "inference_peak_mib": ("<= 12,288 MiB (XL)", lambda v: v <= 12_288),
           "inference_growth_exponent": ("<= 1.1 (L to XL)", lambda v: v <= 1.1)},
}
#: Memory at which the inference process is stopped, per size (above XL's target: the peak is
#: measured, not cut off at it).
INFER_LIMIT_MIB = {"XL": 20_000}


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - START:7.1f}s] {msg}", file=sys.stderr, flush=True)


def dbt_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1"})
    return env


def _exe(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def dbt(project: Path, *args: str, timeout: float = 1800) -> float:
    start = time.perf_counter()
    res = subprocess.run([_exe("dbt"), *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                         cwd=project, env=dbt_env(), capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0:
        raise SystemExit(f"dbt {' '.join(args)} failed:\n{res.stdout[-3000:]}\n{res.stderr[-1000:]}")
    return time.perf_counter() - start


def infer(project: Path, work: Path, label: str) -> dict:
    """`discover()` from cached profiles in its own process, as a first `link` runs it (no scores
    memo to read, one written: benchmarks/relink.py measures the runs after); scores come later."""
    out = work / f"infer_{label}.json"
    memo = work / f"scores_{label}.memo"
    memo.unlink(missing_ok=True)
    log(f"inference from cached profiles ({label}) ...")
    m = measure.run([sys.executable, "-m", "scalebench.infer", str(project), str(out), "--memo", str(memo)], cwd=HERE,
                    log=work / f"infer_{label}.log", timeout=3600, limit_mib=INFER_LIMIT_MIB.get(label, 12_000))
    if m.returncode != 0 or not out.exists():
        tail = (work / f"infer_{label}.log").read_text(errors="replace")[-2000:]
        raise SystemExit(f"inference failed (exit {m.returncode}, over memory: {m.over_memory}):\n{tail}")
    data = json.loads(out.read_text(encoding="utf-8"))
    return {"inference_seconds": data["discover_seconds"], "inference_load_seconds": data["load_seconds"],
            "inference_process_seconds": round(m.seconds, 2), "inference_peak_mib": m.peak_mib,
            "inference_stages": data["stages"], "inference_counts": data["counts"]}


def score(w, project: Path) -> dict:
    links = json.loads((project / "target" / "schema_link" / "links.json").read_text(encoding="utf-8"))
    s = score_pairs(w, links_pairs(links))
    return {"planted_joins": s.planted, "found_joins": s.found, "planted_recall": s.recall,
            "planted_precision": s.precision, "planted_lenient_precision": s.lenient_precision,
            "planted_score": s.to_dict(15)}


def run_data_size(w, work: Path, args) -> dict:
    """S / M: DuckDB data, dbt project, profiling cost, inference, side-by-side (S)."""
    db = work / "warehouse.duckdb"
    project = work / "project"
    out: dict = {}
    if args.reuse and (project / "target" / "catalog.json").exists() and db.exists():
        log("reusing the generated warehouse and project (--reuse)")
    else:
        shutil.rmtree(project, ignore_errors=True)
        log(f"generating {len(w.relations)} relations in DuckDB ...")
        out["generate_seconds"] = round(duck.generate(w, db, log), 2)
        duck.write_project(w, project, db, REPO)
        log("dbt deps / run / docs generate ...")
        for step in (["deps"], ["run"], ["docs", "generate"]):
            dbt(project, *step)
    log("profiling cost: dbt start-up, plain scan, hash floor, exact and default profiling ...")
    load_before = os.getloadavg()[0]  # ratios of one run on a shared machine: the load goes beside them
    noop = dbt(project, "run-operation", "scalebench_noop")
    scan_s = max(dbt(project, "run-operation", "scalebench_count_all") - noop, 1e-3)
    floor_s = max(dbt(project, "run-operation", "scalebench_count_all", "--args", "{hash: true}") - noop, 1e-3)
    out.update({"dbt_startup_seconds": round(noop, 2), "scan_seconds": round(scan_s, 2),
                "hash_floor_seconds": round(floor_s, 2)})
    # exact mode first (no relation sampled), then the default, whose profiles stay in the project
    for mode, extra in (("exact", ["--sample-rows", str(EXACT_SAMPLE_ROWS)]), ("default", [])):
        log(f"dbt-schema-link profile --refresh ({mode}) ...")
        m = measure.run([_exe("dbt-schema-link"), "profile", "--refresh", "--project-dir", str(project),
                         "--profiles-dir", str(project), "--quiet", *extra], cwd=project, env=dbt_env(),
                        log=work / f"profile_{mode}.log", timeout=3600, limit_mib=12_000)
        if m.returncode != 0:
            raise SystemExit(f"dbt-schema-link profile failed, see {work / f'profile_{mode}.log'}")
        prof_s = max(m.seconds - noop, 1e-3)
        label = w.size.name if mode == "default" else f"{w.size.name}_{mode}"
        inferred = infer(project, work, label)
        scored = score(w, project)
        if mode == "exact":
            out.update({"profile_exact_seconds": round(prof_s, 2), "exact_floor_ratio": round(prof_s / floor_s, 2),
                        "exact_recall": scored["planted_recall"], "exact_precision": scored["planted_precision"]})
        else:
            out.update({"profile_seconds": round(prof_s, 2), "profile_ratio": round(prof_s / scan_s, 2),
                        "profile_floor_ratio": round(prof_s / floor_s, 2), "profile_peak_mib": m.peak_mib})
            out.update(inferred)
            out.update(scored)
            out.update(_sampled(project))
    out["load_avg_1m"] = f"{load_before:.2f} -> {os.getloadavg()[0]:.2f}"
    if w.size.name == "S" and not args.skip_peer:
        from scalebench.pg import side_by_side  # noqa: PLC0415

        out.update(side_by_side(w, db, project, work / "pg", Path(args.peer_venv), args.peer_timeout, log))
    return out


def _sampled(project: Path) -> dict:
    """How many relations the default mode sampled, by sample method (the profile cache)."""
    cache = json.loads((project / "target" / "schema_link" / "profiles.json").read_text(encoding="utf-8"))
    methods: dict[str, int] = {}
    for entry in cache["relations"].values():
        prof = entry["profile"]
        if prof.get("sampled"):
            method = prof.get("sample_method") or "rows"
            methods[method] = methods.get(method, 0) + 1
    return {"sampled_relations": ", ".join(f"{n} by {m}" for m, n in sorted(methods.items())) or "none"}


def run_metadata_size(w, work: Path, args) -> dict:
    """L: artifacts and cached profiles written directly; inference; question time."""
    project = work / "project"
    out: dict = {}
    if not (args.reuse and (project / "target" / "schema_link" / "profiles.json").exists()):
        shutil.rmtree(project, ignore_errors=True)
        log(f"writing manifest, catalog and synthetic profiles for {len(w.relations)} relations ...")
        t = time.perf_counter()
        metadata.write_artifacts(w, project, progress=log)
        out["generate_seconds"] = round(time.perf_counter() - t, 2)
    out.update(infer(project, work, w.size.name))
    out.update(score(w, project))
    if not args.skip_index:
        log("question time: index build, load, 40 questions ...")
        q = work / "question.json"
        cmd = [sys.executable, "-m", "scalebench.question", str(project), str(q)]
        if args.index_model:
            cmd += ["--model", args.index_model]
        m = measure.run(cmd, cwd=HERE, log=work / "question.log", timeout=1800, limit_mib=12_000)
        if m.returncode == 0 and q.exists():
            out.update(json.loads(q.read_text(encoding="utf-8")))
            out["question_process_peak_mib"] = m.peak_mib
        else:
            out["question_error"] = (work / "question.log").read_text(errors="replace")[-2000:]
    return out


def growth(root: Path) -> dict:
    """Fitted exponent of inference seconds against columns over the sizes run so far."""
    points = []
    for path in [root / f"results_{size}.json" for size in SIZES if size != "tiny"]:
        if not path.exists():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("inference_seconds") and data.get("columns"):
            points.append((data["size"], data["columns"], data["inference_seconds"]))
    if len(points) < 2:
        return {"inference_growth_points": points}
    xs = [math.log(c) for _, c, _ in points]
    ys = [math.log(max(s, 1e-3)) for _, _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else None
    return {"inference_growth_exponent": round(slope, 3) if slope is not None else None,
            "inference_growth_points": points}


def render(result: dict) -> str:
    rows = [("figure", "value", "target", "")]

    def add(key: str, label: str, unit: str = "", fmt: str = "{:.2f}") -> None:
        if result.get(key) is None:
            return
        value = result[key]
        text = (fmt.format(value) if isinstance(value, (int, float)) else str(value)) + unit
        target, ok = SIZE_TARGETS.get(result["size"], {}).get(key) or TARGETS.get(key, ("", None))
        rows.append((label, text, target, "" if ok is None else ("ok" if ok(value) else "MISSED")))

    rows.append((f"size {result['size']}", f"{result['relations']:,} relations", f"{result['columns']:,} columns", ""))
    add("generate_seconds", "generate (data or artifacts)", " s")
    add("scan_seconds", "plain full scan", " s")
    add("hash_floor_seconds", "hash floor (every sketched value hashed once)", " s")
    add("profile_exact_seconds", "profile, exact mode (nothing sampled)", " s")
    add("exact_floor_ratio", "exact profiling / hash floor", "x")
    add("profile_seconds", "profile, default mode", " s")
    add("profile_ratio", "default profiling / scan", "x")
    add("profile_floor_ratio", "default profiling / hash floor", "x")
    add("sampled_relations", "  relations sampled (default mode)")
    add("load_avg_1m", "load average (1 min) before -> after profiling")
    add("inference_seconds", "inference (discover)", " s")
    add("inference_load_seconds", "  + reading artifacts/profiles", " s")
    add("inference_process_seconds", "inference process (loading included)", " s")
    add("inference_peak_mib", "inference peak memory", " MiB", "{:.0f}")
    add("inference_growth_exponent", "inference growth exponent", "", "{:.2f}")
    add("planted_recall", "planted recall", "", "{:.3f}")
    add("planted_precision", "planted precision", "", "{:.3f}")
    add("planted_lenient_precision", "planted lenient precision", "", "{:.3f}")
    add("exact_recall", "planted recall, exact-mode profiles", "", "{:.3f}")
    add("exact_precision", "planted precision, exact-mode profiles", "", "{:.3f}")
    add("index_build_seconds", "index build", " s")
    add("index_size_mib", "index size", " MiB", "{:.1f}")
    add("index_load_seconds", "index load", " s")
    add("ask_p50_ms", "ask p50", " ms", "{:.1f}")
    add("ask_p95_ms", "ask p95", " ms", "{:.1f}")
    for tool, name in (("product", "dbt-schema-link (PostgreSQL)"), ("peer", "schema-linker 0.0.5 (PostgreSQL)")):
        if f"{tool}_seconds" in result:
            rows.append((name, "", "", ""))
            add(f"{tool}_seconds", "  wall time", " s")
            add(f"{tool}_peak_mib", "  peak memory", " MiB", "{:.0f}")
            add(f"{tool}_recall", "  recall" + (" (report: all pairs of a group)" if tool == "peer" else ""), "", "{:.3f}")
            add(f"{tool}_precision", "  precision" + (" (report)" if tool == "peer" else ""), "", "{:.3f}")
            if tool == "peer":
                add("peer_edges_recall", "  recall (its pairwise links)", "", "{:.3f}")
                add("peer_edges_precision", "  precision (its pairwise links)", "", "{:.3f}")
                add("peer_recall_within_schema", "  recall on joins inside one schema", "", "{:.3f}")
    if "peer_seconds" in result and "product_seconds" in result:
        faster = result["product_seconds"] < result["peer_seconds"]
        peer_recall = max(result.get("peer_recall") or 0, result.get("peer_edges_recall") or 0)
        peer_precision = max(result.get("peer_precision") or 0, result.get("peer_edges_precision") or 0)
        better = (result.get("product_recall") or 0) >= peer_recall and \
                 (result.get("product_precision") or 0) >= peer_precision
        rows.append(("side by side", "", "product faster and more accurate",
                     "ok" if faster and better else "MISSED"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    stages = result.get("inference_stages") or {}
    if stages:
        total = sum(stages.values()) or 1e-9
        lines.append("\ninference stages (wall seconds):")
        for name, secs in stages.items():
            lines.append(f"  {name:<28} {secs:8.2f}  {100 * secs / total:5.1f}%")
    kinds = (result.get("planted_score") or {}).get("recall_by_kind") or {}
    if kinds:
        lines.append("\nrecall by kind of planted join: " + ", ".join(
            f"{k} {v['found']}/{v['planted']}" for k, v in kinds.items()))
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", required=True, choices=[s for s in SIZES if s != "tiny"])
    p.add_argument("--json", dest="json_out", help="also write the figures here")
    p.add_argument("--work", default=str(HERE / "out" / "scale"),
                   help="work dir (default benchmarks/out/scale); results_<size>.json are kept there")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--skip-peer", action="store_true", help="S: no PostgreSQL side-by-side")
    p.add_argument("--skip-index", action="store_true", help="L: no question-time index")
    p.add_argument("--index-model", default=None, help="embedding model for the L index (default: the product's)")
    p.add_argument("--reuse", action="store_true", help="reuse the generated warehouse/project in the work dir")
    p.add_argument("--peer-venv", default="/tmp/fkb/peer-venv" if Path("/tmp/fkb/peer-venv").exists()
                   else str(HERE / "out" / "peer-venv"))
    p.add_argument("--peer-timeout", type=float, default=900)
    args = p.parse_args(argv)
    root = Path(args.work)
    work = root / args.size
    work.mkdir(parents=True, exist_ok=True)
    w = build(args.size, args.seed)
    (work / "planted.json").write_text(json.dumps(w.truth_json(), indent=1) + "\n", encoding="utf-8")
    log(f"size {args.size}: {len(w.relations)} relations, {w.columns} columns, {len(w.planted)} planted joins")
    result = {"size": args.size, "relations": len(w.relations), "columns": w.columns, "seed": args.seed,
              "planted_truth": str(work / "planted.json")}
    result.update(run_data_size(w, work, args) if w.size.data else run_metadata_size(w, work, args))
    result["total_seconds"] = round(time.perf_counter() - START, 1)
    (root / f"results_{args.size}.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    result.update(growth(root))
    (root / f"results_{args.size}.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(render(result))
    log(f"done in {result['total_seconds']:.0f}s; figures in {root / f'results_{args.size}.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
