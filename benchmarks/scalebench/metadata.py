"""Size L (and the tests' tiny size) without a warehouse: manifest.json, catalog.json and the
product's cached profiles (target/schema_link/profiles.json) written directly from the spec.

Profiles carry what the `link_schemas` macro would measure on the data `duck.py` would generate:
counts, distinct counts, lengths, top values of small vocabularies, flags, and K MinHash minima.
Signatures are exact for every value set that can overlap another one (keys, references,
enums, flags, small integers, dates: one 64-bit hash per value, the same value hashing alike in
every column, as in a warehouse): a key of n rows holds 1..n, a reference with d distinct values
into it a seeded random d-subset of 1..n, a date column a random subset of 1,800 days. Value sets
that overlap nothing (amounts, free text, names) get the minima of d random hashes, drawn directly.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from dbt_schema_link.profiling.cache import CACHE_FORMAT, CACHE_VERSION

from .spec import ENUMS, Kind, Rel, Warehouse

K = 128
MASK = np.uint64(0xFFFFFFFFFFFFFFFF)
_SEEDS = np.random.default_rng(20261129).integers(1, 2**63, size=1024, dtype=np.uint64)
DATE_DAYS = 1800
PROJECT = "scalebench"


def _fmix64(h: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        h = h ^ (h >> np.uint64(33))
        h = h * np.uint64(0xFF51AFD7ED558CCD)
        h = h ^ (h >> np.uint64(33))
        h = h * np.uint64(0xC4CEB9FE1A85EC53)
        return h ^ (h >> np.uint64(33))


def _value_base(values: np.ndarray, domain: int) -> np.ndarray:
    """One 64-bit hash per value of a domain (0: integers and their digit strings)."""
    with np.errstate(over="ignore"):
        return _fmix64(values.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(domain))


def signature(values: np.ndarray, domain: int, k: int = K) -> np.ndarray:
    out = np.full(k, MASK, dtype=np.uint64)
    for start in range(0, len(values), 4096):
        base = _value_base(values[start:start + 4096], domain)
        out = np.minimum(out, _fmix64(base[:, None] ^ _SEEDS[None, :k]).min(axis=0))
    return out


class HashMatrix:
    """The K hashes of every value 1..n of one domain (one row per value), built once; the
    signature of any subset is the column-wise minimum of its rows."""

    def __init__(self, n: int, domain: int, k: int = K) -> None:
        self.table = np.empty((max(1, n), k), dtype=np.uint64)
        for start in range(0, n, 4096):
            values = np.arange(start + 1, min(n, start + 4096) + 1, dtype=np.uint64)
            self.table[start:start + len(values)] = _fmix64(_value_base(values, domain)[:, None] ^ _SEEDS[None, :k])

    def prefix(self, n: int) -> np.ndarray:
        """{1..n}: a dense key."""
        return self.table[:max(1, min(n, len(self.table)))].min(axis=0)

    def subset(self, n: int, d: int, seed: int) -> np.ndarray:
        """d distinct values drawn from 1..n (seeded: a copy of the column gets the same set)."""
        n = max(1, min(n, len(self.table)))
        if d >= n:
            return self.prefix(n)
        idx = np.random.default_rng(seed).choice(n, size=max(1, d), replace=False)
        return self.table[idx].min(axis=0)


def _random_minima(rng: np.random.Generator, d: int, k: int = K) -> np.ndarray:
    frac = np.minimum(rng.exponential(size=k) / max(d, 1), 0.999999)
    return (frac * 1.8446744073709552e19).astype(np.uint64)


def _text_domain(prefix: str) -> int:
    return int.from_bytes(prefix.encode()[:8].ljust(8, b"\0"), "little") | 1


def _expected_distinct(draws: int, space: int) -> int:
    if space <= 0 or draws <= 0:
        return 0
    return max(1, min(space, int(round(space * (1.0 - math.exp(-draws / space))))))


def column_profile(rel: Rel, col, ints: HashMatrix, dates: HashMatrix) -> dict:
    rows = rel.rows
    non_null = rows - rows * col.null_pct // 100
    kind = col.kind
    top = None
    is_flag = False
    if kind in (Kind.SERIAL, Kind.CODE):
        d = rows
    elif kind in (Kind.REF, Kind.CODE_REF):
        d = _expected_distinct(non_null, col.n)
    elif kind is Kind.ENUM:
        d = min(non_null, len(ENUMS[col.enum]))
        top = list(ENUMS[col.enum][:d])
    elif kind is Kind.FLAG:
        d = min(non_null, 2)
        top = (["true", "false"] if col.sql_type == "BOOLEAN" else ["0", "1"])[:d]
        is_flag = True
    elif kind is Kind.SMALL_INT:
        d = _expected_distinct(non_null, col.n)
        top = [str(v) for v in range(1, d + 1)]
    elif kind is Kind.DATE:
        d = _expected_distinct(non_null, DATE_DAYS)
    elif kind is Kind.MEASURE:
        d = _expected_distinct(non_null, 1_000_000)
    elif kind is Kind.TEXT:
        d = non_null
    else:  # LABEL
        d = _expected_distinct(non_null, max(2 * rows, 10))
    if non_null <= 0:
        return {"name": col.name, "data_type": col.sql_type, "non_null": 0, "distinct": 0, "distinct_approx": False,
                "min_len": None, "max_len": None, "minhash": None, "top_values": None, "flag_words": False,
                "skipped": None}
    if kind is Kind.SERIAL:
        sig = ints.prefix(d)
        lens = (1, len(str(rows)))
    elif kind in (Kind.REF, Kind.SMALL_INT):
        sig = ints.subset(col.n, d, col.salt)
        lens = (1, len(str(col.n)))
    elif kind in (Kind.CODE, Kind.CODE_REF):
        sig = signature(np.arange(1, d + 1), _text_domain(col.prefix))
        lens = (len(col.prefix) + 7, len(col.prefix) + 7)
    elif kind in (Kind.ENUM, Kind.FLAG):
        words = top or []
        sig = signature(np.array([_text_domain(w) for w in words], dtype=np.uint64), 3)
        lens = (min(len(w) for w in words), max(len(w) for w in words))
    elif kind is Kind.DATE:
        sig = dates.subset(DATE_DAYS, d, col.salt)
        lens = (10, 10)
    else:  # seeded by the column, so a copy of it (a staging model) has the same values
        sig = _random_minima(np.random.default_rng(col.salt * 7919 + 1), d)
        lens = {Kind.MEASURE: (3, 9), Kind.TEXT: (24, 48)}.get(kind, (6, 14))
    return {
        "name": col.name, "data_type": col.sql_type, "non_null": int(non_null), "distinct": int(d),
        "distinct_approx": False, "min_len": lens[0], "max_len": lens[1],
        "minhash": ",".join(map(str, sig.tolist())), "minhash_format": "minima", "top_values": top,
        "flag_words": is_flag, "skipped": None,
    }


def unique_id(rel: Rel) -> str:
    if rel.is_model:
        return f"model.{PROJECT}.{rel.name}"
    return f"source.{PROJECT}.{rel.schema}.{rel.name}"


def relation_name(rel: Rel) -> str:
    return f'"warehouse"."{rel.schema or "analytics"}"."{rel.name}"'


def _model_sql(w: Warehouse, rel: Rel) -> str:
    if rel.role == "staging":
        cols = ", ".join(u if u == o else f"{u} as {o}" for u, o in rel.select)
        return f"select {cols} from {relation_name(w.rel(rel.source))}"
    fact, fk, ent, key = rel.join
    outs = []
    for u, o in rel.select:
        outs.append(u if u.startswith("e.") else f"f.{u}")
    return (f"select {', '.join(outs)} from {relation_name(w.rel(fact))} as f "
            f"join {relation_name(w.rel(ent))} as e on f.{fk} = e.{key}")


def write_artifacts(w: Warehouse, project_dir: Path, k: int = K, progress=None) -> dict:
    """manifest.json + catalog.json + target/schema_link/profiles.json for a metadata-only project."""
    target = project_dir / "target"
    (target / "schema_link").mkdir(parents=True, exist_ok=True)
    (project_dir / "dbt_project.yml").write_text(
        f"name: {PROJECT}\nversion: '1.0'\nconfig-version: 2\nprofile: {PROJECT}\n", encoding="utf-8")
    nodes, sources, cat_nodes, cat_sources, parent_map = {}, {}, {}, {}, {}
    for rel in w.relations:
        uid = unique_id(rel)
        cols = {c.name: {"name": c.name, "description": "", "data_type": None, "meta": {}, "tags": []}
                for c in rel.cols}
        cat = {"metadata": {"type": "VIEW" if rel.is_model else "BASE TABLE", "schema": rel.schema or "analytics",
                            "name": rel.name, "database": "warehouse"},
               "columns": {c.name: {"name": c.name, "type": c.sql_type, "index": i + 1} for i, c in enumerate(rel.cols)},
               "stats": {}, "unique_id": uid}
        common = {"unique_id": uid, "package_name": PROJECT, "database": "warehouse", "columns": cols,
                  "relation_name": relation_name(rel), "description": "", "meta": {}, "tags": [],
                  "config": {"enabled": True}}
        if rel.is_model:
            ups = [rel.source] if rel.role == "staging" else [rel.join[0], rel.join[2]]
            deps = [unique_id(w.rel(u)) for u in ups]
            sql = _model_sql(w, rel)
            nodes[uid] = {**common, "resource_type": "model", "name": rel.name, "alias": rel.name,
                          "schema": "analytics", "raw_code": sql, "compiled_code": sql,
                          "config": {"enabled": True, "materialized": "view"},
                          "depends_on": {"nodes": deps}, "original_file_path": f"models/{rel.name}.sql",
                          "checksum": {"name": "sha256", "checksum": str(hash(sql) & 0xFFFFFFFF)}}
            cat_nodes[uid] = cat
            parent_map[uid] = deps
        else:
            sources[uid] = {**common, "resource_type": "source", "source_name": rel.schema, "name": rel.name,
                            "identifier": rel.name, "schema": rel.schema, "original_file_path": "models/sources.yml"}
            cat_sources[uid] = cat
            parent_map[uid] = []
    manifest = {"metadata": {"dbt_version": "1.11.0", "project_name": PROJECT, "adapter_type": "duckdb",
                             "dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"},
                "nodes": nodes, "sources": sources, "parent_map": parent_map, "child_map": {},
                "semantic_models": {}, "metrics": {}}
    (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (target / "catalog.json").write_text(json.dumps({"metadata": {"dbt_version": "1.11.0"}, "nodes": cat_nodes,
                                                     "sources": cat_sources, "errors": None}), encoding="utf-8")
    profiles = synthetic_profiles(w, k, progress)
    (target / "schema_link" / "profiles.json").write_text(json.dumps(profiles, indent=None), encoding="utf-8")
    return profiles


def synthetic_profiles(w: Warehouse, k: int = K, progress=None) -> dict:
    """The product's profile cache document (`dbt_schema_link/profile_cache`), with exact
    k-permutation signatures (a signature form the cache reads, like the one-permutation form)."""
    max_int = max([r.rows for r in w.relations if r.cols and r.cols[0].kind is Kind.SERIAL] + [64])
    ints = HashMatrix(max_int, 0, k)
    dates = HashMatrix(DATE_DAYS, 2, k)
    entries = {}
    for i, rel in enumerate(w.relations):
        if progress and i and i % 1000 == 0:
            progress(f"profiles: {i}/{len(w.relations)} relations")
        uid = unique_id(rel)
        entries[uid] = {"key": "synthetic", "profile": {
            "unique_id": uid, "relation": relation_name(rel), "row_count": rel.rows, "sampled": False,
            "sample_percent": None,
            "columns": [column_profile(rel, c, ints, dates) for c in rel.cols],
        }}
    return {"format": CACHE_FORMAT, "format_version": CACHE_VERSION, "adapter": "duckdb", "k": k,
            "package_version": "synthetic", "relations": dict(sorted(entries.items())), "failures": []}
