"""One-permutation MinHash: from the warehouse's bucket minima to a k-value signature.

The DuckDB and PostgreSQL macros hash each distinct value once, put it in bucket ``hash mod k``
and keep each bucket's minimum (Li, Owen & Zhang, NIPS 2012), which costs one hash per value
instead of k. A column with fewer values than buckets leaves buckets empty; optimal
densification (Shrivastava, ICML 2017) fills each from the first non-empty bucket along a fixed
pseudo-random probe sequence, so two columns' signatures agree at a position with probability
equal to their Jaccard similarity, as k-permutation MinHash signatures do, and datasketch reads
them unchanged. The probe sequence depends only on (bucket, attempt), never on the data, which
is what makes signatures of different columns comparable.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from dbt_schema_link.profiling.records import HASH_MASK

#: Probes tried per empty bucket (vectorized) before falling back to the next non-empty bucket
#: in order: 8 per bucket, so with k = 128 and a single non-empty bucket a probe sequence misses
#: with probability (127/128)^1024 ~ 3e-4; capped so the table stays small for large k.
PROBES_PER_BUCKET = 8
MAX_PROBES = 1024


@lru_cache(maxsize=8)
def _probe_table(k: int) -> np.ndarray:
    """Bucket j probed at attempt t for empty bucket i: a fixed (k, probes) table."""
    probes = min(PROBES_PER_BUCKET * k, MAX_PROBES)
    i = np.arange(k, dtype=np.uint64)[:, None]
    t = np.arange(probes, dtype=np.uint64)[None, :]
    with np.errstate(over="ignore"):  # splitmix64 wraps on purpose
        z = i * np.uint64(0x9E3779B97F4A7C15) + (t + np.uint64(1)) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(k)).astype(np.int64)


def parse_buckets(text: str) -> dict[int, int]:
    """``"3:123,7:-45"`` (bucket:minimum pairs) -> {3: 123, 7: 2**64 - 45}. Raises ValueError."""
    out: dict[int, int] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        bucket, _, minimum = part.partition(":")
        out[int(bucket)] = int(minimum) & HASH_MASK
    return out


def densify(buckets: dict[int, int], k: int) -> tuple[tuple[int, ...], frozenset[int]] | None:
    """The k-value signature of a column's bucket minima and the positions densification filled
    (borrowed from another bucket); None when every bucket is empty."""
    filled = {b: m for b, m in buckets.items() if 0 <= b < k}
    if not filled:
        return None
    values = np.zeros(k, dtype=np.uint64)
    present = np.zeros(k, dtype=bool)
    for b, m in filled.items():
        values[b], present[b] = m, True
    if present.all():
        return tuple(int(v) for v in values), frozenset()
    empty = np.flatnonzero(~present)
    probes = _probe_table(k)[empty]  # (empty, probes) candidate donors
    hits = present[probes]
    first = hits.argmax(axis=1)
    donors = probes[np.arange(len(empty)), first]
    missed = ~hits[np.arange(len(empty)), first]
    if missed.any():  # no donor among the probes: the next non-empty bucket, cyclically
        order = np.flatnonzero(present)
        for row in np.flatnonzero(missed):
            later = order[order > empty[row]]
            donors[row] = later[0] if len(later) else order[0]
    out = values.copy()
    out[empty] = values[donors]
    return tuple(int(v) for v in out), frozenset(int(i) for i in empty)


def sparse_text(values: tuple[int, ...], borrowed: frozenset[int]) -> str:
    """The ``bucket:minimum`` pairs of a densified signature's own buckets (parse_buckets' input)."""
    return ",".join(f"{i}:{v}" for i, v in enumerate(values) if i not in borrowed)
