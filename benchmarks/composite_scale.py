"""Composite-key candidate generation at warehouse scale (issue #61), in-process, no dbt.

    python benchmarks/composite_scale.py [--families 60] [--shards 40] [--singles 200] [--columns 46]
    python benchmarks/composite_scale.py --warehouse-large [--limit-databases N]
    python benchmarks/composite_scale.py ... --profile          # cProfile's top functions too
    python benchmarks/composite_scale.py ... --ref main         # REF's candidates() too, same warehouse

The shape that made `composite.candidates` run for 15 CPU-minutes on a held-out 120,000-column
warehouse: many date-sharded families (`web_events_20240101` ... one shard per day) whose
shards share every column name, beside families and single relations that share some common
column names (`user_id`, `country`, `platform`). Synthetic (default): relations and profiles
written as records directly (distinct counts, lengths, min/max; no MinHash: candidate generation
reads none), 60 families of 40 shards and 200 single relations of 46 columns: 2,600 relations,
119,600 columns. `--warehouse-large`: the 53 databases of `../shared/data/warehouse_large`
(3,697 tables, 98k columns), profiled from their sample rows the way the test builders do.

`--ref REF`: after this tree's, REF's ``composite.candidates`` (``git show
REF:dbt_schema_link/discovery/composite.py``) runs on the same features, its seconds printed and
whether both returned the same candidates (run it under `timeout`: before #61 it ran for tens of
minutes on the default shape).

`--compare REF --projects DIR ...`: for each dbt project directory a benchmark left behind
(target/manifest.json, catalog.json, target/schema_link/profiles.json and the DuckDB file its
profiles.yml names; `dirt.py`'s and `fk_recovery.py`'s work dirs hold them), `discover()` runs
twice in-process with exact checks answered from that DuckDB file, once with this tree's
`composite` module and once with REF's (`git show REF:dbt_schema_link/discovery/composite.py`):
the composite candidates and the composite links of both are compared, and the time
`candidates` took in each.

Prints the features build time (not the subject), then `composite.candidates` seconds and how
many candidates it returned, and `composite_links` with a verifier that answers nothing (the
warehouse check skipped): the whole composite stage's Python cost. Figures are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import json
import pstats
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from dbt_schema_link.artifacts.records import Column, Project, Relation, ResourceType  # noqa: E402
from dbt_schema_link.discovery import composite  # noqa: E402
from dbt_schema_link.discovery.features import build_features  # noqa: E402
from dbt_schema_link.discovery.settings import DiscoverySettings  # noqa: E402
from dbt_schema_link.profiling.records import ColumnProfile, ProfileSet, RelationProfile  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "warehouse_large"

#: Column names many families share (a GA-like export): (name, type, distinct per 1,000 rows or
#: a fixed count when negative).
COMMON = [
    ("user_id", "VARCHAR", 300), ("session_id", "VARCHAR", 500), ("visit_id", "INTEGER", 400),
    ("visit_number", "INTEGER", -40), ("hit_number", "INTEGER", -60), ("event_date", "DATE", -1),
    ("event_name", "VARCHAR", -25), ("country", "VARCHAR", -80), ("region", "VARCHAR", -300),
    ("city", "VARCHAR", -900), ("platform", "VARCHAR", -4), ("device_category", "VARCHAR", -3),
    ("browser", "VARCHAR", -12), ("operating_system", "VARCHAR", -9), ("language", "VARCHAR", -40),
    ("app_version", "VARCHAR", -30), ("traffic_source", "VARCHAR", -15), ("traffic_medium", "VARCHAR", -8),
    ("campaign_id", "VARCHAR", -60), ("page_path", "VARCHAR", -700), ("screen_name", "VARCHAR", -90),
    ("product_id", "INTEGER", -800), ("category_code", "VARCHAR", -35), ("store_id", "INTEGER", -50),
    ("channel_code", "VARCHAR", -6), ("currency_code", "VARCHAR", -20), ("stream_id", "INTEGER", -5),
    ("item_id", "INTEGER", -600), ("promo_code", "VARCHAR", -70), ("customer_id", "INTEGER", 250),
]
NOUNS = ["events", "sessions", "hits", "page_views", "orders", "clicks", "impressions", "installs",
         "purchases", "searches", "carts", "visits", "logins", "signups", "reviews", "ratings"]
ADJECTIVES = ["web", "app", "mobile", "desktop", "partner", "store", "email", "social", "video", "ads",
              "game", "tv", "kiosk", "api", "batch", "live"]
ATTRS = ["score", "bucket", "tier", "label", "kind", "group", "stage", "status", "source", "slot",
         "variant", "step", "rank", "band", "zone", "lane", "phase", "level", "mode", "route",
         "code", "ref", "num", "key", "sequence", "position", "number", "flag_code", "class", "unit"]


def _profile(name: str, dtype: str, rows: int, distinct: int) -> ColumnProfile:
    numeric = dtype == "INTEGER"
    return ColumnProfile(name=name, data_type=dtype, non_null=rows, distinct=distinct, distinct_approx=False,
                         min_len=1, max_len=12, minhash=None, top_values=None, flag_words=False,
                         min_value=1.0 if numeric else None, max_value=float(distinct * 3) if numeric else None)


def _relation(uid: str, schema: str, ident: str, columns: list[tuple[str, str]]) -> Relation:
    return Relation(unique_id=uid, resource_type=ResourceType.SOURCE, name=f"{schema}.{ident}", package_name="bench",
                    database="db", schema=schema, identifier=ident, relation_name=f'"db"."{schema}"."{ident}"',
                    columns={n.lower(): Column(name=n, data_type=t, index=i) for i, (n, t) in enumerate(columns)})


def synthetic(families: int, shards: int, singles: int, width: int, seed: int) -> tuple[Project, ProfileSet]:
    """Date-sharded families sharing every column name, and single relations beside them."""
    rng = random.Random(seed)
    relations: dict[str, Relation] = {}
    profiles: dict[str, RelationProfile] = {}
    stems = [f"{a}_{n}" for n in NOUNS for a in ADJECTIVES]
    rng.shuffle(stems)

    def add(schema: str, ident: str, spec: list[tuple[str, str, int]], rows: int) -> None:
        uid = f"source.bench.{schema}.{ident}"
        relations[uid] = _relation(uid, schema, ident, [(n, t) for n, t, _ in spec])
        cols = {}
        for n, t, d in spec:
            distinct = max(1, min(rows, -d if d < 0 else rows * d // 1000))
            cols[n.lower()] = _profile(n, t, rows, distinct)
        profiles[uid] = RelationProfile(uid, relations[uid].relation_name, rows, False, None, cols)

    def shape(stem: str, n_common: int) -> list[tuple[str, str, int]]:
        word = stem.split("_")[0]
        spec = [(f"{stem.split('_')[-1]}_row_id", "INTEGER", 1000)]  # unique: the relation's own key
        spec += rng.sample(COMMON, n_common)
        own = rng.sample(ATTRS, min(len(ATTRS), width - len(spec)))
        spec += [(f"{word}_{a}", rng.choice(("VARCHAR", "INTEGER")), -rng.choice((2, 3, 5, 8, 13, 40, 120, 500)))
                 for a in own]
        while len(spec) < width:
            spec.append((f"{word}_extra_{len(spec)}", "VARCHAR", -rng.randint(2, 900)))
        return spec[:width]

    for f in range(families):
        stem = stems[f % len(stems)] + ("" if f < len(stems) else f"_{f}")
        spec = shape(stem, rng.randint(10, 24))
        rows = rng.choice((800, 1000, 2000, 5000))
        for s in range(shards):
            day = f"2024{1 + s // 28:02d}{1 + s % 28:02d}"
            add("analytics", f"{stem}_{day}", spec, rows + rng.randint(0, 50))
    for i in range(singles):
        stem = stems[(families + i) % len(stems)] + f"_dim{i}"
        add("reference", stem, shape(stem, rng.randint(2, 8)), rng.choice((50, 300, 1000)))
    project = Project(project_name="bench", dbt_version="1.11.0", adapter_type="duckdb", relations=relations,
                      parent_map={uid: [] for uid in relations}, has_catalog=True)
    return project, ProfileSet(adapter="duckdb", k=64, package_version="0.1.0", relations=profiles)


def warehouse_large(limit: int | None, only: list[str] | None = None) -> tuple[Project, ProfileSet]:
    """The sample rows of ../shared/data/warehouse_large as profiles (tests/discovery/builders)."""
    from tests.discovery.builders import Warehouse
    from whbench.load import read_warehouse

    w = Warehouse("whbench")
    for t in read_warehouse(DATA, limit):
        if only and t.database not in only:
            continue
        w.table(t.identifier, {c.name: (c.data_type, [r.get(c.name) for r in t.rows]) for c in t.columns},
                source=t.database)
    return w.project(), w.profiles()


def _module_at(ref: str):
    """``dbt_schema_link.discovery.composite`` as it is at git revision ``ref``."""
    src = subprocess.run(["git", "show", f"{ref}:dbt_schema_link/discovery/composite.py"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    name = f"composite_at_{ref.replace('-', '_').replace('/', '_')}"
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up
    exec(compile(src, f"{ref}:dbt_schema_link/discovery/composite.py", "exec"), mod.__dict__)
    return mod


class DuckAnswers:
    """Exact containment (one column, and tuples) from the DuckDB file a benchmark project
    profiled, values compared as trimmed text (the profile macros' canonical text, near enough
    for comparing two revisions on the same answers)."""

    def __init__(self, path: Path, project: Project) -> None:
        import duckdb

        self.con = duckdb.connect(str(path), read_only=True)
        self.names = {uid: rel.relation_name for uid, rel in project.relations.items()}

    def _values(self, refs) -> tuple[str, str]:
        rel = self.names[refs[0].relation]
        cols = [f'trim(cast("{r.column}" as varchar))' for r in refs]
        return rel, ", ".join(cols), " and ".join(f'"{r.column}" is not null' for r in refs)

    def verify(self, pairs):
        from dbt_schema_link.profiling.records import ContainmentResult

        out = {}
        for c, p in pairs:
            crel, ccol, cnn = self._values((c,))
            prel, pcol, pnn = self._values((p,))
            d, m, o = self.con.execute(
                f"with c as (select {ccol} v from {crel} where {cnn}), p as (select distinct {pcol} v from {prel} "
                f"where {pnn}) select (select count(distinct v) from c), (select count(distinct v) from c where v in "
                f"(select v from p)), (select count(*) from c where v not in (select v from p))").fetchone()
            out[(c, p)] = ContainmentResult(c.relation, c.column, p.relation, p.column, d, m, orphan_rows=o)
        return out

    def verify_tuples(self, pairs):
        from dbt_schema_link.profiling.records import TupleContainmentResult

        out = {}
        for child, parent in pairs:
            crel, ccols, cnn = self._values(child)
            prel, pcols, pnn = self._values(parent)
            d, m, o, pr, pd = self.con.execute(
                f"with c as (select [{ccols}] v from {crel} where {cnn}), p as (select distinct [{pcols}] v from {prel} "
                f"where {pnn}) select (select count(distinct v) from c), (select count(distinct v) from c where v in "
                f"(select v from p)), (select count(*) from c where v not in (select v from p)), "
                f"(select count(*) from {prel}), (select count(distinct [{pcols}]) from {prel} where {pnn})").fetchone()
            out[(child, parent)] = TupleContainmentResult(
                child[0].relation, tuple(r.column for r in child), parent[0].relation, tuple(r.column for r in parent),
                d, m, o, pr, pd)
        return out


def compare(ref: str, dirs: list[Path]) -> int:
    """The composite candidates and links of this tree and of ``ref`` on benchmark projects."""
    import yaml

    from dbt_schema_link.artifacts.manifest import read_project
    from dbt_schema_link.discovery import discover, pipeline
    from dbt_schema_link.profiling.stored import stored_profiles

    old = _module_at(ref)
    differ = 0
    totals = {"ref": 0.0, "tree": 0.0}
    for d in dirs:
        project = read_project(d / "target", require_catalog=True, project_dir=d)
        profiles = stored_profiles(d / "target" / "schema_link" / "profiles.json", project)
        outputs = next(iter(yaml.safe_load((d / "profiles.yml").read_text()).values()))["outputs"]
        duck = DuckAnswers(Path(next(iter(outputs.values()))["path"]), project)
        seen = {}
        for name, mod in (("ref", old), ("tree", composite)):
            rec = {"seconds": 0.0, "candidates": []}
            original = mod.candidates

            def timed(*a, _original=original, _rec=rec, **k):
                t = time.perf_counter()
                out = _original(*a, **k)
                _rec["seconds"] += time.perf_counter() - t
                _rec["candidates"] = [c.refs() for c in out]
                return out

            mod.candidates = timed
            pipeline.composite = mod
            try:
                links = discover(project, profiles, DiscoverySettings(), duck.verify, verify_tuples=duck.verify_tuples)
            finally:
                mod.candidates = original
                pipeline.composite = composite
            rec["links"] = sorted(" & ".join(f"{c.column}->{p.relation.split('.')[-1]}.{p.column}"
                                             for c, p in link.column_pairs()) for link in links.links if link.is_composite)
            seen[name] = rec
            totals[name] += rec["seconds"]
        same_c = seen["ref"]["candidates"] == seen["tree"]["candidates"]
        same_l = seen["ref"]["links"] == seen["tree"]["links"]
        differ += not (same_c and same_l)
        print(f"{d}: candidates {len(seen['ref']['candidates'])} / {len(seen['tree']['candidates'])} "
              f"({'same' if same_c else 'DIFFERENT'}), composite links {len(seen['ref']['links'])} / "
              f"{len(seen['tree']['links'])} ({'same' if same_l else 'DIFFERENT'}), candidates() "
              f"{seen['ref']['seconds']:.3f} s / {seen['tree']['seconds']:.3f} s")
        if not same_l:
            print("   ref only:", sorted(set(seen["ref"]["links"]) - set(seen["tree"]["links"])))
            print("   tree only:", sorted(set(seen["tree"]["links"]) - set(seen["ref"]["links"])))
        if not same_c:
            a, b = set(seen["ref"]["candidates"]), set(seen["tree"]["candidates"])
            print(f"   candidates: {len(a - b)} only at {ref}, {len(b - a)} only in this tree")
        for link in seen["tree"]["links"]:
            print("   ", link)
    print(f"{len(dirs)} projects, {differ} differ; candidates() {totals['ref']:.2f} s at {ref}, "
          f"{totals['tree']:.2f} s in this tree")
    return 1 if differ else 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--families", type=int, default=60)
    p.add_argument("--shards", type=int, default=40)
    p.add_argument("--singles", type=int, default=200)
    p.add_argument("--columns", type=int, default=46)
    p.add_argument("--seed", type=int, default=61)
    p.add_argument("--warehouse-large", action="store_true", help="../shared/data/warehouse_large instead")
    p.add_argument("--limit-databases", type=int, default=None)
    p.add_argument("--only", nargs="+", metavar="DB", help="only these warehouse_large databases (`ga360`)")
    p.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a discovery setting")
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--ref", metavar="REF", help="also time this git revision's candidates() here")
    p.add_argument("--compare", metavar="REF", help="compare with this git revision on --projects")
    p.add_argument("--projects", nargs="+", type=Path, default=[], metavar="DIR", help="dbt project dirs (--compare)")
    args = p.parse_args(argv)
    if args.compare:
        return compare(args.compare, args.projects)

    t0 = time.perf_counter()
    if args.warehouse_large:
        if not DATA.is_dir():
            print(f"no benchmark data at {DATA}", file=sys.stderr)
            return 2
        project, profiles = warehouse_large(args.limit_databases, args.only)
    else:
        project, profiles = synthetic(args.families, args.shards, args.singles, args.columns, args.seed)
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    settings = DiscoverySettings(**overrides)
    features = build_features(project, profiles, settings)
    build_s = time.perf_counter() - t0
    n_cols = len(features.columns)
    print(f"warehouse: {len(features.relations):,} relations, {n_cols:,} columns (built in {build_s:.1f} s)")

    prof = cProfile.Profile() if args.profile else None
    if prof:
        prof.enable()
    t1 = time.perf_counter()
    cands = composite.candidates(features, settings, lambda c, p: False)
    cand_s = time.perf_counter() - t1
    asked: list[int] = []

    def verify(pairs):
        asked.append(len(pairs))
        return {}

    t2 = time.perf_counter()
    _, checked = composite.composite_links(features, settings, verify, lambda c, p: False)
    links_s = time.perf_counter() - t2
    if prof:
        prof.disable()
    parents = len({c.parent_rel.uid for c in cands})
    print(f"composite.candidates: {cand_s:.2f} s, {len(cands)} candidates on {parents} parent relations")
    print(f"composite_links (verifier answers nothing): {links_s:.2f} s, {checked} checked, "
          f"verifier called {len(asked)} time(s)")
    for c in cands[:10]:
        print("  ", ", ".join(x.ref.column for x in c.child), "->", c.parent_rel.relation.short_name,
              "(" + ", ".join(x.ref.column for x in c.parent) + ")", "from", c.child[0].rel.relation.short_name)
    if args.ref:
        t3 = time.perf_counter()
        theirs = _module_at(args.ref).candidates(features, settings, lambda c, p: False)
        same = [c.refs() for c in theirs] == [c.refs() for c in cands]
        print(f"composite.candidates at {args.ref}: {time.perf_counter() - t3:.2f} s, {len(theirs)} candidates "
              f"({'the same' if same else 'not the same'})")
    if prof:
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    if args.json:
        args.json.write_text(json.dumps({
            "relations": len(features.relations), "columns": n_cols, "candidates_seconds": round(cand_s, 3),
            "composite_links_seconds": round(links_s, 3), "candidates": len(cands), "checked": checked,
        }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
