"""Profiles cache under `target/schema_link/profiles.json`.

Each relation's profile is stored with a key built from what would change its profile: the
relation's name, its warehouse columns and types, the node's checksum and the profiling options.
Unchanged relations are not profiled again; `--refresh` ignores the cache.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dbt_schema_link import __version__
from dbt_schema_link.artifacts.records import Relation
from dbt_schema_link.collector import collector_paused
from dbt_schema_link.fileio import atomic_write_text
from dbt_schema_link.profiling.cache_binary import read_binary, remove_binary, write_binary
from dbt_schema_link.profiling.envelope import relation_profile, relation_profile_to_json
from dbt_schema_link.profiling.options import ProfileOptions
from dbt_schema_link.profiling.records import ProfileSet, RelationProfile

CACHE_FORMAT = "dbt_schema_link/profile_cache"
CACHE_VERSION = 3  # 2: one-permutation MinHash signatures; 3: flag_words in place of is_flag
#: How many dbt invocations whose on-run-end profiles were taken in are remembered.
MAX_REMEMBERED_BUILDS = 100


def cache_key(relation: Relation, options: ProfileOptions, adapter: str) -> str:
    payload = {
        "relation": relation.relation_name or relation.identifier,
        "columns": [(c.name, c.data_type) for c in sorted(relation.columns.values(), key=lambda c: c.index)],
        "checksum": relation.checksum,
        "options": asdict(options),
        "adapter": adapter,
        "version": __version__,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:24]


def _parsed(unique_id: str, entry: Any) -> RelationProfile | None:
    """The entry's profile when it reads back as a profile of that relation, else ``None``."""
    if not isinstance(entry, dict) or not isinstance(entry.get("profile"), dict):
        return None
    try:
        profile = relation_profile(entry["profile"])
    except Exception:  # noqa: BLE001 - a bad cache entry means: profile again
        return None
    return profile if profile.unique_id == unique_id else None


class ProfileCache:
    def __init__(self, path: Path):
        self.path = path
        #: each stored relation's cache key
        self.keys: dict[str, str] = {}
        #: each entry's profile, parsed once when read or put (a warehouse's cache is 100,000s of
        #: signatures: parsing them twice was a fifth of loading it). Only the parsed profile is
        #: kept, not the JSON it came from (the signatures' text, held through discovery: 145 MB
        #: at 100,000 columns); `save` writes the profile out again.
        self._profiles: dict[str, RelationProfile] = {}
        #: invocation_ids of dbt builds whose on-run-end profiles are already in (build_log.py)
        self.builds: list[str] = []

    @classmethod
    def load(cls, path: Path) -> "ProfileCache":
        """The cache at ``path``: from its binary copy when that is the copy of this very file
        (:mod:`.cache_binary`), else from the JSON, which then writes the copy for the next read."""
        cache = cls(path)
        if not path.exists():
            return cache
        with collector_paused():
            copied = read_binary(path)
        if copied is not None:
            cache.keys, cache._profiles, cache.builds = copied
            return cache
        cache._load_json()
        cache._write_binary()
        return cache

    def _write_binary(self) -> None:
        """The binary copy of what was just read or written (best effort: without it the JSON is read)."""
        try:
            write_binary(self.path, self.keys, self._profiles, self.builds)
        except OSError:
            remove_binary(self.path)

    def _load_json(self) -> None:
        cache, path = self, self.path
        # 100,000s of signatures in a warehouse's cache: parsed with the collector paused (see
        # dbt_schema_link.collector), from bytes (a text read decodes line by line, slower than JSON)
        with collector_paused():
            try:
                data = json.loads(path.read_bytes())
            except (OSError, ValueError, RecursionError):
                return  # a damaged cache is rebuilt, never fatal
            if not (isinstance(data, dict) and data.get("format") == CACHE_FORMAT
                    and data.get("format_version") == CACHE_VERSION):
                return
            entries = data.get("relations")
            if isinstance(entries, dict):
                # Only entries that read back as a profile of that relation; the rest is re-profiled.
                # Each raw entry is let go once parsed, so the document and the profiles are
                # never both held whole.
                for uid in list(entries):
                    entry = entries.pop(uid)
                    profile = _parsed(uid, entry)
                    if profile is not None:
                        cache.keys[uid], cache._profiles[uid] = str(entry.get("key")), profile
            builds = data.get("builds")
            if isinstance(builds, list):
                cache.builds = [b for b in builds if isinstance(b, str)]

    def get(self, unique_id: str, key: str) -> RelationProfile | None:
        """The relation's profile when it was stored under ``key`` (else it must be profiled again)."""
        if self.keys.get(unique_id) != key:
            return None
        return self._profiles.get(unique_id)

    def profile(self, unique_id: str) -> RelationProfile | None:
        """The relation's stored profile, whatever options took it (``link`` reads what ``profile`` left)."""
        return self._profiles.get(unique_id)

    def put(self, profile: RelationProfile, key: str) -> None:
        self.keys[profile.unique_id] = key
        self._profiles[profile.unique_id] = profile

    def prune(self, keep: set[str]) -> None:
        self.keys = {k: v for k, v in self.keys.items() if k in keep}
        self._profiles = {k: v for k, v in self._profiles.items() if k in keep}

    def save(self, profiles: ProfileSet) -> None:
        data = {
            "format": CACHE_FORMAT,
            "format_version": CACHE_VERSION,
            "adapter": profiles.adapter,
            "k": profiles.k,
            "package_version": profiles.package_version,
            "relations": {uid: {"key": key, "profile": relation_profile_to_json(self._profiles[uid])}
                          for uid, key in sorted(self.keys.items())},
            "builds": self.builds[-MAX_REMEMBERED_BUILDS:],
            "failures": [asdict(f) for f in profiles.failures],
        }
        atomic_write_text(self.path, json.dumps(data, indent=1, sort_keys=False) + "\n")
        # the copy holds what the file holds, in its order
        self.keys, self.builds = dict(sorted(self.keys.items())), data["builds"]
        self._write_binary()
