"""Value lookups as a relational join, for an engine to run (``engine_lookup_min_columns``).

The LSH Ensemble (:class:`.values.ContainmentIndex`) answers a child's lookup by reading, partition
by partition, the band buckets its signature falls in. The same answer is a join of two relations
of band keys: every parent's ``(partition, rows per band, band, key)`` against the child's
``(rows per band, band, key)`` for the bands the child reads in that partition (``band < b`` of the
partition's optimal ``(b, r)`` for the child's size), less the buckets shared by more than
``max_bucket`` parents. :class:`BandTables` holds those relations as integer arrays; the engine's
hits come back as ``(child, partition, parent)`` rows and :func:`hits_by_partition` turns them into
the lists ``ContainmentIndex.query_partitions`` yields, so candidate generation continues as it
does after a lookup in Python.

A band's key is its ``r`` minima folded into one 64-bit integer (``band_keys``); Python's index
keys a bucket by the minima's bytes. Two different bands share a key with probability 2^-64 per
pair, which no benchmark has met; an extra hit would only add a candidate that scoring reads again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

# the tables' layout and the engine port live below discovery (profiling runs the join)
from dbt_schema_link.profiling.band_tables import (  # noqa: F401 - re-exported
    CHILD_COLUMNS, HIT_COLUMNS, PARENT_COLUMNS, QUERY_COLUMNS, BandJoin, BandTables,
)

if TYPE_CHECKING:  # the index (and datasketch) load with inference, not with the records
    from dbt_schema_link.discovery.values import ContainmentIndex

#: The odd 64-bit constant (2^64 / golden ratio) that folds a band's minima into one key.
_FOLD = np.uint64(0x9E3779B97F4A7C15)

@dataclass(frozen=True, slots=True)
class Lookup:
    """One child's lookup: its signature and size, the smallest partition ceiling it reads and the
    width a parent needs to be usable (``candidates.tightest_containers``)."""

    signature: np.ndarray
    size: int
    min_upper: float = 0.0
    need: float = 0.0


def band_keys(signatures: np.ndarray, r: int) -> np.ndarray:
    """The ``k // r`` band keys of each signature row (n x k uint64) as int64, band i folding
    minima ``i*r .. i*r+r-1`` in order (as the index's ``hashranges`` slice them)."""
    n, k = signatures.shape
    b = k // r
    blocks = np.ascontiguousarray(signatures[:, :b * r], dtype=np.uint64).reshape(n, b, r)
    keys = blocks[:, :, 0].copy()
    for j in range(1, r):
        keys = keys * _FOLD ^ blocks[:, :, j]  # uint64 arithmetic wraps: the fold is modulo 2^64
    return keys.view(np.int64)


def _band_rows(ids: np.ndarray, keys: np.ndarray, r: int, bands: np.ndarray | None = None) -> np.ndarray:
    """(id, r, band, key) rows of ``keys`` (n x b); only bands below ``bands[i]`` for row i."""
    n, b = keys.shape
    band = np.broadcast_to(np.arange(b, dtype=np.int64), (n, b))
    keep = np.ones((n, b), dtype=bool) if bands is None else band < bands[:, None]
    rows = np.empty((int(keep.sum()), 4), dtype=np.int64)
    rows[:, 0] = np.broadcast_to(ids[:, None], (n, b))[keep]
    rows[:, 1] = r
    rows[:, 2] = band[keep]
    rows[:, 3] = keys[keep]
    return rows


def band_tables(index: ContainmentIndex, parents: Sequence[np.ndarray], lookups: Sequence[Lookup],
                max_bucket: int | None, cap: int = 0, widths: Sequence[float] | None = None) -> BandTables:
    """The relations whose join gives, for lookup i, the keys ``index.query_partitions(
    signature, size, min_upper, max_bucket)`` yields (``parents[key]``: the signature indexed
    under ``key``, keys being positions in ``parents``) — with ``cap``, only the partitions
    ``candidates.tightest_containers(partitions, need, cap, widths)`` reads."""
    part_of = index.partitions()
    band_widths = index.rows_per_band()
    parent_ids = np.array(sorted(part_of), dtype=np.int64)
    parent_parts = np.array([part_of[i] for i in parent_ids.tolist()], dtype=np.int64)
    parent_sigs = _stack([parents[i] for i in parent_ids.tolist()], index)
    # usable (width >= need) as integers: a parent's width rank >= the rank of the first width >= need
    width_of = np.asarray(widths if widths is not None else np.zeros(len(parents)), dtype=np.float64)
    levels = np.unique(width_of)
    parent_ranks = np.searchsorted(levels, width_of[parent_ids]).astype(np.int64)
    parent_rows = []
    for r in band_widths:
        rows = _band_rows(parent_ids, band_keys(parent_sigs, r), r)
        per = len(rows) // max(len(parent_ids), 1)
        parent_rows.append(np.column_stack([rows[:, :1], np.repeat(parent_parts, per), rows[:, 1:],
                                            np.repeat(parent_ranks, per)]))

    queries: list[tuple[int, int, int, int, int]] = []
    reads = {r: np.zeros(len(lookups), dtype=np.int64) for r in band_widths}  # bands read per width
    for child, lookup in enumerate(lookups):
        need_rank = int(np.searchsorted(levels, lookup.need, side="left"))
        for part, b, r in index.plan(lookup.size, lookup.min_upper):
            queries.append((child, part, r, b, need_rank))
            reads[r][child] = max(reads[r][child], b)
    child_ids = np.arange(len(lookups), dtype=np.int64)
    child_sigs = _stack([lookup.signature for lookup in lookups], index)
    child_rows = [_band_rows(child_ids, band_keys(child_sigs, r), r, reads[r]) for r in band_widths]
    return BandTables(
        parents=_concat(parent_rows, len(PARENT_COLUMNS)),
        children=_concat(child_rows, len(CHILD_COLUMNS)),
        queries=np.array(queries, dtype=np.int64).reshape(-1, len(QUERY_COLUMNS)),
        max_bucket=0 if max_bucket is None else int(max_bucket),
        cap=int(cap),
    )


def _stack(signatures: Sequence[np.ndarray], index: ContainmentIndex) -> np.ndarray:
    if not signatures:
        return np.zeros((0, index.k), dtype=np.uint64)
    return np.stack([np.asarray(s, dtype=np.uint64) for s in signatures])


def _concat(parts: list[np.ndarray], width: int) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros((0, width), dtype=np.int64)


def hits_by_partition(hits: np.ndarray, lookups: int) -> list[list[list[int]]]:
    """The engine's ``(child_id, part, parent_id, ...)`` rows as, per lookup, the parents hit in
    each partition that has any (smallest partition first, parents sorted): the lists
    ``query_partitions`` yields, less the empty ones."""
    out: list[list[list[int]]] = [[] for _ in range(lookups)]
    if len(hits) == 0:
        return out
    rows = np.asarray(hits, dtype=np.int64)[:, :3]
    rows = rows[np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0]))]
    child, part, parent = (rows[:, i].tolist() for i in range(3))
    last = (-1, -1)
    for c, p, q in zip(child, part, parent):
        if (c, p) != last:
            out[c].append([])
            last = (c, p)
        out[c][-1].append(q)
    return out


def engine_lookups(index: ContainmentIndex, parents: Sequence[np.ndarray], lookups: Sequence[Lookup],
                   max_bucket: int | None, join: BandJoin, cap: int = 0,
                   widths: Sequence[float] | None = None) -> list[list[list[int]]]:
    """Each lookup's hits per partition, from one join run by ``join`` (``band_tables``)."""
    return hits_by_partition(join(band_tables(index, parents, lookups, max_bucket, cap, widths)), len(lookups))
