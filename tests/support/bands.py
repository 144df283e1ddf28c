"""A value-lookup case for the band join (tests/discovery/test_bands.py, tests/test_band_candidates.py,
tests/test_spark.py): an LSH index, its parents' signatures and lookups, and the macro's join read
literally in Python."""

from __future__ import annotations

import random

import numpy as np

from dbt_schema_link.discovery.bands import HIT_COLUMNS, BandTables, Lookup
from dbt_schema_link.discovery.candidates import tightest_containers
from dbt_schema_link.discovery.values import ContainmentIndex
from tests.discovery.builders import K, minhash


def join_like_the_macro(tables: BandTables) -> np.ndarray:
    """The macro's SQL read literally: the children's reads (bands below b), joined to the parents'
    buckets of at most max_bucket; hits counted; with a cap, a child's partitions kept while the
    usable parents (width rank >= need rank) of the partitions before are fewer than the cap."""
    buckets: dict[tuple, list[tuple[int, int]]] = {}
    for parent, part, r, band, key, rank in tables.parents.tolist():
        buckets.setdefault((part, r, band, key), []).append((parent, rank))
    hits: dict[tuple, list[int]] = {}  # (child, part, parent) -> [band hits, usable]
    for child, r, band, key in tables.children.tolist():
        for q_child, part, q_r, b, need in tables.queries.tolist():
            if q_child != child or q_r != r or not band < b:
                continue
            bucket = buckets.get((part, r, band, key), [])
            if tables.max_bucket and len(bucket) > tables.max_bucket:
                continue
            for parent, rank in bucket:
                hit = hits.setdefault((child, part, parent), [0, 0])
                hit[0] += 1
                hit[1] = max(hit[1], int(rank >= need))
    if tables.cap:
        usable: dict[tuple[int, int], int] = {}
        for (child, part, _), (_, ok) in hits.items():
            usable[(child, part)] = usable.get((child, part), 0) + ok
        before: dict[tuple[int, int], int] = {}
        for child, part in sorted(usable):
            before[(child, part)] = sum(n for (c, p), n in usable.items() if c == child and p < part)
        hits = {key: hit for key, hit in hits.items() if before[key[:2]] < tables.cap}
    rows = [(*key, hit[0]) for key, hit in sorted(hits.items())]
    return np.array(rows, dtype=np.int64).reshape(-1, len(HIT_COLUMNS))


def sig(values) -> np.ndarray:
    return np.asarray(minhash([str(v) for v in values]), dtype=np.uint64)


def ensemble_case() -> tuple[ContainmentIndex, list[np.ndarray], list[Lookup], list[float]]:
    """84 parents: dense id ranges of many sizes, four keys of the same ids (which share every
    band bucket) and sparse keys, with their widths (sizes); 31 lookups: subsets of them and sets
    found nowhere, each needing a parent at least as wide as itself."""
    rng = random.Random(3)
    sets = [range(1, n) for n in (5, 9, 20, 40, 41, 80, 150, 300, 301, 600, 1200, 2000)] + [range(1, 500)] * 4
    sets += [rng.sample(range(10_000, 90_000), rng.choice([10, 30, 100, 400, 900])) for _ in range(68)]
    parents = [sig(s) for s in sets]
    widths = [float(len(s)) for s in sets]
    index = ContainmentIndex(((i, s, len(v)) for i, (s, v) in enumerate(zip(parents, sets))),
                             k=K, threshold=0.7, num_part=8, m=8)
    lookups = []
    for i in range(30):
        source = list(sets[rng.randrange(len(sets))])
        chosen = rng.sample(source, max(1, len(source) // rng.choice([1, 2, 5]))) if i % 6 else \
            rng.sample(range(200_000, 300_000), 50)
        lookups.append(Lookup(sig(chosen), len(chosen), rng.choice([0.0, 0.0, 100.0]), len(chosen) - 0.5))
    lookups.append(Lookup(sig(range(1, 400)), 399, 0.0, 398.5))
    return index, parents, lookups, widths


def tightest(partitions_per_lookup: list, lookups: list[Lookup], cap: int, widths: list[float]) -> list[list[int]]:
    """What candidate generation keeps of each lookup's partitions (``tightest_containers``)."""
    return [tightest_containers(parts, look.need, cap, widths) for parts, look in zip(partitions_per_lookup, lookups)]
