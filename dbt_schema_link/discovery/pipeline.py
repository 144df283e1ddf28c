"""``discover()``: the join-discovery pipeline, cheap to expensive.

features -> declared links and SQL facts (joins, lineage) -> candidates (names, LSH, SQL) ->
evidence and traps -> scores -> bounded exact verification (injected ``verify``) -> rescoring ->
one parent domain per child -> lineage collapse -> value domains -> :class:`LinkSet`.

The function is pure apart from calling ``verify`` and ``progress``. Each stage lives in a module
named for its job: :mod:`.evaluate` (value fits, evidence, score of one pair), :mod:`.passes` (the
scoring passes, child by child, reusing the last run's scores through :mod:`.memo`),
:mod:`.verification` (the exact-check budget), :mod:`.selection`, :mod:`.rejections`, :mod:`.materialise` (scored pair ->
``Link``), :mod:`.declared` (declared and written links), :mod:`.lineage` (lineage links, copies,
value domains).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from dbt_schema_link.artifacts.records import ColumnRef, Project
from dbt_schema_link.collector import collector_paused
from dbt_schema_link.discovery import composite, memo
from dbt_schema_link.discovery.bands import BandJoin
from dbt_schema_link.discovery.candidates import CandidateSources, LookupReuse
from dbt_schema_link.discovery.declared import declared_links, mark_written
from dbt_schema_link.discovery.domains import UnionFind
from dbt_schema_link.discovery.evaluate import Scored
from dbt_schema_link.discovery.features import ColInfo, build_features
from dbt_schema_link.discovery.lineage import (
    assign_domains, carry_along_lineage, lineage_members, links_from_lineage, lookups_as_joins,
    mark_entity_copies, mark_grouped, mark_pass_through,
)
from dbt_schema_link.discovery.memo import Relink
from dbt_schema_link.discovery.passes import ScoringPasses
from dbt_schema_link.discovery.records import Link, LinkKind, LinkSet, Provenance, StageTimings
from dbt_schema_link.discovery.rejections import rejections
from dbt_schema_link.discovery.render import SqlPath
from dbt_schema_link.discovery.selection import select
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.sqlfacts import SqlFacts, extract_sql_facts
from dbt_schema_link.discovery.verification import pairs_to_verify, share_with_copies
from dbt_schema_link.profiling.records import ContainmentResult, ProfileSet

Pair = tuple[ColumnRef, ColumnRef]

#: Exact containment measured in the warehouse for (child, parent) pairs; I/O stays outside.
Verifier = Callable[[Sequence[Pair]], Mapping[Pair, ContainmentResult]]



def discover(project: Project, profiles: ProfileSet | None, settings: DiscoverySettings | None = None,
             verify: Verifier | None = None,
             progress: Callable[[str], None] | None = None,
             inspect: Callable[[Sequence[Scored]], None] | None = None,
             verify_tuples: composite.TupleVerifier | None = None,
             band_join: BandJoin | None = None, relink: Relink | None = None) -> LinkSet:
    """Find how the project's relations join.

    ``profiles`` (``None``: names, types, SQL and declared links only) come from the
    ``link_schemas`` macro; ``verify`` (``None``: no exact checks) measures exact containment of
    (child, parent) pairs in the warehouse and is called once, with at most
    ``settings.max_verify_total`` pairs; ``progress`` receives one-line messages; ``inspect``
    (for calibration and debugging) receives every scored candidate pair once; ``verify_tuples``
    (``None``: no composite keys) measures composite key candidates (:mod:`.composite`);
    ``band_join`` (``None``: in Python) runs the value lookups as one join in the engine when the
    project has ``engine_lookup_min_columns`` columns (:mod:`.bands`); ``relink`` (``None``: score
    everything, keep nothing) reuses the last run's scores of children whose inputs are unchanged
    and keeps this run's for the next (:mod:`.memo`; same result). Pure otherwise:
    the same inputs give the same :class:`LinkSet`. See the module docstring for the stages.
    """
    with collector_paused():
        return _discover(project, profiles, settings or DiscoverySettings(), verify, progress, inspect, verify_tuples,
                         band_join, relink)


def _discover(project: Project, profiles: ProfileSet | None, settings: DiscoverySettings, verify: Verifier | None,
              progress: Callable[[str], None] | None, inspect: Callable[[Sequence[Scored]], None] | None,
              verify_tuples: composite.TupleVerifier | None, band_join: BandJoin | None,
              relink: Relink | None) -> LinkSet:
    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    notes: list[str] = []
    counts: dict[str, int] = {}
    timings = StageTimings()
    clock = [started]

    def lap(stage: str) -> None:
        now = time.perf_counter()
        timings.add(stage, now - clock[0])
        clock[0] = now

    features = build_features(project, profiles, settings)
    lap("features")
    counts["relations"] = len(features.relations)
    counts["columns"] = len(features.columns)
    counts["columns_profiled"] = sum(1 for c in features.columns if c.has_values)
    say(f"discovery: {counts['columns']} columns in {counts['relations']} relations "
        f"({counts['columns_profiled']} profiled)")
    if profiles is None or not settings.use_values:
        notes.append("no profiles: links rest on names, types, SQL and declared tests only")

    # -- dbt facts: declared links, SQL joins and lineage -----------------------------------
    # Tests `write` generated are not declarations: they are inferred from the data again below
    # and keep their provenance (a written link is never promoted to declared).
    composite_declared = [d for d in project.declared_links if d.extra_pairs]  # composite tests (.composite)
    singles = [d for d in project.declared_links if not d.extra_pairs]
    written = [d for d in singles if d.written]
    declared = declared_links([d for d in singles if not d.written], features)
    lap("declared links")
    facts = extract_sql_facts(project) if settings.use_sql else SqlFacts()
    for ref in facts.aggregates:
        col = features.col(ref)
        if col is not None:
            col.aggregate = True
    facts = lookups_as_joins(facts, features)
    mark_pass_through(facts, features)
    mark_grouped(facts, features)
    lap("sql facts")
    for path in SqlPath:
        if facts.paths.get(path):
            counts[f"sql_models_{path.value}"] = facts.paths[path]
    if facts.failures:
        counts["sql_failures"] = len(facts.failures)
        shown = "; ".join(f"{uid} ({msg})" for uid, msg in facts.failures[:3])
        notes.append(f"{len(facts.failures)} model(s) SQL could not be parsed: {shown}")
    if facts.warnings:
        counts["sql_warnings"] = len(facts.warnings)
        models = sorted({uid for uid, _ in facts.warnings})
        uid, message = facts.warnings[0]
        notes.append(f"the SQL reader warned {len(facts.warnings)} time(s) on {len(models)} model(s), first on "
                     f"{uid}: {message}")
    lineage_uf = UnionFind()
    for copy in facts.copies:
        lineage_uf.union(copy.column.key(), copy.source.key())
    mark_entity_copies(features, lineage_uf)
    say(f"discovery: {len(declared)} declared links, {len(facts.joins)} SQL joins, "
        f"{len(facts.copies)} lineage copies")

    cls = lineage_uf.find
    declared_pairs = {(link.child.key(), link.parent.key()) for link in declared}
    declared_classes = {(cls(link.child.key()), cls(link.parent.key())) for link in declared}
    declared_child_classes = {c for c, _ in declared_classes}

    def skip(child: ColInfo, parent: ColInfo) -> bool:
        """Declared pairs (either way), copies of one column, and — through lineage — copies of
        declared pairs and children that already have a declared parent."""
        ck, pk = child.key, parent.key
        if declared_pairs and ((ck, pk) in declared_pairs or (pk, ck) in declared_pairs):
            return True
        c, p = cls(ck), cls(pk)  # asked of every candidate pair: each class found once
        if c == p:
            return True  # two copies of one column: lineage, not a join
        if not settings.collapse_lineage:
            return False
        return c in declared_child_classes or (p, c) in declared_classes

    # -- candidates and evidence ------------------------------------------------------------
    scope = memo.scope_digest(project, settings, features.k, facts) if relink is not None else b""
    lookups = None if relink is None else LookupReuse(
        relink.previous.lookups if relink.previous is not None and relink.previous.usable(scope) else None)
    sources = CandidateSources(features, settings, facts.joins, skip, lap, band_join, lookups)
    passes = ScoringPasses(sources, features, settings, lineage_uf, facts.joins, relink, scope)
    lap("candidate pairs")
    found = passes.counts
    counts.update(found.as_counts())
    counts["candidates"] = found.total
    say(f"discovery: {found.total} candidate pairs ({found.by_name} by name, {found.by_value} by value, "
        f"{found.by_sql} from SQL)")
    if relink is not None and relink.memo is not None and lookups is not None:
        relink.memo.lookups = lookups.kept
        relink.use.lookups_reused = lookups.reused
    scored = passes.first(lap)
    if relink is not None and relink.previous is not None:
        use = relink.use
        say(f"discovery: scores of {use.children_reused} of {use.children_reused + use.children_scored} children "
            f"reused from the last run ({use.children_scored} scored; candidates of {use.children_generated} "
            f"columns generated)")
    lap("evidence and scoring")

    # -- exact verification (bounded) -------------------------------------------------------
    if verify is not None and settings.max_verify_total > 0 and settings.max_verify_per_child > 0:
        chosen = pairs_to_verify(scored, settings, lineage_uf, profiled=bool(features.k))
        if chosen:
            say(f"discovery: verifying {len(chosen)} pairs in the warehouse")
            results = verify([(s.cand.child.ref, s.cand.parent.ref) for s in chosen])
            by_key = {(c.key(), p.key()): r for (c, p), r in (results or {}).items()}
            measured = {s.cand.key: by_key[s.cand.key] for s in chosen if s.cand.key in by_key}
            exacts = share_with_copies(measured, scored, lineage_uf)
            passes.verified(scored, exacts)
            counts["verified_pairs"] = len(measured)
        lap("exact verification")
    elif verify is None and features.k:
        notes.append("no verifier: value containment is estimated from MinHash signatures only")

    if inspect is not None:
        inspect(list(scored.values()))
    # -- selection, lineage collapse, domains -----------------------------------------------
    inferred = select(scored, settings, lineage_uf)
    rejected = rejections(scored, settings, inferred, lineage_uf)
    composites: list[Link] = []  # kept beside lineage carrying and value domains (one column each)
    if verify_tuples is not None and features.k:
        references = frozenset(link.child.key() for link in declared + inferred)
        composites, checked = composite.composite_links(features, settings, verify_tuples, skip, references)
        counts["composite_checked"], counts["composite_links"] = checked, len(composites)
    composites = composite.reconcile(composites, composite_declared)
    inferred = composite.without_parts(inferred, composites)
    inferred, unsupported = mark_written(inferred, written, scored, features)
    if unsupported:
        counts["written_unsupported"] = unsupported
        notes.append(f"{unsupported} link(s) written by dbt-schema-link are not inferred from the data any more "
                     "(kept as written, at the confidence the pair scores now): check the data or remove the test")
    lap("selection")
    lineage_links = links_from_lineage(facts, features)
    members = lineage_members(facts, lineage_uf)
    joins = [carry_along_lineage(link, members, lineage_uf, features, settings.max_carried_copies)
             for link in declared + inferred]
    links = joins + lineage_links
    links, domains = assign_domains(links, features, lineage_uf)
    links += composites
    lap("lineage and domains")
    counts["declared_links"] = len(declared) + sum(1 for link in composites if link.kind is LinkKind.DECLARED)
    counts["inferred_links"] = len(inferred) + sum(1 for link in composites if link.kind is LinkKind.INFERRED)
    if written:
        counts["written_links"] = sum(1 for link in inferred if link.provenance is Provenance.WRITTEN)
    counts["lineage_links"] = len(lineage_links)
    counts["rejected_traps"] = len(rejected)
    counts["domains"] = len(domains)
    result = LinkSet(
        links=links, domains=domains, rejected=rejected, settings=settings, counts=counts,
        notes=notes, project_name=project.project_name,
    )
    result.sort()
    features.release()
    lap("result")
    result.timings = timings
    say(f"discovery: {len(inferred)} inferred, {len(declared)} declared, {len(lineage_links)} lineage "
        f"links in {time.perf_counter() - started:.1f}s")
    return result
