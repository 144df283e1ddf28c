"""The records and readers that keep discovery fast at warehouse scale (issue 35): a signature
held as one array, the profile cache parsed once, minima parsed in C with the old reader's
answers, and the cyclic collector paused and restored."""

from __future__ import annotations

import gc
import json
import pickle

import numpy as np
import pytest

from dbt_schema_link.collector import collector_paused
from dbt_schema_link.profiling.cache import CACHE_FORMAT, CACHE_VERSION, ProfileCache
from dbt_schema_link.profiling.envelope import _kminhash, relation_profile, relation_profile_to_json
from dbt_schema_link.profiling.records import ColumnProfile, ProfileSet, RelationProfile, Signature

BIG = 2**64 - 1


def _column(name: str, minhash) -> ColumnProfile:
    return ColumnProfile(name=name, data_type="integer", non_null=3, distinct=3, distinct_approx=False,
                         min_len=1, max_len=2, minhash=minhash, top_values=None, flag_words=False)


def test_a_signature_reads_as_its_ints_and_is_one_read_only_array():
    sig = Signature([1, 2, BIG])
    assert sig == (1, 2, BIG) and sig == [1, 2, BIG] and sig == Signature((1, 2, BIG))
    assert sig != (1, 2, 3) and sig != Signature((1, 2))
    assert len(sig) == 3 and sig[0] == 1 and sig[-1] == BIG and sig[:2] == (1, 2) and list(sig) == [1, 2, BIG]
    assert hash(sig) == hash((1, 2, BIG))
    assert np.asarray(sig, dtype=np.uint64) is sig.array  # discovery reads it without a copy
    assert np.asarray(sig, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError):
        sig.array[0] = 5
    assert pickle.loads(pickle.dumps(sig)) == sig
    assert not Signature(())


def test_a_column_profile_keeps_any_sequence_of_minima_as_a_signature():
    col = _column("a", (5, 6, 7))
    assert isinstance(col.minhash, Signature) and col.minhash == (5, 6, 7)
    assert col == _column("a", [5, 6, 7]) and _column("b", None).minhash is None


@pytest.mark.parametrize("text, expected", [
    ("1,2,3", (1, 2, 3)), ("1, 2 ,3", (1, 2, 3)), ("1,,2", (1, 2)), ("-1,2", (BIG, 2)),
    (f"{BIG},1", (BIG, 1)), ("99999999999999999999999,1", (200376420520689663, 1)), ("+3,4", (3, 4)),
    ("3,", (3,)), (",", ()), ("1.5,2", None), ("x", None),
])
def test_minima_text_reads_as_the_python_reader_did(text, expected):
    """numpy parses the cache's own form; anything it cannot (signs, blanks, values past 64 bits,
    which numpy saturates) takes the old reader, so every text reads as it did."""
    got = _kminhash(text)
    assert (None if got is None else tuple(got)) == expected


def _write_cache(path, relations: dict) -> None:
    path.write_text(json.dumps({"format": CACHE_FORMAT, "format_version": CACHE_VERSION, "relations": relations}))


def test_the_profile_cache_parses_each_entry_once_and_drops_what_does_not_read_back(tmp_path):
    profile = RelationProfile(unique_id="model.p.a", relation="a", row_count=3, sampled=False, sample_percent=None,
                              columns={"id": _column("id", (1, 2, 3))})
    path = tmp_path / "profiles.json"
    _write_cache(path, {
        "model.p.a": {"key": "k1", "profile": relation_profile_to_json(profile)},
        "model.p.b": {"key": "k2", "profile": {"unique_id": "model.p.other"}},  # another relation's profile
        "model.p.c": {"key": "k3", "profile": "not a profile"},
    })
    cache = ProfileCache.load(path)
    assert set(cache.keys) == {"model.p.a"}
    first = cache.profile("model.p.a")
    assert first == profile and isinstance(first.columns["id"].minhash, Signature)
    assert cache.get("model.p.a", "k1") is first  # the parsed profile, not a second parse
    assert cache.get("model.p.a", "stale key") is None and cache.profile("model.p.b") is None
    # only the parsed profile is held; saving writes it out as it read
    cache.save(ProfileSet("duckdb", 3, "0.1.0"))
    saved = json.loads(path.read_text())["relations"]
    assert set(saved) == {"model.p.a"} and saved["model.p.a"]["key"] == "k1"
    assert saved["model.p.a"]["profile"] == relation_profile_to_json(profile)
    assert relation_profile(saved["model.p.a"]["profile"]) == first
    cache.prune(set())
    assert cache.profile("model.p.a") is None and not cache.keys


def test_the_collector_is_paused_inside_and_restored_after():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # an inner block does not resume it early
    assert gc.isenabled()
    with pytest.raises(KeyError):
        with collector_paused():
            raise KeyError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # a caller that paused it keeps it paused
    finally:
        gc.enable()
