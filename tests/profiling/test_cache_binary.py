"""The profile cache's binary copy (profiling/cache_binary.py): read in place of profiles.json
only while it is the copy of that very file, and equal to what the JSON reads as."""

import json
import os

import numpy as np

from dbt_schema_link.profiling.cache import ProfileCache
from dbt_schema_link.profiling.cache_binary import binary_path, read_binary
from dbt_schema_link.profiling.records import ColumnProfile, ProfileSet, RelationProfile, SampleMethod, Signature


def _profiles() -> list[RelationProfile]:
    sampled = RelationProfile("model.p.orders", "db.main.orders", 2_000_000, True, 10.0, {
        "id": ColumnProfile("ID", "integer", 200_000, 200_000, False, 1, 7, Signature([5, 2**64 - 1, 9, 3]), None,
                            False, min_value=1.0, max_value=2e6),
        "status": ColumnProfile("status", "varchar", 190_000, 3, False, 4, 9, Signature([1, 1, 3, 1]),  # densified
                                ("paid", "open", "void"), False, minhash_borrowed=frozenset({1, 3})),
        "note": ColumnProfile("note", "varchar", 0, 0, True, None, None, None, None, False, skipped="free text"),
    }, SampleMethod.VALUES)
    plain = RelationProfile("model.p.customers", "db.main.customers", 3, False, None, {
        "flag": ColumnProfile("flag", "boolean", 3, 2, True, None, None, None, ("true", "false"), True),
    })
    return [sampled, plain]


def _saved(tmp_path) -> ProfileCache:
    cache = ProfileCache(tmp_path / "profiles.json")
    for i, profile in enumerate(reversed(_profiles())):  # put out of order: the file is sorted
        cache.put(profile, f"key{i}")
    cache.builds = ["build-1"]
    cache.save(ProfileSet("duckdb", 4, "0.1.0"))
    return cache


def _from_json(path) -> ProfileCache:
    """The cache as its JSON reads, the copy moved away and put back."""
    copy = binary_path(path)
    kept = copy.read_bytes()
    copy.unlink()
    try:
        return ProfileCache.load(path)
    finally:
        copy.write_bytes(kept)


def test_a_saved_cache_reads_back_from_its_copy_as_from_its_json(tmp_path):
    path = _saved(tmp_path).path
    assert binary_path(path).exists()
    keys, profiles, builds = read_binary(path)
    from_json = _from_json(path)
    assert list(keys.items()) == list(from_json.keys.items())  # the file's order
    assert [profiles[uid] for uid in keys] == [from_json.profile(uid) for uid in keys]
    assert builds == from_json.builds == ["build-1"]
    signature = profiles["model.p.orders"].columns["id"].minhash
    assert isinstance(signature, Signature) and signature == (5, 2**64 - 1, 9, 3)
    assert not np.asarray(signature).flags.writeable
    status = profiles["model.p.orders"].columns["status"]
    assert status.minhash_borrowed == frozenset({1, 3}) and status.top_values == ("paid", "open", "void")
    assert profiles["model.p.orders"].sample_method is SampleMethod.VALUES
    loaded = ProfileCache.load(path)
    assert loaded.get("model.p.orders", keys["model.p.orders"]) == profiles["model.p.orders"]


def test_a_json_written_since_is_read_and_copied_again(tmp_path):
    path = _saved(tmp_path).path
    data = json.loads(path.read_text())
    data["relations"]["model.p.customers"]["profile"]["row_count"] = 4
    path.write_text(json.dumps(data))  # another writer (or a person) changed the file
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    assert read_binary(path) is None
    assert ProfileCache.load(path).profile("model.p.customers").row_count == 4
    assert read_binary(path)[1]["model.p.customers"].row_count == 4  # the copy follows


def test_a_damaged_or_foreign_copy_is_not_read(tmp_path):
    path = _saved(tmp_path).path
    copy = binary_path(path)
    whole = copy.read_bytes()
    copy.write_bytes(whole[: len(whole) - 5])  # cut short
    assert read_binary(path) is None
    assert ProfileCache.load(path).profile("model.p.orders") == _profiles()[0]
    header, rest = whole.split(b"\n", 1)
    copy.write_bytes(header.replace(b"python3", b"python2") + b"\n" + rest)
    assert read_binary(path) is None


def test_a_copy_that_cannot_be_written_leaves_the_json_in_charge(tmp_path):
    path = _saved(tmp_path).path
    copy = binary_path(path)
    copy.unlink()
    copy.mkdir()  # in the way: the copy cannot be written there
    for _ in range(2):
        assert ProfileCache.load(path).profile("model.p.orders") == _profiles()[0]
    assert copy.is_dir()
