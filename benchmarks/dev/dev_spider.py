"""Developer harness (not a test, not part of the product): run ``discover()`` on the 22 SQLite
benchmark databases in ``../shared/data`` without dbt, and score it against their declared FKs.

It builds a ``Project`` of sources and a ``ProfileSet`` straight from each SQLite file the way
the benchmark's DuckDB load + ``link_schemas`` macro would see it (values typed BIGINT / DOUBLE /
VARCHAR from the declared SQLite type when every value converts, canonical text, exact distinct
counts, 128 MinHash minima of a 64-bit hash, top values, flags), with FKs stripped. The verifier
computes exact containment from the same canonical values.

    python tests/discovery/dev_spider.py [--no-profiles] [--no-verify] [--db NAME] [-v]
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import re
import sqlite3
import sys
import time
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

from dbt_schema_link.artifacts.records import Column, ColumnRef, Project, Relation, ResourceType  # noqa: E402
from dbt_schema_link.discovery import DiscoverySettings, LinkKind, discover  # noqa: E402
from dbt_schema_link.profiling.records import (  # noqa: E402
    ColumnProfile, ContainmentResult, ProfileSet, RelationProfile,
)

DATA = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
K = 128
_SEEDS = np.random.default_rng(20240601).integers(0, 2**63, size=K, dtype=np.uint64) | np.uint64(1)
FLAG_VALUES = {"0", "1", "true", "false", "t", "f", "y", "n", "yes", "no"}


def databases() -> list[tuple[str, str]]:
    paths = sorted(glob.glob(os.path.join(DATA, "spider_dev", "database", "*", "*.sqlite")))
    paths += [os.path.join(DATA, "classic", "chinook", "Chinook_Sqlite.sqlite"),
              os.path.join(DATA, "classic", "northwind", "northwind.sqlite"),
              os.path.join(DATA, "bird_superhero", "superhero", "superhero.sqlite")]
    return [(os.path.basename(os.path.dirname(p)), p) for p in paths if os.path.exists(p)]


def _fmix64(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xC4CEB9FE1A85EC53)
    return h ^ (h >> np.uint64(33))


def minhash(values: set[str]) -> tuple[int, ...] | None:
    if not values:
        return None
    base = np.array([int.from_bytes(hashlib.blake2b(v.encode(), digest_size=8).digest(), "little")
                     for v in values], dtype=np.uint64)
    with np.errstate(over="ignore"):
        mixed = _fmix64(base[:, None] ^ _SEEDS[None, :])
    return tuple(int(x) for x in mixed.min(axis=0))


_INT = re.compile(r"^-?\d+$")


def _target_type(declared: str) -> str:
    d = (declared or "").upper()
    if "INT" in d:
        return "BIGINT"
    if any(s in d for s in ("REAL", "FLOA", "DOUB", "NUMERIC", "DEC")):
        return "DOUBLE"
    return "VARCHAR"


def _convert(values: list, target: str) -> tuple[str, list[str]]:
    """Canonical texts as DuckDB would print them after TRY_CAST, or VARCHAR if any fails."""
    if target == "BIGINT":
        out = []
        for v in values:
            if isinstance(v, int):
                out.append(str(v))
            elif isinstance(v, float) and v.is_integer():
                out.append(str(int(v)))
            elif isinstance(v, str) and _INT.match(v.strip()):
                out.append(str(int(v.strip())))
            else:
                break
        else:
            return "BIGINT", out
    if target == "DOUBLE":
        out = []
        for v in values:
            try:
                out.append(repr(float(v)))
            except (TypeError, ValueError):
                break
        else:
            return "DOUBLE", out
    return "VARCHAR", [(v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)).strip() for v in values]


_DUCK = None


def approx_distinct(texts: list[str]) -> int:
    """DuckDB's approx_count_distinct (HyperLogLog), as the link_schemas macro measures it."""
    global _DUCK
    if not texts:
        return 0
    import duckdb

    if _DUCK is None:
        _DUCK = duckdb.connect()
    n = _DUCK.execute("select approx_count_distinct(v) from (select unnest(?) as v)", [texts]).fetchone()[0]
    return min(int(n), len(texts))


APPROX = True


def load(db: str, path: str):
    con = sqlite3.connect(path)
    con.text_factory = lambda b: b.decode("utf-8", "replace")
    tables = [r[0] for r in con.execute("select name from sqlite_master where type='table' and name not like 'sqlite_%'")]
    relations: dict[str, Relation] = {}
    profiles: dict[str, RelationProfile] = {}
    values: dict[tuple[str, str], set[str]] = {}
    uid_of: dict[str, str] = {}
    gold: set[frozenset] = set()
    fk_parent: dict[tuple[str, str], tuple[str, str]] = {}
    for t in tables:
        cols = con.execute(f'pragma table_info("{t}")').fetchall()
        uid = f"source.bench_{db}.{db}.{t}"
        uid_of[t.lower()] = uid
        rows = con.execute(f'select * from "{t}"').fetchall()
        rel_cols: dict[str, Column] = {}
        col_profiles: dict[str, ColumnProfile] = {}
        for i, c in enumerate(cols):
            name, declared = c[1], c[2]
            raw = [r[i] for r in rows if r[i] is not None]
            dtype, texts = _convert(raw, _target_type(declared))
            rel_cols[name.lower()] = Column(name=name, data_type=dtype, index=i)
            distinct = set(texts)
            values[(uid, name.lower())] = distinct
            counts = Counter(texts)
            top = tuple(v for v, _ in counts.most_common(10)) if 0 < len(distinct) <= 50 else None
            col_profiles[name.lower()] = ColumnProfile(
                name=name, data_type=dtype, non_null=len(texts),
                distinct=approx_distinct(texts) if APPROX else len(distinct), distinct_approx=APPROX,
                min_len=min((len(v) for v in texts), default=None), max_len=max((len(v) for v in texts), default=None),
                minhash=minhash(distinct), top_values=top,
                flag_words=bool(texts) and all(v.lower() in FLAG_VALUES for v in distinct),
            )
        relations[uid] = Relation(
            unique_id=uid, resource_type=ResourceType.SOURCE, name=f"{db}.{t}", package_name=f"bench_{db}",
            database="warehouse", schema=db, identifier=t, relation_name=f'"warehouse"."{db}"."{t}"',
            columns=rel_cols,
        )
        profiles[uid] = RelationProfile(unique_id=uid, relation=relations[uid].relation_name, row_count=len(rows),
                                        sampled=False, sample_percent=None, columns=col_profiles)
    for t in tables:
        pk_cols = [c[1] for c in sorted(con.execute(f'pragma table_info("{t}")').fetchall(), key=lambda c: c[5]) if c[5]]
        _ = pk_cols
    for t in tables:
        for fk in con.execute(f'pragma foreign_key_list("{t}")').fetchall():
            ptable, ccol, pcol = fk[2], fk[3], fk[4]
            if pcol is None:
                pk = [c[1] for c in con.execute(f'pragma table_info("{ptable}")').fetchall() if c[5]]
                if len(pk) != 1:
                    continue
                pcol = pk[0]
            pair = frozenset({(t.lower(), ccol.lower()), (ptable.lower(), pcol.lower())})
            gold.add(pair)
            fk_parent[(t.lower(), ccol.lower())] = (ptable.lower(), pcol.lower())
    project = Project(project_name=f"bench_{db}", dbt_version="1.11.0", adapter_type="duckdb",
                      relations=relations, has_catalog=True)
    profile_set = ProfileSet(adapter="duckdb", k=K, package_version="0.1.0", relations=profiles)
    return project, profile_set, values, gold, fk_parent


def make_verifier(values, calls):
    def verify(pairs):
        calls.append(len(pairs))
        out = {}
        for child, parent in pairs:
            a = values.get((child.relation, child.column.lower()), set())
            b = values.get((parent.relation, parent.column.lower()), set())
            out[(child, parent)] = ContainmentResult(child.relation, child.column, parent.relation, parent.column,
                                                     len(a), len(a & b))
        return out
    return verify


def table_of(ref: ColumnRef) -> tuple[str, str]:
    return (ref.relation.split(".")[-1].lower(), ref.column.lower())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-profiles", action="store_true")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--db", action="append")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--set", action="append", default=[], help="setting=value")
    ap.add_argument("--exact-distinct", action="store_true", help="exact distinct counts (not DuckDB's HLL)")
    args = ap.parse_args()
    global APPROX
    APPROX = not args.exact_distinct
    overrides = {}
    for item in args.set:
        k, v = item.split("=", 1)
        overrides[k] = float(v) if "." in v else (v.lower() == "true" if v.lower() in ("true", "false") else int(v))
    settings = DiscoverySettings.from_mapping(overrides)
    tp = fp = fn = lenient_ok = found_total = 0
    total_time = 0.0
    for db, path in databases():
        if args.db and db not in args.db:
            continue
        project, profiles, values, gold, fk_parent = load(db, path)
        calls: list[int] = []
        verify = None if args.no_verify or args.no_profiles else make_verifier(values, calls)
        t0 = time.perf_counter()
        result = discover(project, None if args.no_profiles else profiles, settings, verify=verify)
        dt = time.perf_counter() - t0
        total_time += dt
        found = {}
        for link in result.links:
            if link.kind is LinkKind.LINEAGE:
                continue
            found[frozenset({table_of(link.child), table_of(link.parent)})] = link
        d_tp = len(set(found) & gold)
        d_fp_pairs = [p for p in found if p not in gold]
        d_len = 0
        for p in d_fp_pairs:
            a, b = tuple(p)
            if a in fk_parent and b in fk_parent and fk_parent[a] == fk_parent[b]:
                d_len += 1
        d_fn = [p for p in gold if p not in found]
        tp += d_tp
        fp += len(d_fp_pairs)
        lenient_ok += d_len
        fn += len(d_fn)
        found_total += len(found)
        print(f"{db:32s} gold {len(gold):3d} found {len(found):3d} tp {d_tp:3d} fp {len(d_fp_pairs):2d} "
              f"(lenient ok {d_len}) fn {len(d_fn):2d}  {dt:5.2f}s verify={sum(calls)}")
        if args.verbose:
            for p in d_fp_pairs:
                link = found[p]
                print(f"    FP {link.child.relation.split('.')[-1]}.{link.child.column} -> "
                      f"{link.parent.relation.split('.')[-1]}.{link.parent.column} {link.confidence:.2f} "
                      + "; ".join(f"{e.signal.value}{e.contribution:+.1f}" for e in link.evidence))
            for p in d_fn:
                print(f"    FN {sorted(p)}")
    precision = tp / found_total if found_total else 0.0
    lenient = (tp + lenient_ok) / found_total if found_total else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    print(f"\nTOTAL found {found_total} tp {tp} fp {fp} fn {fn}: precision {precision:.3f} lenient {lenient:.3f} "
          f"recall {recall:.3f} F1 {f1:.3f}  discover() time {total_time:.2f}s")


if __name__ == "__main__":
    main()
