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
from dbt_schema_link.fileio import atomic_write_text
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


def _usable(unique_id: str, entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("profile"), dict):
        return False
    try:
        return relation_profile(entry["profile"]).unique_id == unique_id
    except Exception:  # noqa: BLE001 - a bad cache entry means: profile again
        return False


class ProfileCache:
    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        #: invocation_ids of dbt builds whose on-run-end profiles are already in (build_log.py)
        self.builds: list[str] = []

    @classmethod
    def load(cls, path: Path) -> "ProfileCache":
        cache = cls(path)
        if not path.exists():
            return cache
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return cache  # a damaged cache is rebuilt, never fatal
        if isinstance(data, dict) and data.get("format") == CACHE_FORMAT and data.get("format_version") == CACHE_VERSION:
            entries = data.get("relations")
            if isinstance(entries, dict):
                # Only entries that read back as a profile of that relation; the rest is re-profiled.
                cache.entries = {k: v for k, v in entries.items() if _usable(k, v)}
            builds = data.get("builds")
            if isinstance(builds, list):
                cache.builds = [b for b in builds if isinstance(b, str)]
        return cache

    def get(self, unique_id: str, key: str) -> RelationProfile | None:
        entry = self.entries.get(unique_id)
        if not entry or entry.get("key") != key or not isinstance(entry.get("profile"), dict):
            return None
        try:
            return relation_profile(entry["profile"])
        except Exception:  # noqa: BLE001 - a bad cache entry means: profile again
            return None

    def put(self, profile: RelationProfile, key: str) -> None:
        self.entries[profile.unique_id] = {"key": key, "profile": relation_profile_to_json(profile)}

    def prune(self, keep: set[str]) -> None:
        self.entries = {k: v for k, v in self.entries.items() if k in keep}

    def save(self, profiles: ProfileSet) -> None:
        data = {
            "format": CACHE_FORMAT,
            "format_version": CACHE_VERSION,
            "adapter": profiles.adapter,
            "k": profiles.k,
            "package_version": profiles.package_version,
            "relations": dict(sorted(self.entries.items())),
            "builds": self.builds[-MAX_REMEMBERED_BUILDS:],
            "failures": [asdict(f) for f in profiles.failures],
        }
        atomic_write_text(self.path, json.dumps(data, indent=1, sort_keys=False) + "\n")
