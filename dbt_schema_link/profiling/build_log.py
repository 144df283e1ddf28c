"""Profiles that the package's on-run-end hook logged during `dbt build` (or run/seed/snapshot).

The hook (macros/schema_link_on_run_end.sql) prints the same `@@schema_link@@` envelope as
`link_schemas`, with `hook`, `invocation_id` and `target` in its `begin` line, into dbt's own log
file (`logs/dbt.log` in dbt's text or JSON file format, rotated as dbt.log.1 … dbt.log.5). Reading
it back lets `profile`/`link` reuse what the build measured instead of scanning those relations
again. Parsing is pure (lines in, records out); `read_build_log` only reads the files.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from dbt_schema_link.artifacts.records import Project, Relation
from dbt_schema_link.dbt_runner import parse_log_line
from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.cache import ProfileCache, cache_key
from dbt_schema_link.profiling.envelope import SENTINEL, Envelope, assemble_relation, feed
from dbt_schema_link.profiling.options import ProfileOptions
from dbt_schema_link.profiling.records import ProfileFailure, RelationProfile

#: The `hook` value the on-run-end macro puts in its `begin` line.
HOOK_NAME = "on_run_end"
#: dbt's default log directory, under the project directory (`--log-path` / DBT_LOG_PATH move it).
LOG_DIR = "logs"
LOG_FILE = "dbt.log"
#: dbt keeps this many rotated files beside dbt.log (dbt.log.1 is the newest of them).
ROTATED_FILES = 5


@dataclass
class BuildProfiles:
    """What one dbt invocation's on-run-end hook profiled."""

    invocation_id: str
    target: str
    adapter: str
    options: dict[str, Any]
    profiles: dict[str, RelationProfile] = field(default_factory=dict)  # by unique_id
    skipped: list[ProfileFailure] = field(default_factory=list)
    complete: bool = False  # the `end` line arrived (else the hook stopped part-way)


def log_files(log_dir: Path) -> list[Path]:
    """dbt's log file and its rotated copies that exist, oldest first."""
    names = [f"{LOG_FILE}.{n}" for n in range(ROTATED_FILES, 0, -1)] + [LOG_FILE]
    return [log_dir / name for name in names if (log_dir / name).is_file()]


def _message(line: str) -> str | None:
    """The log message of one dbt.log line when it is an envelope line (text or JSON format)."""
    at = line.find(SENTINEL)
    if at < 0:
        return None
    if line.lstrip().startswith("{"):
        message = parse_log_line(line)
        return message.msg if message is not None else None
    return line[at:].rstrip()


def parse_build_log(lines: Iterable[str]) -> tuple[list[BuildProfiles], list[str]]:
    """Every hook envelope in the lines, in log order, and notices about the ones that could not
    be read. Envelopes of `link_schemas` runs (no `hook` in their `begin`) are ignored."""
    builds: list[BuildProfiles] = []
    notices: list[str] = []
    envelope: Envelope | None = None
    current: BuildProfiles | None = None
    for line in lines:
        msg = _message(line)
        if msg is None:
            continue
        if msg[len(SENTINEL):].lstrip().startswith("begin"):
            envelope, current = Envelope(), None
        if envelope is None:
            continue
        try:
            kind = feed(envelope, msg)
        except WarehouseError as exc:
            notices.append(f"notice: profiles of an earlier dbt build were not read ({exc})")
            envelope, current = None, None
            continue
        if kind == "begin":
            header = envelope.header or {}
            if header.get("hook") != HOOK_NAME:
                envelope = None
                continue
            options = header.get("options")
            current = BuildProfiles(str(header.get("invocation_id") or ""), str(header.get("target") or ""),
                                    str(header.get("adapter") or ""), options if isinstance(options, dict) else {})
            builds.append(current)
        elif current is None:
            continue
        elif kind == "relation":
            _add_relation(current, envelope.relations[-1])
        elif kind == "end":
            current.complete = True
            for item in (envelope.end or {}).get("skipped") or []:
                if isinstance(item, dict) and isinstance(item.get("unique_id"), str):
                    current.skipped.append(ProfileFailure(item["unique_id"], str(item.get("reason") or "")))
            envelope = None
    return builds, notices


def _add_relation(build: BuildProfiles, raw: dict[str, Any]) -> None:
    try:
        profile = assemble_relation(raw)
    except WarehouseError:
        return  # a damaged line loses that relation only: link profiles it itself
    build.profiles[profile.unique_id] = profile
    # Another node (e.g. a source over a seed's table) names the same relation.
    duplicates = raw.get("duplicates")
    for name in duplicates if isinstance(duplicates, list) else []:
        if isinstance(name, str):
            build.profiles[name] = replace(profile, unique_id=name)


def read_build_log(log_dir: Path) -> tuple[list[BuildProfiles], list[str]]:
    """The hook envelopes in `log_dir`'s dbt.log files (none when there is no log)."""

    def lines() -> Iterable[str]:
        for path in log_files(log_dir):
            try:
                with path.open(encoding="utf-8", errors="replace") as handle:
                    yield from handle
            except OSError:
                continue  # rotated away while reading: what remains still counts

    return parse_build_log(lines())


@dataclass(frozen=True)
class BuildReuse:
    """What `take_build_profiles` put into the cache."""

    used: list[str]  # unique_ids whose profile now comes from a build
    builds: list[str]  # invocation_ids read this time
    notices: list[str]


def _same_options(logged: dict[str, Any], wanted: dict[str, Any]) -> bool:
    try:
        return all(key in logged and float(logged[key]) == float(value) for key, value in wanted.items())
    except (TypeError, ValueError):
        return False


def _plain(name: str) -> str:
    return name.replace('"', "").replace("`", "").lower()


def _fits(relation: Relation, profile: RelationProfile) -> bool:
    """The profile is of this node's relation as the artifacts know it now: the same physical
    name (another target's build profiled another relation) and, when the catalog lists the
    columns, the same columns (else the relation changed since)."""
    if relation.relation_name and _plain(relation.relation_name) != _plain(profile.relation):
        return False
    return not relation.columns or set(relation.columns) == set(profile.columns)


def take_build_profiles(builds: Iterable[BuildProfiles], project: Project, cache: ProfileCache,
                        options: ProfileOptions, use: bool = True) -> BuildReuse:
    """Put the profiles of builds not taken in before into the cache under the keys the profiler
    looks up, newest last so that it wins; remembers each build's invocation_id in the cache.
    `use` False (a `--refresh` run profiles everything itself): only remember them, so that these
    older profiles never replace the fresh ones later."""
    used: dict[str, None] = {}
    read: list[str] = []
    notices: list[str] = []
    for build in builds:
        if not build.invocation_id or build.invocation_id in cache.builds:
            continue
        cache.builds.append(build.invocation_id)
        read.append(build.invocation_id)
        if not use:
            continue
        if build.adapter and build.adapter != project.adapter_type:
            continue  # another project's or warehouse's build sharing the log
        if not _same_options(build.options, options.macro_args()):
            notices.append(f"notice: the dbt build {build.invocation_id} profiled with other options than "
                           f"this run's; its relations are profiled again")
            continue
        if not build.complete:
            notices.append(f"notice: the on-run-end hook of dbt build {build.invocation_id} stopped part-way; "
                           f"the {len(build.profiles)} relations it logged are used, the rest profiled again")
        for uid, profile in build.profiles.items():
            relation = project.relations.get(uid)
            if relation is not None and _fits(relation, profile):
                cache.put(profile, cache_key(relation, options, project.adapter_type))
                used[uid] = None
        for failure in build.skipped:
            notices.append(f"notice: the on-run-end hook skipped {failure.unique_id}: {failure.message}")
    return BuildReuse(list(used), read, notices)
