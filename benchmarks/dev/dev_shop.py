"""Developer harness (not a test): run ``discover()`` on a built ``examples/shop`` project and
compare with ``examples/shop/expected_links.json`` (joins, traps, lineage).

Needs a built copy of the example (``dbt build`` + ``dbt docs generate`` on DuckDB); profiles are
computed here in Python from the DuckDB file, the way ``dev_spider.py`` does for SQLite.

    python tests/discovery/dev_shop.py --target /tmp/shop/target --duckdb /tmp/shop/shop.duckdb [-v]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.dirname(__file__))

import duckdb  # noqa: E402
from dev_spider import FLAG_VALUES, K, minhash  # noqa: E402

from dbt_schema_link.artifacts.manifest import read_project  # noqa: E402
from dbt_schema_link.discovery import DiscoverySettings, discover, render_markdown  # noqa: E402
from dbt_schema_link.profiling.records import (  # noqa: E402
    ColumnProfile, ContainmentResult, ProfileSet, RelationProfile,
)

EXPECTED = Path(__file__).resolve().parents[2] / "examples" / "shop" / "expected_links.json"


def profile(project, db_path):
    con = duckdb.connect(db_path, read_only=True)
    profiles, values = {}, {}
    for uid, rel in project.relations.items():
        if rel.schema is None:
            continue
        table = f'"{rel.schema}"."{rel.identifier}"'
        try:
            rows = con.execute(f"select * from {table}").fetchall()
            names = [d[0] for d in con.description]
        except duckdb.Error:
            continue
        cols = {}
        for i, name in enumerate(names):
            texts = [str(r[i]).strip() for r in rows if r[i] is not None]
            distinct = set(texts)
            values[(uid, name.lower())] = distinct
            counts = Counter(texts)
            col = rel.column(name)
            cols[name.lower()] = ColumnProfile(
                name=name, data_type=col.data_type if col else None, non_null=len(texts), distinct=len(distinct),
                distinct_approx=False, min_len=min((len(v) for v in texts), default=None),
                max_len=max((len(v) for v in texts), default=None), minhash=minhash(distinct),
                top_values=tuple(v for v, _ in counts.most_common(10)) if 0 < len(distinct) <= 50 else None,
                flag_words=bool(texts) and all(v.lower() in FLAG_VALUES for v in distinct),
            )
        profiles[uid] = RelationProfile(uid, rel.relation_name or table, len(rows), False, None, cols)
    return ProfileSet(adapter="duckdb", k=K, package_version="0.1.0", relations=profiles), values


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--duckdb", required=True)
    ap.add_argument("--md")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    project = read_project(Path(args.target))
    profiles, values = profile(project, args.duckdb)

    def verify(pairs):
        out = {}
        for c, p in pairs:
            a, b = values.get((c.relation, c.column.lower()), set()), values.get((p.relation, p.column.lower()), set())
            out[(c, p)] = ContainmentResult(c.relation, c.column, p.relation, p.column, len(a), len(a & b))
        return out

    t0 = time.perf_counter()
    links = discover(project, profiles, DiscoverySettings(), verify=verify, progress=print if args.verbose else None)
    dt = time.perf_counter() - t0
    name = {uid: rel.short_name for uid, rel in project.relations.items()}

    def nm(ref):
        return f"{name[ref.relation]}.{ref.column}".lower()

    expected = json.loads(EXPECTED.read_text())
    gold = {(j["child"].lower(), j["parent"].lower()) for j in expected["joins"]}
    traps = {frozenset((t["a"].lower(), t["b"].lower())) for t in expected["traps"]}
    lineage_gold = {(x["downstream"].lower(), x["upstream"].lower()) for x in expected["lineage"]}
    joins = {(nm(l.child), nm(l.parent)): l for l in links.joins()}
    lineage = {(nm(l.child), nm(l.parent)) for l in links.lineage}
    found_gold = gold & set(joins)
    print(f"joins: {len(found_gold)}/{len(gold)} expected found; {len(joins)} reported "
          f"({len(links.declared)} declared, {len(links.inferred)} inferred) in {dt:.2f}s")
    for g in sorted(gold - set(joins)):
        print("  MISSING", g)
    for j, l in sorted(joins.items()):
        if j not in gold:
            tag = "TRAP!" if frozenset(j) in traps else "extra"
            print(f"  {tag} {j[0]} -> {j[1]} {l.kind.value} {l.confidence:.2f} "
                  + "; ".join(f"{e.signal.value}{e.contribution:+.1f}" for e in l.evidence))
    print(f"lineage: {len(lineage & lineage_gold)}/{len(lineage_gold)} expected found, {len(lineage - lineage_gold)} extra")
    for x in sorted(lineage_gold - lineage):
        print("  MISSING lineage", x)
    for x in sorted(lineage - lineage_gold):
        print("  extra lineage", x)
    print(f"rejected traps: {[(nm(r.child), nm(r.parent), r.trap.value) for r in links.rejected]}")
    print(f"domains: {len(links.domains)}; counts {links.counts}; notes {links.notes}")
    if args.md:
        Path(args.md).write_text(render_markdown(links, project))
        Path(args.md).with_suffix(".json").write_text(links.to_json())


if __name__ == "__main__":
    main()
