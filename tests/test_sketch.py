"""One-permutation MinHash densification (profiling/sketch.py): pure functions, real numbers."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from dbt_schema_link.profiling.envelope import column_profile
from dbt_schema_link.discovery.values import estimate_containment
from dbt_schema_link.profiling.envelope import relation_profile, relation_profile_to_json
from dbt_schema_link.profiling.sketch import densify, parse_buckets, sparse_text

K = 128


def _h(value: str) -> int:
    return int.from_bytes(hashlib.blake2b(value.encode(), digest_size=8).digest(), "little")


def _buckets(values: set[str], k: int = K) -> dict[int, int]:
    out: dict[int, int] = {}
    for v in values:
        h = _h(v)
        out[h % k] = min(out.get(h % k, h), h)
    return out


def _jaccard_estimate(a: set[str], b: set[str]) -> float:
    sa, sb = densify(_buckets(a), K)[0], densify(_buckets(b), K)[0]
    return float(np.mean(np.asarray(sa) == np.asarray(sb)))


def test_parse_buckets_maps_signed_minima_to_unsigned() -> None:
    assert parse_buckets("3:123, 7:-45,") == {3: 123, 7: 2**64 - 45}
    with pytest.raises(ValueError):
        parse_buckets("3:x")


def test_full_buckets_are_the_signature() -> None:
    full = {b: 1000 + b for b in range(K)}
    assert densify(full, K) == (tuple(1000 + b for b in range(K)), frozenset())


def test_empty_and_out_of_range_buckets() -> None:
    assert densify({}, K) is None
    assert densify({K + 5: 1}, K) is None
    assert densify({0: 9}, K) == ((9,) * K, frozenset(range(1, K)))  # one value: every bucket borrows it


def test_identical_sets_give_identical_signatures_and_disjoint_sets_differ() -> None:
    a = {f"v{i}" for i in range(40)}  # fewer values than buckets: densified
    assert densify(_buckets(a), K) == densify(_buckets(set(a)), K)
    assert sparse_text(*densify({1: 10, 5: 7}, 8)) == "1:10,5:7"
    assert _jaccard_estimate(a, {f"w{i}" for i in range(40)}) < 0.1


@pytest.mark.parametrize("size", [20, 100, 1000])
@pytest.mark.parametrize("true_jaccard", [0.2, 0.5, 0.8])
def test_signatures_estimate_jaccard(size: int, true_jaccard: float) -> None:
    """Positions agree with probability J, for sets smaller and larger than k."""
    shared = round(2 * size * true_jaccard / (1 + true_jaccard))
    a = {f"s{i}" for i in range(shared)} | {f"a{i}" for i in range(size - shared)}
    b = {f"s{i}" for i in range(shared)} | {f"b{i}" for i in range(size - shared)}
    exact = len(a & b) / len(a | b)
    # the standard error of a k=128 estimate is about sqrt(J(1-J)/k) <= 0.045; small sets add
    # densification's correlation
    assert abs(_jaccard_estimate(a, b) - exact) < (0.15 if size < K else 0.12)


def test_bucket_pairs_are_densified_and_minima_read_as_they_are() -> None:
    buckets = column_profile({"name": "c", "non_null": 3, "distinct": 3, "minhash": "1:10,5:-1",
                              "minhash_format": "buckets", "minhash_buckets": 8})
    assert buckets.minhash is not None and len(buckets.minhash) == 8
    assert set(buckets.minhash) == {10, 2**64 - 1} and buckets.minhash[1] == 10 and buckets.minhash[5] == 2**64 - 1
    minima = column_profile({"name": "c", "non_null": 3, "distinct": 3, "minhash": "4,5,6", "minhash_format": "minima"})
    assert minima.minhash == (4, 5, 6)
    # garbage is no signature, never an exception; the text's look never picks its format
    for bad in ({"minhash": "1:x", "minhash_buckets": 8}, {"minhash": "1:2", "minhash_buckets": 10**9},
                {"minhash": ["1:2"], "minhash_buckets": 8}, {"minhash": "4,5,6"}):
        assert column_profile({"name": "c", "minhash_format": "buckets", **bad}).minhash is None
        assert column_profile({"name": "c", **bad}).minhash is None


def _signature(values: set[str]) -> tuple[np.ndarray, np.ndarray]:
    sig, borrowed = densify(_buckets(values), K)
    mask = np.zeros(K, dtype=bool)
    mask[list(borrowed)] = True
    return np.asarray(sig, dtype=np.uint64), mask


@pytest.mark.parametrize("child_size,parent_size", [(6, 30), (14, 20), (150, 160), (400, 4000)])
def test_a_contained_child_shows_no_violation_with_densified_signatures(child_size: int, parent_size: int) -> None:
    """A ⊆ B: in every bucket A holds, B's minimum is at most A's. Borrowed positions say nothing."""
    parent = {f"k{i}" for i in range(parent_size)}
    child = {f"k{i}" for i in range(child_size)}
    (a, am), (b, bm) = _signature(child), _signature(parent)
    naive = estimate_containment(a, len(child), b, len(parent))
    est = estimate_containment(a, len(child), b, len(parent), am, bm)
    assert est.violations == 0 and est.containment == 1.0
    if child_size < K:
        assert naive.violations > 0  # why the masks are needed
    outside = child | {f"x{i}" for i in range(child_size)}  # half of it outside the parent
    (c, cm) = _signature(outside)
    assert estimate_containment(c, len(outside), b, len(parent), cm, bm).containment < 0.8


def test_borrowed_positions_survive_the_profile_cache_round_trip() -> None:
    raw = {"unique_id": "model.p.t", "relation": "t", "row_count": 3, "columns": [
        {"name": "c", "non_null": 3, "distinct": 3, "minhash": "1:10,5:7,6:8", "minhash_format": "buckets",
         "minhash_buckets": 8}]}
    profile = relation_profile(raw)
    again = relation_profile(relation_profile_to_json(profile))
    assert again.columns["c"] == profile.columns["c"]
    assert profile.columns["c"].minhash_borrowed == frozenset({0, 2, 3, 4, 7})


def test_large_k_with_one_bucket_falls_back_in_order() -> None:
    """k = 1024 (the largest option) with one value: probes miss often; the cyclic fallback fills
    every bucket deterministically."""
    values, borrowed = densify({700: 5}, 1024)
    assert values == (5,) * 1024 and len(borrowed) == 1023
    assert densify({700: 5, 3: 9}, 1024) == densify({3: 9, 700: 5}, 1024)
