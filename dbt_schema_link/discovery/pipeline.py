"""``discover()``: the join-discovery pipeline, cheap to expensive.

features -> declared links and SQL facts (joins, lineage) -> candidates (names, LSH, SQL) ->
evidence and traps -> scores -> bounded exact verification (injected ``verify``) -> rescoring ->
one parent domain per child -> lineage collapse -> value domains -> :class:`LinkSet`.

The function is pure apart from calling ``verify`` and ``progress``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from dbt_schema_link.artifacts.records import ColumnRef, DeclaredLink, LinkOrigin, Project, ResourceType
from dbt_schema_link.confidence import confidence_text
from dbt_schema_link.discovery import composite
from dbt_schema_link.discovery.candidates import Candidate, generate
from dbt_schema_link.discovery.domains import AnchorRank, PairRank, UnionFind, canonical_pair, choose_anchor
from dbt_schema_link.discovery.evidence import (
    Block, RelationMatches, ValueFit, cardinality_evidence, cross_source_evidence, containment_estimates, exact_evidence, find_trap,
    has_name_signal, name_evidence, sql_evidence, type_evidence, value_evidence, values_agree,
)
from dbt_schema_link.discovery.features import ColInfo, Features, build_features
from dbt_schema_link.discovery.records import (
    Cardinality, Domain, Evidence, Link, LinkKind, LinkSet, Orphans, Provenance, Rejection, Signal, StageTimings, Trap, round4,
)
from dbt_schema_link.discovery.render import SqlPath
from dbt_schema_link.discovery.scoring import VALUE_SIGNALS, confidence, score
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.sqlfacts import SqlFacts, extract_sql_facts
from dbt_schema_link.discovery.values import ContainmentEstimate
from dbt_schema_link.profiling.records import ContainmentResult, ProfileSet

Pair = tuple[ColumnRef, ColumnRef]
#: Exact containment measured in the warehouse for (child, parent) pairs; I/O stays outside.
Verifier = Callable[[Sequence[Pair]], Mapping[Pair, ContainmentResult]]

#: A child is moved from a parent that is itself a foreign key to that key's parent when the
#: direct link's confidence is at most this much lower.
ROOT_MARGIN = 0.15

_ORIGIN_SIGNAL = {
    LinkOrigin.RELATIONSHIPS_TEST: Signal.DECLARED_TEST,
    LinkOrigin.RELATIONSHIPS_WHERE_TEST: Signal.DECLARED_TEST,
    LinkOrigin.FK_CONSTRAINT: Signal.DECLARED_CONSTRAINT,
    LinkOrigin.SEMANTIC_ENTITY: Signal.SEMANTIC_ENTITY,
}


@dataclass(eq=False)
class Scored:
    cand: Candidate
    raw: tuple[Evidence, ...]  # the evidence as weighed, contributions not filled in
    confidence: float  # for a pending TYPES_NEED_VALUES block: the confidence if values agree
    block: Block | None
    trap: tuple[Trap, str] | None
    estimate: ContainmentEstimate | None
    exact: ContainmentResult | None
    measured: bool = True  # its columns were profiled (which scoring table applies)
    _scored: tuple[Evidence, ...] | None = field(default=None, repr=False)

    @property
    def evidence(self) -> tuple[Evidence, ...]:
        """The evidence with each item's contribution, made when first asked: every candidate
        is scored, few are reported (hundreds of thousands of pairs at warehouse scale)."""
        if self._scored is None:
            self._scored = score(self.raw, self.measured)[1]
        return self._scored


def discover(project: Project, profiles: ProfileSet | None, settings: DiscoverySettings | None = None,
             verify: Verifier | None = None,
             progress: Callable[[str], None] | None = None,
             inspect: Callable[[Sequence[Scored]], None] | None = None,
             verify_tuples: composite.TupleVerifier | None = None) -> LinkSet:
    """Find how the project's relations join.

    ``profiles`` (``None``: names, types, SQL and declared links only) come from the
    ``link_schemas`` macro; ``verify`` (``None``: no exact checks) measures exact containment of
    (child, parent) pairs in the warehouse and is called once, with at most
    ``settings.max_verify_total`` pairs; ``progress`` receives one-line messages; ``inspect``
    (for calibration and debugging) receives every scored candidate pair once; ``verify_tuples``
    (``None``: no composite keys) measures composite key candidates (:mod:`.composite`). Pure otherwise:
    the same inputs give the same :class:`LinkSet`. See the module docstring for the stages.
    """
    settings = settings or DiscoverySettings()
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
    declared = _declared_links([d for d in singles if not d.written], features)
    lap("declared links")
    facts = extract_sql_facts(project) if settings.use_sql else SqlFacts()
    for ref in facts.aggregates:
        col = features.col(ref)
        if col is not None:
            col.aggregate = True
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
        if (ck, pk) in declared_pairs or (pk, ck) in declared_pairs:
            return True
        if lineage_uf.same(ck, pk):
            return True  # two copies of one column: lineage, not a join
        if not settings.collapse_lineage:
            return False
        c, p = cls(ck), cls(pk)
        return c in declared_child_classes or (p, c) in declared_classes

    # -- candidates and evidence ------------------------------------------------------------
    cands, cand_counts = generate(features, settings, facts.joins, skip, lap)
    counts.update(cand_counts)
    counts["candidates"] = len(cands)
    say(f"discovery: {len(cands)} candidate pairs "
        f"({cand_counts['candidates_by_name']} by name, {cand_counts['candidates_by_value']} by value, "
        f"{cand_counts['candidates_by_sql']} from SQL)")
    keys = list(cands)
    found = containment_estimates([(cands[key].child, cands[key].parent) for key in keys]) \
        if settings.use_values else [None] * len(keys)
    estimates = dict(zip(keys, found))
    lap("containment estimates")
    fits = _value_fits(cands, estimates, {}, settings, lineage_uf)
    matches = RelationMatches()
    scored = {key: _evaluate(cand, settings, estimates[key], fits.get(key), None, matches)
              for key, cand in cands.items()}
    scored = _cap_per_child(scored, settings.max_candidates_per_child)
    lap("evidence and scoring")

    # -- exact verification (bounded) -------------------------------------------------------
    if verify is not None and settings.max_verify_total > 0 and settings.max_verify_per_child > 0:
        chosen = _pairs_to_verify(scored, settings, lineage_uf)
        if chosen:
            say(f"discovery: verifying {len(chosen)} pairs in the warehouse")
            results = verify([(s.cand.child.ref, s.cand.parent.ref) for s in chosen])
            by_key = {(c.key(), p.key()): r for (c, p), r in (results or {}).items()}
            measured = {s.cand.key: by_key[s.cand.key] for s in chosen if s.cand.key in by_key}
            exacts = _share_with_copies(measured, scored, lineage_uf)
            fits = _value_fits(cands, estimates, exacts, settings, lineage_uf)
            for key, s in list(scored.items()):
                scored[key] = _evaluate(s.cand, settings, estimates[key], fits.get(key), exacts.get(key), matches)
            counts["verified_pairs"] = len(measured)
        lap("exact verification")
    elif verify is None and features.k:
        notes.append("no verifier: value containment is estimated from MinHash signatures only")

    if inspect is not None:
        inspect(list(scored.values()))
    # -- selection, lineage collapse, domains -----------------------------------------------
    inferred, rejected = _select(scored, settings, lineage_uf)
    composites: list[Link] = []  # kept beside lineage carrying and value domains (one column each)
    if verify_tuples is not None and features.k:
        composites, checked = composite.composite_links(features, settings, verify_tuples, skip)
        counts["composite_checked"], counts["composite_links"] = checked, len(composites)
    composites = composite.reconcile(composites, composite_declared)
    inferred = composite.without_parts(inferred, composites)
    inferred, unsupported = _mark_written(inferred, written, scored, features)
    if unsupported:
        counts["written_unsupported"] = unsupported
        notes.append(f"{unsupported} link(s) written by dbt-schema-link are not inferred from the data any more "
                     "(kept as written, at the confidence the pair scores now): check the data or remove the test")
    lap("selection")
    lineage_links = _lineage_links(facts, features)
    members = _lineage_members(facts, lineage_uf)
    joins = [_carry_along_lineage(link, members, lineage_uf, features, settings.max_carried_copies)
             for link in declared + inferred]
    links = joins + lineage_links
    links, domains = _assign_domains(links, features, lineage_uf)
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
    lap("result")
    result.timings = timings
    say(f"discovery: {len(inferred)} inferred, {len(declared)} declared, {len(lineage_links)} lineage "
        f"links in {time.perf_counter() - started:.1f}s")
    return result


# -- evaluation --------------------------------------------------------------------------------

def _value_fits(cands: dict, estimates: dict, exacts: dict, settings: DiscoverySettings,
                lineage_uf: UnionFind) -> dict:
    """For every candidate, how specific the child's values are (see ``ValueFit``)."""
    containers: dict[tuple, dict[object, int]] = {}
    for key, cand in cands.items():
        parent = cand.parent
        if not parent.is_table_key() or not parent.has_values:
            continue
        if not values_agree(estimates.get(key), exacts.get(key), settings):
            continue
        per_class = containers.setdefault(cand.child.key, {})
        cls = lineage_uf.find(parent.key)
        per_class[cls] = min(per_class.get(cls, parent.distinct), parent.distinct)
    # the two smallest containers per child: the nearest other one is the smallest unless that
    # is this parent's own class (one pass, not one per candidate over every container)
    smallest: dict[tuple, tuple] = {}
    for child_key, per_class in containers.items():
        ranked = sorted(per_class.items(), key=lambda item: item[1])[:2]
        smallest[child_key] = tuple(ranked)
    fits = {}
    for key, cand in cands.items():
        child_key = cand.child.key
        per_class = containers.get(child_key)
        if not per_class:
            continue
        own = lineage_uf.find(cand.parent.key)
        mine = per_class.get(own, cand.parent.distinct)
        two = smallest[child_key]
        others = [n for cls, n in two if cls != own][:1]
        nearest = others[0] if others else None
        fits[key] = ValueFit(
            containers=len(per_class) if own in per_class else len(per_class) + 1,
            tightest=nearest is None or mine <= nearest,
            margin=float("inf") if nearest is None else nearest / max(mine, 1),
        )
    return fits


def _evaluate(cand: Candidate, settings: DiscoverySettings, est: ContainmentEstimate | None,
              fit: ValueFit | None, exact: ContainmentResult | None = None,
              matches: RelationMatches | None = None) -> Scored:
    child, parent = cand.child, cand.parent
    measured = child.has_values or parent.has_values
    # types and cardinality first: a pair they rule out is never ranked, verified or reported
    # (the bulk of candidates at warehouse scale), so its names are not weighed at all
    typed = type_evidence(child, parent, values_agree(est, exact, settings))
    card = cardinality_evidence(child, parent, settings)
    if isinstance(typed, Block) and typed is not Block.TYPES_NEED_VALUES:
        return Scored(cand, (), 0.0, typed, None, est, exact, measured)
    names = name_evidence(child, parent, matches) if settings.use_names and card is not Block.PARENT_NOT_UNIQUE else []
    if card is Block.CHILD_WIDER and has_name_signal(names):  # the surplus may be orphans
        card = cardinality_evidence(child, parent, settings, vouched=True)
    if isinstance(card, Block):
        return Scored(cand, (), 0.0, card, None, est, exact, measured)
    evidence: list[Evidence] = list(names)
    if cand.joins:
        evidence.append(sql_evidence(cand.joins))
    named = has_name_signal(evidence)
    joined = bool(cand.joins)
    block: Block | None = None
    pending = False
    if typed is Block.TYPES_NEED_VALUES:
        pending = True
        evidence.append(Evidence(Signal.TYPE_MATCH, 0.0, f"{child.family.value} and {parent.family.value}: "
                                                          "the values must agree"))
    else:
        evidence.append(typed)
    evidence.append(card)
    if est is not None:
        evidence.append(value_evidence(child, parent, est, settings, vouched=named or joined))
    if exact is not None and exact.child_distinct:
        evidence.append(exact_evidence(child, parent, exact, settings, vouched=named or joined))
    against = cross_source_evidence(child, parent, settings)
    if against is not None and not joined:
        evidence.append(against)
    if not named and not joined and block is None:
        if not parent.is_table_key() or child.rel is parent.rel:
            block = Block.PARENT_NOT_KEY  # value-only links go to another relation's key
        elif est is None and exact is None:
            block = Block.PARENT_NOT_KEY  # nothing but a type match
    trap = find_trap(child, parent, evidence, settings, fit) if block is None else None
    if pending and block is None:
        block = Block.TYPES_NEED_VALUES
    return Scored(cand, tuple(evidence), confidence(evidence, measured), block, trap, est, exact, measured)


def _cap_per_child(scored: dict, cap: int) -> dict:
    by_child: dict[tuple, list[Scored]] = {}
    for s in scored.values():
        by_child.setdefault(s.cand.child.key, []).append(s)
    out = {}
    for items in by_child.values():
        items.sort(key=lambda s: (-_rank_value(s), str(s.cand.parent.ref)))
        for s in items[:cap]:
            out[s.cand.key] = s
    return out


def _rank_value(s: Scored) -> float:
    """Order of candidates of one child: usable ones first, by confidence."""
    if s.block in (None, Block.TYPES_NEED_VALUES) and s.trap is None:
        return 1.0 + s.confidence
    return s.confidence if s.block is None else 0.0


def _pairs_to_verify(scored: dict, settings: DiscoverySettings, lineage_uf: UnionFind) -> list[Scored]:
    """The pairs worth an exact check: usable, not traps, scoring at least
    ``verify_min_confidence``; one per lineage group (the pair that would be kept), at most
    ``max_verify_per_child`` per child and ``max_verify_total`` in all, best first."""
    groups: dict[tuple, list[Scored]] = {}
    for s in scored.values():
        if (s.exact is None and s.trap is None and s.block in (None, Block.TYPES_NEED_VALUES)
                and _worth_checking(s) >= settings.verify_min_confidence):
            key = (lineage_uf.find(s.cand.child.key), lineage_uf.find(s.cand.parent.key))
            groups.setdefault(key, []).append(s)
    representatives = []
    for members in groups.values():
        members.sort(key=lambda s: (str(s.cand.child.ref), str(s.cand.parent.ref)))
        representatives.append(members[canonical_pair([_pair_rank(s) for s in members])])
    representatives.sort(key=lambda s: (-s.confidence, str(s.cand.child.ref), str(s.cand.parent.ref)))
    chosen: list[Scored] = []
    per_child: dict[object, int] = {}
    for s in representatives:
        if len(chosen) >= settings.max_verify_total:
            break
        child_class = lineage_uf.find(s.cand.child.key)
        if per_child.get(child_class, 0) >= settings.max_verify_per_child:
            continue
        per_child[child_class] = per_child.get(child_class, 0) + 1
        chosen.append(s)
    return chosen


def _worth_checking(s: Scored) -> float:
    """The confidence that decides whether a pair is verified: with or without the MinHash
    estimate, whichever is higher — the check replaces the estimate, so a noisy estimate against
    the pair (few minima of a small child in a large parent) must not stop it."""
    without = [e for e in s.raw if e.signal is not Signal.VALUE_CONTAINMENT_ESTIMATE]
    if len(without) == len(s.raw):
        return s.confidence
    return max(s.confidence, confidence(without, s.measured))


def _share_with_copies(measured: dict, scored: dict, lineage_uf: UnionFind) -> dict:
    """An exact result measured on one pair holds for its lineage copies (same child class, same
    parent class: pass-through copies of the same columns), so it is applied to all of them."""
    def group(key: tuple) -> tuple:
        return (lineage_uf.find(key[0]), lineage_uf.find(key[1]))

    by_group = {group(key): result for key, result in measured.items()}
    out = dict(measured)
    for key in scored:
        if key not in out and group(key) in by_group:
            out[key] = by_group[group(key)]
    return out


def _pair_rank(s: Scored) -> PairRank:
    return PairRank(s.cand.child.rel.depth, s.cand.parent.rel.depth,
                    _is_model(s.cand.child) and _is_model(s.cand.parent), s.confidence,
                    f"{s.cand.child.ref} -> {s.cand.parent.ref}")


# -- selection -----------------------------------------------------------------------------

def _select(scored: dict, settings: DiscoverySettings,
            lineage_uf: UnionFind) -> tuple[list[Link], list[Rejection]]:
    """Accepted candidates -> one link per (child lineage class, chosen parent class)."""
    ok = [s for s in scored.values() if s.block is None and s.trap is None
          and s.confidence >= settings.min_confidence]
    # a partial link (orphans) is the fallback of a child whose values no other parent holds
    # fully: a same-named sibling column with orphans does not beat the key that contains them all
    full = {lineage_uf.find(s.cand.child.key) for s in ok if not _partial(s, settings)}
    ok = [s for s in ok if not _partial(s, settings) or lineage_uf.find(s.cand.child.key) not in full]
    # orientation: of a->b and b->a keep the better
    best_of_pair: dict[frozenset, Scored] = {}
    for s in ok:
        pair = frozenset((s.cand.child.key, s.cand.parent.key))
        other = best_of_pair.get(pair)
        if other is None or _better(s, other):
            best_of_pair[pair] = s
    ok = list(best_of_pair.values())

    cls = lineage_uf.find
    # group candidates by (child class, parent class)
    groups: dict[tuple, list[Scored]] = {}
    for s in ok:
        groups.setdefault((cls(s.cand.child.key), cls(s.cand.parent.key)), []).append(s)
    by_child_class: dict[object, list[tuple]] = {}
    for gkey in groups:
        by_child_class.setdefault(gkey[0], []).append(gkey)

    def group_rank(gkey: tuple) -> tuple:
        best = max(groups[gkey], key=_sort_key)
        return _sort_key(best)

    chosen: dict[object, list[tuple]] = {}
    for child_class, gkeys in by_child_class.items():
        gkeys.sort(key=group_rank, reverse=True)
        chosen[child_class] = gkeys[: settings.max_parents_per_child]
    # orientation across lineage copies: of A -> B and B -> A (seen on different copies) keep one
    for child_class in sorted(chosen, key=str):
        for gkey in list(chosen[child_class]):
            reverse = (gkey[1], gkey[0])
            if reverse in chosen.get(gkey[1], ()) and group_rank(reverse) > group_rank(gkey):
                chosen[child_class].remove(gkey)

    # prefer the root of a chain: c -> p where p -> g is itself chosen and c -> g is a candidate
    # nearly as good (two foreign keys of one parent join, but the FK -> key link is the one)
    def group_conf(gkey: tuple) -> float:
        return max(s.confidence for s in groups[gkey])

    for _ in range(4):
        changed = False
        for child_class, gkeys in chosen.items():
            new = []
            for gkey in gkeys:
                parent_class = gkey[1]
                target = gkey
                for up in chosen.get(parent_class, ()):
                    alt = (child_class, up[1])
                    if (alt in groups and alt != gkey and up[1] != child_class
                            and group_conf(alt) >= group_conf(gkey) - ROOT_MARGIN):
                        target = alt
                        break
                changed |= target != gkey
                if target not in new:
                    new.append(target)
            chosen[child_class] = new
        if not changed:
            break

    links: list[Link] = []
    for child_class in sorted(chosen, key=str):
        for gkey in chosen[child_class]:
            members = sorted(groups[gkey], key=lambda s: (str(s.cand.child.ref), str(s.cand.parent.ref)))
            if not settings.collapse_lineage:
                links.extend(_inferred_link(s, ()) for s in members)
                continue
            keep = members[canonical_pair([_pair_rank(s) for s in members])]
            collapsed = tuple((s.cand.child.ref, s.cand.parent.ref) for s in members if s is not keep)
            links.append(_inferred_link(keep, collapsed))

    rejected = _rejections(scored, settings, links, lineage_uf)
    return links, rejected


def _partial(s: Scored, settings: DiscoverySettings) -> bool:
    """Verified with fewer values contained than a link needs without the names' word for it."""
    return s.exact is not None and s.exact.child_distinct > 0 and s.exact.containment < settings.min_exact_containment


def _is_model(col: ColInfo) -> bool:
    return col.rel.relation.resource_type is ResourceType.MODEL


def _sort_key(s: Scored) -> tuple:
    child, parent = s.cand.child, s.cand.parent
    coverage = child.distinct / parent.distinct if parent.distinct and child.distinct else 0.0
    return (round(s.confidence, 6), round(coverage, 6), round(parent.pk_score, 6), -parent.rel.depth,
            _reverse_text(str(parent.ref)))


@functools.lru_cache(maxsize=1 << 16)
def _reverse_text(text: str) -> tuple:
    return tuple(-ord(ch) for ch in text)  # so that max() prefers the alphabetically first


def _better(a: Scored, b: Scored) -> bool:
    ka = (round(a.confidence, 6), a.cand.parent.pk_score, -a.cand.child.pk_score)
    kb = (round(b.confidence, 6), b.cand.parent.pk_score, -b.cand.child.pk_score)
    if ka != kb:
        return ka > kb
    return str(a.cand.parent.ref) < str(b.cand.parent.ref)


def _cardinality(child: ColInfo) -> Cardinality:
    if child.unique is not None:
        return Cardinality.ONE_TO_ONE if child.unique else Cardinality.MANY_TO_ONE
    return Cardinality.ONE_TO_ONE if child.pk_score >= 0.8 else Cardinality.MANY_TO_ONE


def _inferred_link(s: Scored, collapsed: tuple) -> Link:
    return Link(
        child=s.cand.child.ref, parent=s.cand.parent.ref,
        provenance=Provenance.SQL if s.cand.joins else Provenance.INFERRED,
        confidence=round4(s.confidence), cardinality=_cardinality(s.cand.child),
        evidence=_ordered(s.evidence), collapsed=tuple(sorted(collapsed)), orphans=_orphans(s.exact),
    )


def _orphans(exact: ContainmentResult | None) -> Orphans | None:
    """The orphans the exact check found (None: none, or not checked)."""
    if exact is None or not exact.child_distinct or exact.matched >= exact.child_distinct:
        return None
    return Orphans(exact.child_distinct - exact.matched, exact.child_distinct, exact.orphan_rows)


def _ordered(evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """Evidence in Signal order, numbers at links.json precision."""
    order = {sig: i for i, sig in enumerate(Signal)}
    return tuple(
        Evidence(e.signal, round4(e.strength), e.detail, round4(e.contribution))
        for e in sorted(evidence, key=lambda e: (order[e.signal], e.detail))
    )


def _rejections(scored: dict, settings: DiscoverySettings, links: list[Link],
                lineage_uf: UnionFind) -> list[Rejection]:
    """Trap rejections worth reporting: the best one per child lineage class that got no link
    (a trap that lost to a real link changed nothing), leaving out keys that are parents of links."""
    cls = lineage_uf.find
    linked_children = {cls(link.child.key()) for link in links}
    linked_children |= {cls(c.key()) for link in links for c, _ in link.collapsed}
    parents = {cls(link.parent.key()) for link in links}
    best: dict[object, Scored] = {}
    for s in scored.values():
        if s.trap is None or s.block is not None or s.confidence < settings.min_confidence:
            continue
        child_class = cls(s.cand.child.key)
        if child_class in linked_children or (s.trap[0] is Trap.KEY_TO_KEY and child_class in parents):
            continue
        if child_class not in best or _sort_key(s) > _sort_key(best[child_class]):
            best[child_class] = s
    items = sorted(best.values(), key=lambda s: (-s.confidence, str(s.cand.child.ref)))
    out = [
        Rejection(s.cand.child.ref, s.cand.parent.ref, s.trap[0], s.trap[1], round4(s.confidence))
        for s in items[: settings.max_rejected_reported]
    ]
    room = max(0, settings.max_rejected_reported - len(out))
    return out + _contradicted(scored, settings, linked_children | set(best), cls)[:room]


def _contradicted(scored: dict, settings: DiscoverySettings, taken: set, cls) -> list[Rejection]:
    """Pairs the names join and the data refutes (a dev environment, sample data, a half-loaded
    source): reported as their own kind so a reader still sees what the schema says, never a
    link or a written test. One per child class, the pair names alone would score highest;
    ``would_be_confidence`` is that score without the values."""
    best: dict[object, tuple[float, Scored]] = {}
    for s in scored.values():
        exact = s.exact
        if s.block is not None or s.trap is not None or exact is None or not exact.child_distinct:
            continue
        if exact.containment >= min(settings.partial_min_containment, settings.min_exact_containment):
            continue
        if not has_name_signal(s.raw):
            continue
        names_only = confidence([e for e in s.raw if e.signal not in VALUE_SIGNALS], s.measured)
        child_class = cls(s.cand.child.key)
        if names_only < settings.min_confidence or child_class in taken:
            continue
        if child_class not in best or names_only > best[child_class][0]:
            best[child_class] = (names_only, s)
    out = []
    for names_only, s in sorted(best.values(), key=lambda x: (-x[0], str(x[1].cand.child.ref))):
        e = s.exact
        out.append(Rejection(s.cand.child.ref, s.cand.parent.ref, Trap.CONTRADICTED,
                             f"named, contradicted by data: {e.matched} of {e.child_distinct} child values found "
                             "in the parent", round4(names_only)))
    return out


# -- declared and lineage links ----------------------------------------------------------------

def _declared_links(declared: Sequence[DeclaredLink], features: Features) -> list[Link]:
    merged: dict[tuple, list] = {}
    for d in declared:
        merged.setdefault((d.child.key(), d.parent.key()), []).append(d)
    out: list[Link] = []
    for key in sorted(merged):
        items = merged[key]
        first = items[0]
        origins = tuple(sorted({d.origin for d in items}, key=lambda o: o.value))
        evidence = tuple(
            Evidence(_ORIGIN_SIGNAL[o], 1.0, _origin_detail(o, [d.source_id for d in items if d.origin is o]))
            for o in origins
        )
        child = features.col(first.child)
        out.append(Link(
            child=first.child, parent=first.parent, provenance=Provenance.DECLARED, confidence=1.0,
            cardinality=_cardinality(child) if child else Cardinality.MANY_TO_ONE,
            evidence=_ordered(evidence), origins=origins,
        ))
    return out


def _mark_written(inferred: list[Link], written: Sequence[DeclaredLink], scored: dict,
                  features: Features) -> tuple[list[Link], int]:
    """Inferred links that are tests `write` generated become WRITTEN (confidence: what the data
    says now; ``written_confidence``: what the test recorded). A written test the data no longer
    supports is kept as a WRITTEN link at the confidence its pair scores now (0 when it is not a
    candidate any more), so every stage shows it and none uses it as a join. Returns the links
    and how many written tests are unsupported."""
    by_pair: dict[tuple, DeclaredLink] = {}
    for d in sorted(written, key=lambda d: (str(d.child), str(d.parent), d.source_id or "")):
        by_pair.setdefault((d.child.key(), d.parent.key()), d)
    found: set[tuple] = set()
    out: list[Link] = []
    for link in inferred:
        hits = [key for c, p in link.pairs() if (key := (c.key(), p.key())) in by_pair]
        if hits:
            found.update(hits)
            d = by_pair[hits[0]]
            link = replace(link, provenance=Provenance.WRITTEN, written_confidence=d.written_confidence,
                           evidence=_ordered(link.evidence + (_written_evidence(d),)))
        out.append(link)
    unsupported = 0
    for key in sorted(by_pair):
        if key in found:
            continue
        d = by_pair[key]
        s = scored.get(key)
        now = s.confidence if s is not None and s.block is None and s.trap is None else 0.0
        evidence = (s.evidence if s is not None else ()) + (_written_evidence(d), Evidence(
            Signal.WRITTEN_TEST, -1.0, "not inferred from the data now" + (f" ({s.trap[1]})" if s and s.trap else "")))
        child = features.col(d.child)
        out.append(Link(
            child=d.child, parent=d.parent, provenance=Provenance.WRITTEN, confidence=round4(now),
            cardinality=_cardinality(child) if child else Cardinality.MANY_TO_ONE,
            evidence=_ordered(evidence), written_confidence=d.written_confidence,
        ))
        unsupported += 1
    return out, unsupported


def _written_evidence(d: DeclaredLink) -> Evidence:
    at = confidence_text(d.written_confidence) if d.written_confidence is not None else "an unrecorded confidence"
    return Evidence(Signal.WRITTEN_TEST, 0.0, f"written by dbt-schema-link at {at}" + (f" ({d.source_id})" if d.source_id else ""))


def _lineage_members(facts: SqlFacts, lineage_uf: UnionFind) -> dict[object, list[ColumnRef]]:
    """The columns of each lineage class (a column and its pass-through copies), by class."""
    refs: dict[tuple, ColumnRef] = {}
    for copy in facts.copies:
        refs.setdefault(copy.column.key(), copy.column)
        refs.setdefault(copy.source.key(), copy.source)
    out: dict[object, list[ColumnRef]] = {}
    for key in sorted(refs):
        out.setdefault(lineage_uf.find(key), []).append(refs[key])
    return out


def _carry_along_lineage(link: Link, members: dict[object, list[ColumnRef]], lineage_uf: UnionFind,
                         features: Features, cap: int) -> Link:
    """A join holds between the lineage copies of its two columns at every layer: staging copies
    of a join declared on marts, marts copies of a staging join. Adds those pairs to ``collapsed``
    (at most ``cap`` per link). A parent copy must still be a key where it was measured (unique
    values): a key copied into a fact table by a join is not a parent there."""
    cls = lineage_uf.find
    child_class, parent_class = cls(link.child.key()), cls(link.parent.key())
    if child_class == parent_class:
        return link
    children = members.get(child_class) or [link.child]
    parents = members.get(parent_class) or [link.parent]
    have = {(c.key(), p.key()) for c, p in link.pairs()}
    extra: list[tuple[ColumnRef, ColumnRef]] = []
    for p in sorted(parents):
        col = features.col(p)
        if col is None or col.unique is False:
            continue
        for c in sorted(children):
            if c.relation != p.relation and (c.key(), p.key()) not in have:
                extra.append((c, p))
    room = max(0, cap - len(link.collapsed))
    if not extra or not room:
        return link
    return replace(link, collapsed=tuple(sorted(link.collapsed + tuple(extra[:room]))))


def _origin_detail(origin: LinkOrigin, sources: list) -> str:
    ids = sorted(s for s in sources if s)
    what = {
        LinkOrigin.RELATIONSHIPS_TEST: "relationships test",
        LinkOrigin.RELATIONSHIPS_WHERE_TEST: "relationships_where test",
        LinkOrigin.FK_CONSTRAINT: "foreign_key constraint",
        LinkOrigin.SEMANTIC_ENTITY: "semantic model entity",
    }[origin]
    return f"declared by {what}" + (f" {', '.join(ids[:3])}" if ids else "")


def _lineage_links(facts: SqlFacts, features: Features) -> list[Link]:
    merged: dict[tuple, list] = {}
    for copy in facts.copies:
        merged.setdefault((copy.column.key(), copy.source.key()), []).append(copy)
    out: list[Link] = []
    for key in sorted(merged):
        items = merged[key]
        first = items[0]
        child = features.col(first.column)
        renamed = f" as {first.column.column!r}" if first.renamed else ""
        detail = (f"{first.model} selects {first.source.relation}.{first.source.column}{renamed} unchanged "
                  f"(SQL from {first.path.value})")
        out.append(Link(
            child=first.column, parent=first.source, provenance=Provenance.LINEAGE, confidence=1.0,
            cardinality=_cardinality(child) if child else Cardinality.MANY_TO_ONE,
            evidence=(Evidence(Signal.LINEAGE, 1.0, detail),),
        ))
    return out


# -- value domains -----------------------------------------------------------------------------

def _assign_domains(links: list[Link], features: Features, lineage_uf: UnionFind) -> tuple[list[Link], list[Domain]]:
    uf = UnionFind()
    refs: dict[tuple, ColumnRef] = {}
    for link in links:
        refs.setdefault(link.child.key(), link.child)
        refs.setdefault(link.parent.key(), link.parent)
        uf.union(link.child.key(), link.parent.key())
        for c, p in link.collapsed:
            refs.setdefault(c.key(), c)
            refs.setdefault(p.key(), p)
            uf.union(c.key(), link.child.key())
            uf.union(p.key(), link.parent.key())
    parents_of_joins: dict[tuple, int] = {}
    children_of_joins: set[tuple] = set()
    for link in links:
        if link.kind is LinkKind.LINEAGE:
            continue
        parents_of_joins[link.parent.key()] = parents_of_joins.get(link.parent.key(), 0) + 1
        children_of_joins.add(link.child.key())
    join_members = set(parents_of_joins) | children_of_joins
    domain_of: dict[tuple, str] = {}
    domains: list[Domain] = []
    for members in uf.groups():
        if len(members) < 2 or not join_members.intersection(members):
            continue  # lineage-only groups (copies of non-key columns) are not key domains
        ranks = []
        for m in members:
            col = features.col(refs[m])
            ranks.append(AnchorRank(
                member=m, declared_pk=bool(col and col.declared_pk), is_parent=m in parents_of_joins,
                is_child=m in children_of_joins, pk_score=col.pk_score if col else 0.0,
                in_degree=parents_of_joins.get(m, 0), depth=col.rel.depth if col else 0,
                name=str(refs[m]),
            ))
        anchor = refs[choose_anchor(ranks)]
        domain_id = str(anchor)
        domains.append(Domain(
            id=domain_id, anchor=anchor,
            members=tuple(sorted((refs[m] for m in members), key=lambda r: (r.relation, r.column.lower()))),
        ))
        for m in members:
            domain_of[m] = domain_id
    out = [
        replace(link, domain=domain_of.get(link.child.key()))
        for link in links
    ]
    return out, domains
