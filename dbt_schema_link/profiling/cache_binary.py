"""A binary copy of the profile cache (`target/schema_link/profiles.bin` beside `profiles.json`),
read in place of the JSON while it is the copy of that very file.

`profiles.json` stays the cache (documented, diffable); parsing it is most of what loading a
warehouse's profiles costs (260 MB of JSON and 100,000 signatures as text at 100,000 columns). The
copy holds the same profiles as one `marshal` of plain values (fast, and it runs no code) followed
by every signature's minima as raw uint64, which numpy reads without a copy. Its header names
the format, package and Python version (`marshal`'s format is Python's) and the JSON file's size
and modification time: a JSON file written or edited since, or a copy from another version, is
not read, and the JSON is.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from dbt_schema_link import __version__
from dbt_schema_link.fileio import atomic_write_chunks
from dbt_schema_link.profiling.records import ColumnProfile, RelationProfile, SampleMethod, Signature

BINARY_FORMAT = "dbt_schema_link/profile_cache_binary"
BINARY_VERSION = 1
#: Signatures written per chunk: the copy is streamed, never held whole in memory.
CHUNK_SIGNATURES = 4096
_LENGTH_BYTES = 8


def _minima_offset(meta_size: int) -> int:
    """Where the minima start after the header line: aligned to 8 bytes, so numpy reads them in place."""
    end = _LENGTH_BYTES + meta_size
    return end + (-end) % 8


def binary_path(json_path: Path) -> Path:
    return json_path.with_suffix(".bin")


def _stamp(json_path: Path) -> tuple[int, int]:
    st = json_path.stat()
    return st.st_size, st.st_mtime_ns


def _header(stamp: tuple[int, int]) -> bytes:
    return (f"{BINARY_FORMAT} {BINARY_VERSION} {__version__} python{sys.version_info[0]}.{sys.version_info[1]} "
            f"{stamp[0]} {stamp[1]}\n").encode()


def write_binary(json_path: Path, keys: Mapping[str, str], profiles: Mapping[str, RelationProfile],
                 builds: list[str]) -> None:
    """The copy of the cache just written to ``json_path`` (``keys``, ``profiles``, ``builds``:
    what it holds). Raises ``OSError`` when it cannot be written."""
    signatures: list[np.ndarray] = []
    entries = []
    for uid, key in keys.items():
        profile = profiles[uid]
        columns = []
        for c in profile.columns.values():
            at = -1
            if c.minhash is not None:
                at = len(signatures)
                signatures.append(np.asarray(c.minhash, dtype=np.uint64))
            columns.append((c.name, c.data_type, c.non_null, c.distinct, c.distinct_approx, c.min_len, c.max_len,
                            at, c.top_values, c.flag_words, c.skipped, tuple(sorted(c.minhash_borrowed)),
                            c.min_value, c.max_value))
        entries.append((uid, key, profile.unique_id, profile.relation, profile.row_count, profile.sampled,
                        profile.sample_percent, None if profile.sample_method is None else profile.sample_method.value,
                        tuple(columns)))
    lengths = [len(s) for s in signatures]
    meta = marshal.dumps((entries, builds, lengths))

    def chunks() -> Iterator[bytes]:
        yield _header(_stamp(json_path))
        yield len(meta).to_bytes(_LENGTH_BYTES, "little")
        yield meta + bytes(_minima_offset(len(meta)) - _LENGTH_BYTES - len(meta))
        for start in range(0, len(signatures), CHUNK_SIGNATURES):
            block = signatures[start:start + CHUNK_SIGNATURES]
            yield np.concatenate(block).tobytes() if block else b""

    atomic_write_chunks(binary_path(json_path), chunks())


def read_binary(json_path: Path) -> tuple[dict[str, str], dict[str, RelationProfile], list[str]] | None:
    """(keys, profiles, builds) from the copy of ``json_path``, or ``None`` when there is no copy
    of that file as it is now (missing, stale, another version, damaged)."""
    path = binary_path(json_path)
    try:
        header = _header(_stamp(json_path))
        with open(path, "rb") as handle:
            if handle.read(len(header)) != header:
                return None
            data = handle.read()
    except OSError:
        return None
    try:
        size = int.from_bytes(data[:_LENGTH_BYTES], "little")
        entries, builds, lengths = marshal.loads(data[_LENGTH_BYTES:_LENGTH_BYTES + size])
        minima = np.frombuffer(data, dtype=np.uint64, offset=_minima_offset(size))
        if len(minima) != sum(lengths):
            return None
        starts = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64))).tolist()
        keys: dict[str, str] = {}
        profiles: dict[str, RelationProfile] = {}
        for uid, key, unique_id, relation, row_count, sampled, sample_percent, method, columns in entries:
            cols = {}
            for (name, data_type, non_null, distinct, approx, min_len, max_len, at, top, flag_words, skipped,
                 borrowed, min_value, max_value) in columns:
                signature = None if at < 0 else Signature.of_array(minima[starts[at]:starts[at + 1]])
                cols[name.lower()] = ColumnProfile(name, data_type, non_null, distinct, approx, min_len, max_len,
                                                   signature, top, flag_words, skipped, frozenset(borrowed),
                                                   min_value, max_value)
            keys[uid] = key
            profiles[uid] = RelationProfile(unique_id, relation, row_count, sampled, sample_percent, cols,
                                            None if method is None else SampleMethod(method))
        return keys, profiles, list(builds)
    except (EOFError, ValueError, TypeError, IndexError, KeyError):
        return None


def remove_binary(json_path: Path) -> None:
    """No copy of a cache that could not be read or written as it is (best effort)."""
    try:
        os.unlink(binary_path(json_path))
    except OSError:
        pass
