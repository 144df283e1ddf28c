"""Value lookups kept for the next run (re-linking, :mod:`.memo`): a lookup's answer is reused when
no parent that changed can reach it.

A child's lookup in the LSH Ensemble (:class:`.values.ContainmentIndex`) reads, in each size
partition its plan names, the first ``b`` band buckets of width ``r`` its signature falls in, and
keeps the parents there (less buckets of more than ``max_bucket``; capped to the tightest
containers). Given the same partitions and band parameters (the ``layout``), its answer can only
change when a bucket it reads gains or loses a parent, or a parent there changes its width; every
such parent is one whose signature, indexed size or width changed, or that came or went. So a
lookup is stale when one of its read bands equals a band of such a parent, before or after the
change, in that parent's partition; the others get their last answer back, in its order. A band
equality is tested on folded band keys (:func:`.bands.band_keys`): equal minima give equal keys,
and a rare equal key of unequal minima only makes a lookup stale that was not.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dbt_schema_link.discovery.bands import Lookup, band_keys
from dbt_schema_link.discovery.values import ContainmentIndex

ColKey = tuple[str, str]
#: Most changed parents a run checks lookups against; past it every lookup is asked again.
MAX_CHANGED_PARENTS = 256


@dataclass
class KeptLookups:
    """One run's value lookups, in plain values, for the next."""

    layout: bytes  # digest of what every lookup reads beyond its buckets
    parents: list[ColKey] = field(default_factory=list)  # the index's parents, in order
    signatures: bytes = b""  # theirs, n x k uint64
    sizes: list[int] = field(default_factory=list)  # as indexed
    widths: list[float] = field(default_factory=list)
    answers: dict[bytes, tuple[int, ...]] = field(default_factory=dict)  # lookup key -> positions in parents


def layout_digest(index: ContainmentIndex, exact: bool, fraction: float, cap: int, max_bucket: int | None) -> bytes:
    """The partitions and band parameters of ``index`` and what picks among a lookup's hits."""
    ensemble = index.ensemble_layout()
    return hashlib.blake2b(repr((ensemble, exact, fraction, cap, max_bucket, index.k)).encode(),
                           digest_size=16).digest()


def lookup_key(lookup: Lookup) -> bytes:
    return hashlib.blake2b(np.asarray(lookup.signature, dtype=np.uint64).tobytes()
                           + repr((lookup.size, lookup.min_upper, lookup.need)).encode(), digest_size=16).digest()


def kept(layout: bytes, parents: Sequence[ColKey], signatures: Sequence[np.ndarray], sizes: Sequence[int],
         widths: Sequence[float], answers: Mapping[bytes, Sequence[int]]) -> KeptLookups:
    stacked = np.stack([np.asarray(s, dtype=np.uint64) for s in signatures]) if signatures else np.empty((0, 0))
    return KeptLookups(layout, list(parents), stacked.tobytes(), list(sizes), list(widths),
                       {key: tuple(found) for key, found in answers.items()})


def reusable_answers(previous: KeptLookups | None, layout: bytes, index: ContainmentIndex,
                     parents: Sequence[ColKey], signatures: Sequence[np.ndarray], sizes: Sequence[int],
                     widths: Sequence[float], lookups: Mapping[bytes, Lookup]) -> dict[bytes, list[int]]:
    """The lookups whose last answer stands, as positions in ``parents`` (this run's), in the
    order the answer had; none when the layout changed or too many parents did."""
    if previous is None or previous.layout != layout or not previous.answers:
        return {}
    k = index.k
    old = np.frombuffer(previous.signatures, dtype=np.uint64).reshape(len(previous.parents), k) \
        if previous.parents else np.empty((0, k), dtype=np.uint64)
    old_at = {key: i for i, key in enumerate(previous.parents)}
    changed: list[tuple[np.ndarray, int]] = []  # (signature, indexed size) of each changed parent, before and after
    seen: set[int] = set()
    for i, key in enumerate(parents):
        j = old_at.get(key)
        if j is not None:
            seen.add(j)
            if (previous.sizes[j] == sizes[i] and previous.widths[j] == widths[i]
                    and np.array_equal(old[j], signatures[i])):
                continue
            changed.append((old[j], previous.sizes[j]))
        changed.append((np.asarray(signatures[i], dtype=np.uint64), sizes[i]))
    changed += [(old[j], previous.sizes[j]) for j in range(len(previous.parents)) if j not in seen]
    if len(changed) > 2 * MAX_CHANGED_PARENTS:
        return {}
    stale = _stale(index, lookups, changed) if changed else set()
    position = {key: i for i, key in enumerate(parents)}
    out: dict[bytes, list[int]] = {}
    for key in lookups:
        found = previous.answers.get(key)
        if found is None or key in stale:
            continue
        out[key] = [position[previous.parents[j]] for j in found]
    return out


def _stale(index: ContainmentIndex, lookups: Mapping[bytes, Lookup], changed: list[tuple[np.ndarray, int]]) -> set[bytes]:
    """The lookups that read a band bucket one of ``changed`` (signature, indexed size) falls in."""
    keys = list(lookups)
    signatures = np.stack([np.asarray(lookups[key].signature, dtype=np.uint64) for key in keys])
    # per partition, the (b, r) each lookup reads there (0 bands: not read)
    plans: dict[tuple[int, float], list[tuple[int, int, int]]] = {}
    reads: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for row, key in enumerate(keys):
        look = lookups[key]
        plan = plans.get((look.size, look.min_upper))
        if plan is None:
            plan = plans[(look.size, look.min_upper)] = index.plan(look.size, look.min_upper)
        for part, b, r in plan:
            if part not in reads:
                reads[part] = (np.zeros(len(keys), dtype=np.int64), np.zeros(len(keys), dtype=np.int64))
            reads[part][0][row], reads[part][1][row] = b, r
    stale = np.zeros(len(keys), dtype=bool)
    child_keys: dict[int, np.ndarray] = {}  # band keys of every lookup, by rows per band
    for signature, size in changed:
        part = index.partition_of(size)
        if part is None or part not in reads:
            continue
        bs, rs = reads[part]
        for r in np.unique(rs[bs > 0]).tolist():
            mine = band_keys(signature[None, :], r)[0]
            theirs = child_keys.get(r)
            if theirs is None:
                theirs = child_keys[r] = band_keys(signatures, r)
            rows = np.nonzero((rs == r) & (bs > 0) & ~stale)[0]
            if not len(rows):
                continue
            hit = theirs[rows] == mine[None, :]
            read = np.arange(hit.shape[1])[None, :] < bs[rows][:, None]
            stale[rows[(hit & read).any(axis=1)]] = True
    return {key for key, s in zip(keys, stale.tolist()) if s}


def unchanged_answers(previous: KeptLookups | None, parents: Sequence[ColKey],
                      answers: Mapping[bytes, Sequence[int]]) -> set[bytes]:
    """The lookups asked again whose answer (positions in ``parents``) names the parents the last
    run's did, in its order: the candidates of their children are the last run's."""
    if previous is None or not previous.answers:
        return set()
    out = set()
    for key, found in answers.items():
        before = previous.answers.get(key)
        if before is not None and len(before) == len(found) and \
                all(previous.parents[j] == parents[i] for i, j in zip(found, before)):
            out.add(key)
    return out
