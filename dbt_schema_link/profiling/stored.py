"""Profiles from an earlier `profile` run (target/schema_link/profiles.json), read without
touching the warehouse. A damaged entry only loses that relation's profile."""

from __future__ import annotations

from pathlib import Path

from dbt_schema_link.artifacts.records import Project
from dbt_schema_link.collector import collector_paused
from dbt_schema_link.profiling.cache import ProfileCache
from dbt_schema_link.profiling.records import ProfileSet


@collector_paused()  # 100,000s of column profiles (dbt_schema_link.collector)
def stored_profiles(path: Path, project: Project) -> ProfileSet | None:
    if not path.exists():
        return None
    cache = ProfileCache.load(path)
    # entries that do not read back were dropped by the load: profiled again next time
    relations = {uid: profile for uid in cache.keys
                 if uid in project.relations and (profile := cache.profile(uid)) is not None}
    # k is the signatures' own length: discovery compares by value only when it is known.
    k = next((len(c.minhash) for r in relations.values() for c in r.columns.values() if c.minhash), 0)
    return ProfileSet(adapter=project.adapter_type, k=k, package_version="", relations=relations)
