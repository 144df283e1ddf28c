"""Composite keys: a child column tuple referencing a parent's unique tuple, such as
``room(floor, code) -> bin(floor, code)`` where neither ``floor`` nor ``code`` alone is a key.

From the profiles alone (no extra scan): a parent tuple of 2 to ``composite_max_columns`` columns
is proposed when none of its columns is unique, none holds NULLs, one of them is named like a key,
and the product of their distinct counts reaches the parent's row count (a tuple cannot be
unique otherwise); a child relation is a candidate when it has a column of the same name (or the
parent's entity name before it: ``bin_floor``) for one column of the tuple and, for each other,
a column of that name or one whose name names the parent relation (``Country`` for
``countries(site_code, CountryId)``). One warehouse
statement per candidate (``schema_link_tuple_containment``) then measures both what profiles
cannot: whether the parent tuple is unique and how many child tuples it contains. A tuple is
kept when it is minimal (no smaller confirmed tuple of the same parent inside it), unique,
contains the child's tuples, and scores above the keep bar with the same fitted weights as a
single-column link.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from dbt_schema_link.artifacts.records import ColumnRef, DeclaredLink, LinkOrigin
from dbt_schema_link.discovery.evidence import names_or_sql, relation_match
from dbt_schema_link.discovery.features import ColInfo, Features, RelInfo
from dbt_schema_link.discovery.names import concat, singular, tokens
from dbt_schema_link.discovery.policy import CARDINALITY
from dbt_schema_link.discovery.records import Cardinality, Evidence, Link, Orphans, Provenance, Signal, round4
from dbt_schema_link.discovery.scoring import score
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.types import TypeFamily
from dbt_schema_link.profiling.records import TupleContainmentResult

#: A composite candidate as the warehouse check takes it: the child's columns, the parent's.
TuplePair = tuple[tuple[ColumnRef, ...], tuple[ColumnRef, ...]]
#: Tuple containment and parent-tuple uniqueness measured in the warehouse; I/O stays outside.
TupleVerifier = Callable[[Sequence[TuplePair]], Mapping[TuplePair, TupleContainmentResult]]

#: Families a key part may have: a float or a free-form timestamp is not part of a natural key.
_KEY_FAMILIES = frozenset({TypeFamily.INTEGER, TypeFamily.TEXT, TypeFamily.TEMPORAL, TypeFamily.UUID,
                           TypeFamily.DECIMAL, TypeFamily.UNKNOWN, TypeFamily.OTHER})


@dataclass(frozen=True)
class TupleCandidate:
    child: tuple[ColInfo, ...]
    parent: tuple[ColInfo, ...]
    exact_names: bool  # every child column is named as its parent column (else prefixed, or naming the parent)

    def refs(self) -> TuplePair:
        return tuple(c.ref for c in self.child), tuple(p.ref for p in self.parent)

    @property
    def parent_rel(self) -> RelInfo:
        return self.parent[0].rel


def _key_part(col: ColInfo, rel: RelInfo, settings: DiscoverySettings) -> bool:
    """A parent column that can be one part of a composite key (not a key by itself)."""
    if not col.has_values or col.flag or col.free_text or col.unique or col.parts.measure:
        return False
    if col.family not in _KEY_FAMILIES or col.distinct < 2 or col.distinct >= rel.row_count:
        return False
    if col.profile is not None and col.profile.distinct_approx \
            and col.distinct >= (1.0 - CARDINALITY.approx_unique_band) * rel.row_count:
        return False  # maybe unique alone: an estimate cannot say
    return rel.profile is not None and rel.profile.null_fraction(col.ref.column) <= settings.parent_max_null_fraction


def _may_be_unique(parts: Sequence[ColInfo], rows: int) -> bool:
    """The product of the parts' distinct counts reaches the row count (necessary for uniqueness)."""
    return math.prod(p.distinct for p in parts) >= rows and any(p.parts.keyness > 0 for p in parts)


def candidates(features: Features, settings: DiscoverySettings, skip: Callable[[ColInfo, ColInfo], bool],
               references: frozenset[tuple[str, str]] = frozenset()) -> list[TupleCandidate]:
    """Tuple candidates from names and profiles, fewest columns and largest parents first, at
    most ``composite_max_candidates``. ``skip`` drops pairs of copies of one column (lineage);
    ``references``: the children of the single-column links found."""
    width = settings.composite_max_columns
    if width < 2 or settings.composite_max_candidates <= 0:
        return []
    by_name: dict[str, list[ColInfo]] = {}  # normalized name -> columns with values, every relation
    for col in features.columns:
        if col.has_values:
            by_name.setdefault(col.parts.norm, []).append(col)
    found: list[TupleCandidate] = []
    for rel in features.relations.values():
        if not rel.has_data or rel.row_count < 2:
            continue
        parts = [c for c in rel.columns if _key_part(c, rel, settings)]
        if len(parts) < 2:
            continue
        words = tokens(rel.relation.short_name)
        entity = concat(words[:-1] + (singular(words[-1]),)) if words else ""
        # child relation -> {parent column index: (child column, exact name)}; a bare key name
        # (`id`, `code`) names no entity: such a part is matched by name only when no child column
        # names the parent (`race_id` for `race.id`)
        matches: dict[str, dict[int, tuple[ColInfo, bool]]] = {}
        bare: dict[str, dict[int, tuple[ColInfo, bool]]] = {}
        for i, pc in enumerate(parts):
            for exact, name in ((True, pc.parts.norm), (False, entity + pc.parts.norm)):
                for cc in by_name.get(name, ()):
                    if cc.rel is rel or skip(cc, pc):
                        continue
                    slot = (bare if exact and pc.parts.generic else matches).setdefault(cc.rel.uid, {})
                    if i not in slot or (exact and not slot[i][1]):
                        slot[i] = (cc, exact)
        for uid, slot in sorted(matches.items()):
            _by_relation_name(slot, parts, features.relations[uid], settings)
            for i, hit in bare.get(uid, {}).items():
                if i not in slot and hit[0].key not in {c.key for c, _ in slot.values()}:
                    slot[i] = hit
            if len(slot) < 2:
                continue
            shared = sorted(slot)
            for n in range(2, min(width, len(shared)) + 1):
                for combo in itertools.combinations(shared, n):
                    ps = tuple(parts[i] for i in combo)
                    cs = tuple(slot[i][0] for i in combo)
                    if len({c.key for c in cs}) < n or not _may_be_unique(ps, rel.row_count):
                        continue
                    found.append(TupleCandidate(cs, ps, all(slot[i][1] for i in combo)))
    # a key part that numbers its relation's own rows (`order_number`, `ticket_number`: no link
    # found leaves it) beside references first: sibling fact tables share every column name, and
    # the tuples of their references would otherwise fill the budget
    found.sort(key=lambda t: (len(t.parent), not _numbers_own_rows(t.parent, references), not t.exact_names,
                              -t.parent_rel.row_count, t.parent_rel.uid, tuple(p.position for p in t.parent),
                              t.child[0].rel.uid))
    return found[:settings.composite_max_candidates]


def _numbers_own_rows(parts: Sequence[ColInfo], references: frozenset[tuple[str, str]]) -> bool:
    """A part named like a key that references nothing (``ws_order_number``; not
    ``ws_sold_date_sk``, which links to date_dim)."""
    return any(p.parts.keyness > 0 and not p.parts.generic and p.key not in references for p in parts)


def _by_relation_name(slot: dict[int, tuple[ColInfo, bool]], parts: list[ColInfo], child: RelInfo,
                      settings: DiscoverySettings) -> None:
    """Parts no child column is named like, matched to the child column whose name names the
    parent (``Country`` for ``countries.CountryId``), once another part matched by name."""
    used = {c.key for c, _ in slot.values()}
    for i, pc in enumerate(parts):
        if i in slot:
            continue
        best, strength = None, settings.composite_min_name_match
        for cc in child.columns:
            if cc.has_values and cc.key not in used and not cc.flag and not cc.free_text:
                pattern, fuzzy, _ = relation_match(cc, pc)
                if max(pattern, fuzzy) >= strength:
                    best, strength = cc, max(pattern, fuzzy)
        if best is not None:
            slot[i] = (best, False)
            used.add(best.key)


def _key_to_key(cand: TupleCandidate, res: TupleContainmentResult) -> bool:
    """Two relations' own keys numbered alike: the child tuple is unique in the child too and a
    part is matched only by a bare key name (``id`` to ``id``), which says nothing of a join."""
    child = cand.child[0].rel
    unique_in_child = child.sample_fraction >= 1.0 and res.child_distinct >= child.row_count
    bare = any(c.parts.generic and c.parts.norm == p.parts.norm for c, p in zip(cand.child, cand.parent))
    return unique_in_child and bare


def _evidence(cand: TupleCandidate, res: TupleContainmentResult, settings: DiscoverySettings) -> tuple[Evidence, ...]:
    names = ", ".join(f"{c.ref.column}={p.ref.column}" for c, p in zip(cand.child, cand.parent))
    name = (Evidence(Signal.NAME_EXACT, 1.0, f"every column of the key is named alike ({names})") if cand.exact_names
            else Evidence(Signal.NAME_PATTERN, 1.0, f"the key's columns are named after the parent or its columns ({names})"))
    c = res.containment
    width = max(1.0 - settings.composite_min_containment, 1e-6)
    orphans = res.child_distinct - res.matched
    where = f"; {orphans} orphan tuples in {res.orphan_rows} child rows" if orphans else ""
    exact = Evidence(Signal.EXACT_CONTAINMENT, max(-1.0, min(1.0, (c - settings.composite_min_containment) / width)),
                     f"verified in the warehouse: {res.matched} of {res.child_distinct} child tuples found in the "
                     f"parent ({c:.1%}){where}")
    key = ", ".join(p.ref.column for p in cand.parent)
    unique = Evidence(Signal.CARDINALITY, 1.0,
                      f"({key}) is a unique key of the parent: {res.parent_rows} rows, {res.parent_distinct} distinct "
                      f"tuples, no column of it unique alone")
    return name, exact, unique


def composite_links(features: Features, settings: DiscoverySettings, verify: TupleVerifier,
                    skip: Callable[[ColInfo, ColInfo], bool],
                    references: frozenset[tuple[str, str]] = frozenset()) -> tuple[list[Link], int]:
    """Verified composite links (and how many candidates were checked); ``references``: the
    children of the single-column links found (see ``candidates``)."""
    cands = candidates(features, settings, skip, references)
    if not cands:
        return [], 0
    measured = verify([c.refs() for c in cands]) or {}
    unique_sets: set[tuple[str, frozenset]] = set()
    kept: list[tuple[TupleCandidate, TupleContainmentResult]] = []
    for cand in cands:  # fewest columns first: a smaller unique tuple makes a larger one not minimal
        res = measured.get(cand.refs())
        if res is None or not res.parent_unique:
            continue
        parent_cols = frozenset(p.key for p in cand.parent)
        if any((cand.parent_rel.uid, frozenset(sub)) in unique_sets
               for n in range(2, len(cand.parent)) for sub in itertools.combinations(parent_cols, n)):
            continue
        unique_sets.add((cand.parent_rel.uid, parent_cols))
        if res.child_distinct and res.containment >= settings.composite_min_containment \
                and not _key_to_key(cand, res):
            kept.append((cand, res))
    best: dict[tuple, Link] = {}  # one parent per child tuple
    for cand, res in _own_names_first(kept):
        conf, evidence = score(_evidence(cand, res, settings), measured=True)
        if conf < settings.min_confidence:
            continue
        (c0, *cs), (p0, *ps) = cand.refs()
        orphans = res.child_distinct - res.matched
        link = Link(child=c0, parent=p0, provenance=Provenance.INFERRED, confidence=round4(conf),
                    cardinality=Cardinality.MANY_TO_ONE,
                    evidence=tuple(sorted(evidence, key=lambda e: -e.contribution)),
                    orphans=Orphans(orphans, res.child_distinct, res.orphan_rows) if orphans else None,
                    extra_pairs=tuple(zip(cs, ps)))
        key = frozenset(c.key for c in cand.child)
        if key not in best or link.confidence > best[key].confidence:
            best[key] = link
    return sorted(best.values(), key=Link.sort_key), len(cands)


def _own_names_first(kept: list[tuple[TupleCandidate, TupleContainmentResult]]
                     ) -> list[tuple[TupleCandidate, TupleContainmentResult]]:
    """``kept`` without the tuples that match a child column to a parent column of another name
    when another kept tuple matches that column by its own name: the column is one key's part
    (``student_course_id`` in ``(region_code, student_course_id) -> enrolment_courses``, not in
    ``(site_code, student_course_id) -> courses``: a partitioned numbering fits both)."""
    by_own_name = {c.key for cand, _ in kept for c, p in zip(cand.child, cand.parent) if c.parts.norm == p.parts.norm}
    return [(cand, res) for cand, res in kept
            if not any(c.key in by_own_name and c.parts.norm != p.parts.norm for c, p in zip(cand.child, cand.parent))]


def without_parts(single: list[Link], composite: list[Link]) -> list[Link]:
    """The single-column links with those a composite link explains taken out: a link from one
    column of the tuple to a column of the same parent is a part of the key, not a join; and a
    link by values alone from a column of a composite link (either side) is its numbering, not a
    second reference: a partitioned key's parts are small runs (1..k in each partition) that any
    dense key holds. Links that names or SQL vouch for stay (``sr_item_sk`` is part of a key of
    returns and references items)."""
    parts = {(c.key(), p.relation) for link in composite for c, p in link.column_pairs()}
    columns = {ref.key() for link in composite for pair in link.column_pairs() for ref in pair}
    return [link for link in single if (link.child.key(), link.parent.relation) not in parts
            and not (link.child.key() in columns and not names_or_sql(link.evidence))]


def _key(pairs) -> tuple:
    return tuple((c.key(), p.key()) for c, p in pairs)


def reconcile(found: list[Link], declared: Sequence[DeclaredLink]) -> list[Link]:
    """The composite links with the project's composite tests: a person's test is a declared
    link (and the inferred one it covers goes); one `write` generated marks the inferred link
    WRITTEN, or, when the data no longer yields it, stays as a WRITTEN link at confidence 0 (as
    one-column written links do)."""
    people = {}
    written = {}
    for d in sorted(declared, key=lambda d: (str(d.child), d.source_id or "")):
        pairs = ((d.child, d.parent),) + d.extra_pairs
        (written if d.written else people).setdefault(_key(pairs), (d, pairs))
    out: list[Link] = []
    for key, (d, pairs) in sorted(people.items()):
        detail = f"composite relationships test {d.source_id}" if d.source_id else "composite relationships test"
        out.append(Link(child=d.child, parent=d.parent, provenance=Provenance.DECLARED, confidence=1.0,
                        cardinality=Cardinality.MANY_TO_ONE, evidence=(Evidence(Signal.DECLARED_TEST, 1.0, detail),),
                        origins=(LinkOrigin.RELATIONSHIPS_TEST,), extra_pairs=d.extra_pairs))
    seen = set()
    for link in found:
        key = _key(link.column_pairs())
        if key in people:
            continue
        hit = written.get(key)
        if hit is not None:
            seen.add(key)
            mark = Evidence(Signal.WRITTEN_TEST, 0.0, f"written by dbt-schema-link ({hit[0].source_id})")
            link = replace(link, provenance=Provenance.WRITTEN, written_confidence=hit[0].written_confidence,
                           evidence=link.evidence + (mark,))
        out.append(link)
    for key, (d, pairs) in sorted(written.items()):
        if key not in seen:
            out.append(Link(child=d.child, parent=d.parent, provenance=Provenance.WRITTEN, confidence=0.0,
                            cardinality=Cardinality.MANY_TO_ONE, written_confidence=d.written_confidence,
                            evidence=(Evidence(Signal.WRITTEN_TEST, -1.0, "not inferred from the data now"),),
                            extra_pairs=d.extra_pairs))
    return out
