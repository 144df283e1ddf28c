"""Profile a project's relations inside the warehouse through `dbt run-operation link_schemas`.

Plan (what is not cached) → run dbt once for the whole batch → parse the streamed envelope. When
dbt fails mid-run, the relations that finished are kept and the rest are retried so that the
failing relation is isolated, reported by name and skipped; the others still get profiled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from dbt_schema_link import __version__
from dbt_schema_link.artifacts.records import Project, Relation
from dbt_schema_link.artifacts.scope import package_counts
from dbt_schema_link.dbt_runner import MAX_ARGS_BYTES, DbtInvocation, args_size, run_operation
from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.build_log import BuildProfiles, take_build_profiles
from dbt_schema_link.profiling.cache import ProfileCache, cache_key
from dbt_schema_link.profiling.envelope import Envelope, assemble_relation, feed
from dbt_schema_link.profiling.options import ProfileOptions
from dbt_schema_link.profiling.records import ProfileFailure, ProfileSet, RelationProfile

PROFILE_MACRO = "link_schemas"

Progress = Callable[[str], None]


@dataclass(frozen=True)
class ProfilePlan:
    to_profile: list[Relation]
    cached: dict[str, RelationProfile]


def select_relations(project: Project, select: Sequence[str] = (), exclude: Sequence[str] = ()) -> list[Relation]:
    """Every relation of the project as given — the root project's and the installed packages'
    in scope (artifacts/scope.py) — in a stable order, filtered by name/id."""
    chosen = list(project.relations.values())
    if select:
        wanted = {s.lower() for s in select}
        chosen = [r for r in chosen if {r.unique_id.lower(), r.name.lower(), r.short_name.lower()} & wanted]
    if exclude:
        unwanted = {s.lower() for s in exclude}
        chosen = [r for r in chosen if not {r.unique_id.lower(), r.name.lower(), r.short_name.lower()} & unwanted]
    return sorted(chosen, key=lambda r: r.unique_id)


def plan(relations: list[Relation], cache: ProfileCache, options: ProfileOptions, adapter: str,
         refresh: bool) -> ProfilePlan:
    cached: dict[str, RelationProfile] = {}
    todo: list[Relation] = []
    for rel in relations:
        hit = None if refresh else cache.get(rel.unique_id, cache_key(rel, options, adapter))
        if hit is not None:
            cached[rel.unique_id] = hit
        else:
            todo.append(rel)
    return ProfilePlan(todo, cached)


def selection_args(relations: Sequence[Relation], universe: Sequence[Relation], base: dict,
                   folded: Sequence[str] = ()) -> list[tuple[dict, list[Relation]]]:
    """`link_schemas` arguments that select exactly `relations` out of `universe` (every relation
    the macro would collect unfiltered), as few dbt runs as fit the command line: one `exclude`
    list when the rest is shorter (a first run excludes nothing), else `select` lists packed up to
    MAX_ARGS_BYTES each. `folded`: nodes the macro also collects that name a relation of the
    universe (artifacts/identity.py), excluded with the rest. Returns (macro args, the relations
    they select) per run."""
    wanted = {r.unique_id for r in relations}
    rest = [r.unique_id for r in universe if r.unique_id not in wanted] + list(folded)
    as_exclude = {**base, "select": None, "exclude": rest}
    as_select = {**base, "select": [r.unique_id for r in relations]}
    if wanted <= {r.unique_id for r in universe} and args_size(as_exclude) <= min(args_size(as_select), MAX_ARGS_BYTES):
        return [(as_exclude, list(relations))]
    if args_size(as_select) <= MAX_ARGS_BYTES:
        return [(as_select, list(relations))]
    room = MAX_ARGS_BYTES - args_size({**base, "select": []})
    runs: list[tuple[dict, list[Relation]]] = []
    chunk: list[Relation] = []
    used = 0
    for rel in relations:
        cost = len(json.dumps(rel.unique_id).encode("utf-8")) + 2  # the id, ", "
        if chunk and used + cost > room:
            runs.append(({**base, "select": [r.unique_id for r in chunk]}, chunk))
            chunk, used = [], 0
        chunk.append(rel)
        used += cost
    if chunk:
        runs.append(({**base, "select": [r.unique_id for r in chunk]}, chunk))
    return runs


class _Batch:
    """Runs `link_schemas` for a list of relations and collects what came back."""

    def __init__(self, inv: DbtInvocation, options: ProfileOptions, progress: Progress | None, total: int,
                 universe: Sequence[Relation], root: str = "", folded: Sequence[str] = ()):
        self.inv, self.options, self.progress, self.total = inv, options, progress, total
        self.universe = list(universe)
        # the macro collects the root project's relations; these packages' too
        self.packages = sorted(package_counts(self.universe, root))
        self.folded = list(folded)
        self.profiles: dict[str, RelationProfile] = {}
        self.failures: list[ProfileFailure] = []
        self.header: dict | None = None

    def run(self, relations: list[Relation]) -> None:
        base = {**self.options.macro_args(), "suggest": False, "envelope": True}
        if self.packages:
            base["packages"] = self.packages
        for args, chunk in selection_args(relations, self.universe, base, self.folded):
            self._run(chunk, args)

    def _run(self, relations: list[Relation], args: dict) -> None:
        if not relations:
            return
        envelope = Envelope()
        asked = {r.unique_id for r in relations}

        def on_message(message) -> None:
            kind = feed(envelope, message.msg)
            if kind == "relation":
                raw = envelope.relations[-1]
                profile = assemble_relation(raw)
                # Another node (e.g. a source over a seed's table) names the same relation.
                duplicates = raw.get("duplicates")
                names = [profile.unique_id] + [d for d in (duplicates if isinstance(duplicates, list) else [])
                                               if isinstance(d, str)]
                for name in names:
                    if name in asked:  # not what this run asked for (e.g. already cached): ignore
                        self.profiles[name] = profile if name == profile.unique_id else replace(profile, unique_id=name)
                if self.progress:
                    self.progress(
                        f"[{len(self.profiles)}/{self.total}] profiled {profile.unique_id} "
                        f"({profile.row_count:,} rows, {len(profile.columns)} columns"
                        f"{', sampled' if profile.sampled else ''})"
                    )

        result = run_operation(self.inv, PROFILE_MACRO, args, on_message)
        first_start = self.header is None and not self.profiles and not self.failures
        if envelope.header is not None:
            self.header = envelope.header
        missing = [r for r in relations if r.unique_id not in self.profiles]
        if result.ok and envelope.complete:
            for rel in missing:  # the macro skipped it (e.g. relation not built yet)
                self.failures.append(ProfileFailure(rel.unique_id, "relation not found in the warehouse: run `dbt build` first"))
            return
        if envelope.header is None and first_start:
            # Nothing ran at all: a project-level problem (profile, package not installed, …).
            raise WarehouseError(_project_level_error(result.error_summary()))
        if not missing:
            return
        if len(missing) == 1:
            self.failures.append(ProfileFailure(missing[0].unique_id, result.error_summary()))
            return
        # The macro profiles in the order given: the first missing relation is the likely culprit.
        self.run(missing[:1])
        self.run(missing[1:])


def _from_packages(relations: Sequence[Relation], root: str) -> str:
    """`; 10 from packages (ghpkg 10)` for the progress line, or nothing."""
    counts = package_counts(relations, root)
    if not counts:
        return ""
    return (f"; {sum(counts.values())} from packages ("
            + ", ".join(f"{name} {n}" for name, n in counts.items()) + ")")


def _project_level_error(summary: str) -> str:
    if "link_schemas" in summary and ("not found" in summary or "Could not find" in summary):
        return ("dbt cannot find the macro link_schemas: add the dbt_schema_link package to packages.yml "
                "and run `dbt deps`")
    return f"dbt run-operation {PROFILE_MACRO} failed: {summary}"


def profile_project(
    project: Project,
    inv: DbtInvocation,
    cache_path: Path,
    options: ProfileOptions = ProfileOptions(),
    select: Sequence[str] = (),
    exclude: Sequence[str] = (),
    refresh: bool = False,
    progress: Progress | None = None,
    builds: Sequence[BuildProfiles] = (),
) -> ProfileSet:
    """`builds`: what on-run-end hooks logged (build_log.py); those not taken in before replace
    the cached profiles of the relations they measured, so those are not profiled again
    (`refresh`: only noted as taken)."""
    relations = select_relations(project, select, exclude)
    if (select or exclude) and not relations:
        raise WarehouseError(f"no relation matches --select {list(select)} / --exclude {list(exclude)}: check the names")
    cache = ProfileCache.load(cache_path)
    reuse = take_build_profiles(builds, project, cache, options, use=not refresh)
    for notice in reuse.notices if progress else ():
        progress(notice)
    work = plan(relations, cache, options, project.adapter_type, refresh)
    from_build = [uid for uid in reuse.used if uid in work.cached]
    if progress:
        built = f"{len(from_build)} from the build, " if from_build else ""
        progress(f"profiling {len(work.to_profile)} relations in the warehouse "
                 f"({built}{len(work.cached) - len(from_build)} unchanged, from cache)"
                 f"{_from_packages(work.to_profile, project.project_name)}")
    batch = _Batch(inv, options, progress, len(work.to_profile), select_relations(project), project.project_name,
                   sorted(project.folded))
    batch.run(work.to_profile)
    header = batch.header or {}
    profiles = ProfileSet(
        adapter=str(header.get("adapter") or project.adapter_type),
        k=options.k,
        package_version=str(header.get("package_version") or __version__),
        relations={**work.cached, **batch.profiles},
        failures=batch.failures,
        from_build=from_build,
        profiled=sorted(batch.profiles),
    )
    by_id = {r.unique_id: r for r in relations}
    for uid, profile in batch.profiles.items():
        if uid in by_id:
            cache.put(profile, cache_key(by_id[uid], options, project.adapter_type))
    # Keep what earlier runs profiled outside this selection (`profile --select` adds to the cache);
    # drop relations gone from the project and the ones that failed now.
    failed = {f.unique_id for f in batch.failures}
    cache.prune({uid for uid in project.relations if uid not in failed})
    cache.save(profiles)
    return profiles
