"""Composite keys: a child column tuple referencing a parent's unique tuple, such as
``room(floor, code) -> bin(floor, code)`` where neither ``floor`` nor ``code`` alone is a key.

From the profiles alone (no extra scan): a parent tuple of 2 to ``composite_max_columns`` columns
is proposed when none of its columns is unique, none holds NULLs, one of them is named like a key,
and the product of their distinct counts reaches the parent's row count (a tuple cannot be
unique otherwise); a child relation is a candidate when it has a column of the same name (or the
parent's entity name before it: ``bin_floor``) for one column of the tuple and, for each other,
a column of that name or one whose name names the parent relation (``Country`` for
``countries(site_code, CountryId)``); never a relation of the parent's own shape (the same column
names: a shard, a copy, whose tuples are the parent's key numbered alike;
``COMPOSITE_SEARCH.same_shape_children``). At most
``composite_max_candidates`` are kept, in a fixed order, and the search produces them in that
order: it stops once no further parent can enter, pairs a parent only with relations that share
its parts' names (never with every relation), finds the columns that name a parent through an
index of name words (:mod:`.name_reach`) and searches tuples part by part, pruned by the
distinct counts; ``policy.COMPOSITE_SEARCH`` bounds each step where hundreds of relations share
column names, so the work grows with relations and columns, not their square. One warehouse
statement per candidate (``schema_link_tuple_containment``) then measures both what profiles
cannot: whether the parent tuple is unique and how many child tuples it contains. A tuple is
kept when it is minimal (no smaller confirmed tuple of the same parent inside it), unique,
contains the child's tuples, and scores above the keep bar with the same fitted weights as a
single-column link.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from dbt_schema_link.artifacts.records import ColumnRef, DeclaredLink, LinkOrigin
from dbt_schema_link.discovery.evidence import RelationMatches, names_or_sql, relation_match
from dbt_schema_link.discovery.features import ColInfo, Features, RelInfo
from dbt_schema_link.discovery.name_reach import NameReach, top_weight
from dbt_schema_link.discovery.names import NameParts, concat, singular, tokens
from dbt_schema_link.discovery.policy import CARDINALITY, COMPOSITE_SEARCH
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
    ``references``: the children of the single-column links found.

    Generated in the order they are kept (:func:`_candidate_key`): per tuple size, parents
    largest first, so the search stops once no further parent can enter the budget; each parent
    is paired with the children that share its parts' names (:class:`_Search`), never with all
    relations, and its tuples are searched part by part (:meth:`_Parent.tuples`)."""
    width = settings.composite_max_columns
    if width < 2 or settings.composite_max_candidates <= 0:
        return []
    search = _Search(features, settings, skip, references)
    best = _Best(settings.composite_max_candidates)
    for n in range(2, width + 1):
        for parent in search.parents:
            if best.beyond((n, False, False, -parent.rows, parent.rel.uid)):
                break  # parents come largest first: none after this one can enter either
            parent.emit(n, best)
    return best.result()


def _candidate_key(t: TupleCandidate, references: frozenset[tuple[str, str]]) -> tuple:
    """The order candidates are kept in: fewest columns, then a key part that numbers its
    relation's own rows (``order_number``, ``ticket_number``: no link found leaves it) beside
    references (sibling fact tables share every column name, and the tuples of their references
    would otherwise fill the budget), names alike, largest parents, earliest columns."""
    return (len(t.parent), not _numbers_own_rows(t.parent, references), not t.exact_names,
            -t.parent_rel.row_count, t.parent_rel.uid, tuple(p.position for p in t.parent), t.child[0].rel.uid)


class _Best:
    """The ``size`` first candidates by key, kept as they come (cut back to ``size`` whenever
    twice as many are held); ``worst`` is the key of the last kept once ``size`` are."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: list[tuple[tuple, TupleCandidate]] = []
        self.worst: tuple | None = None

    def beyond(self, prefix: tuple) -> bool:
        """No key that starts with ``prefix`` can be kept."""
        return self.worst is not None and prefix > self.worst[:len(prefix)]

    def add(self, key: tuple, make: Callable[[], TupleCandidate]) -> bool:
        if self.worst is not None and key > self.worst:
            return False
        self.items.append((key, make()))
        if len(self.items) >= 2 * self.size:
            self._cut()
        return True

    def _cut(self) -> None:
        self.items.sort(key=lambda item: item[0])
        del self.items[self.size:]
        if len(self.items) == self.size:
            self.worst = self.items[-1][0]

    def result(self) -> list[TupleCandidate]:
        self._cut()
        return [cand for _, cand in self.items]


#: One part's match in a child relation: (child column, named exactly as the part).
_Hit = tuple[ColInfo, bool]


class _Search:
    """What the candidate search reads, built in one pass over the columns: the relations that
    hold each column name, each relation's columns by name and its shape (its column names),
    and which names may name a relation (:class:`.name_reach.NameReach`)."""

    def __init__(self, features: Features, settings: DiscoverySettings, skip: Callable[[ColInfo, ColInfo], bool],
                 references: frozenset[tuple[str, str]]) -> None:
        self.settings, self.skip, self.references = settings, skip, references
        self.features = features
        self.by_norm: dict[str, dict[str, list[ColInfo]]] = {}  # relation uid -> name -> its columns with values
        holders: dict[str, list[str]] = {}  # name -> relations with a column of that name with values
        for col in features.columns:
            if col.has_values:
                names = self.by_norm.setdefault(col.rel.uid, {})
                if col.parts.norm not in names:
                    holders.setdefault(col.parts.norm, []).append(col.rel.uid)
                names.setdefault(col.parts.norm, []).append(col)
        self._holders = holders
        self._capped: set[str] = set()
        self.shape: dict[str, int] = {}  # relation uid -> its shape's number: relations of one shape share it
        #: relation uid -> the number of what the search reads of its columns (names, in order, and
        #: which have values, are flags or free text): relations that share it pair alike
        self.signature: dict[str, int] = {}
        shapes: dict[frozenset[str], int] = {}
        signatures: dict[tuple, int] = {}
        for uid, rel in features.relations.items():
            self.shape[uid] = shapes.setdefault(frozenset(c.ref.column.lower() for c in rel.columns), len(shapes))
            self.signature[uid] = signatures.setdefault(
                tuple((c.parts, c.has_values, c.flag, c.free_text) for c in rel.columns), len(signatures))
        strength = settings.composite_min_name_match
        # a name of weight w in its column names nothing above w * top_weight(), so a word too
        # light for composite_min_name_match is not filed; at 0 any column matches (no index)
        self.reach = NameReach((c.parts for c in features.columns if _names_relation_part(c)),
                               strength / top_weight()) if strength > 0 else None
        self.matches = RelationMatches()
        self.parents: list[_Parent] = []
        for rel in features.relations.values():
            if not rel.has_data or rel.row_count < 2:
                continue
            parts = [c for c in rel.columns if _key_part(c, rel, settings)]
            if len(parts) >= 2:
                self.parents.append(_Parent(self, rel, parts))
        self.parents.sort(key=lambda p: (-p.rows, p.rel.uid))

    def holders(self, name: str) -> list[str]:
        """The relations (unique ids) with a column named ``name`` with values, at most
        ``COMPOSITE_SEARCH.name_holders``: one of each shape before a second of any, by unique id."""
        found = self._holders.get(name, [])
        if len(found) > COMPOSITE_SEARCH.name_holders and name not in self._capped:
            seen: dict[int, int] = {}
            ranked = []
            for uid in sorted(found):
                shape = self.shape[uid]
                seen[shape] = seen.get(shape, -1) + 1
                ranked.append((seen[shape], uid))
            found = self._holders[name] = [uid for _, uid in sorted(ranked)][:COMPOSITE_SEARCH.name_holders]
            self._capped.add(name)
        return found


def _names_relation_part(col: ColInfo) -> bool:
    """A child column that may stand for a parent part by naming the parent (``_by_relation_name``)."""
    return col.has_values and not col.flag and not col.free_text


class _Parent:
    """One parent relation: its key parts, its children (paired once, on first use) and its tuples."""

    def __init__(self, search: _Search, rel: RelInfo, parts: list[ColInfo]) -> None:
        self.search, self.rel, self.parts = search, rel, parts
        self.rows = rel.row_count
        words = tokens(rel.relation.short_name)
        self.entity = concat(words[:-1] + (singular(words[-1]),)) if words else ""
        self.own = [p.parts.keyness > 0 and not p.parts.generic and p.key not in search.references for p in parts]
        self._children: list[tuple[RelInfo, dict[int, _Hit]]] | None = None
        self._own_names: frozenset[NameParts] | None = None  # the names that may name the relation itself
        self._named_by: dict[NameParts, tuple[int, ...]] = {}  # a child column name -> the parts it may name
        self._layouts: dict[int, tuple] = {}  # a child signature -> its `_layout`
        self._by_name: dict[str, list[tuple[int, bool]]] = {}  # a child column name -> (part, named exactly)
        for i, pc in enumerate(parts):
            for exact, name in ((True, pc.parts.norm), (False, self.entity + pc.parts.norm)):
                self._by_name.setdefault(name, []).append((i, exact))

    def children(self) -> list[tuple[RelInfo, dict[int, _Hit]]]:
        """(child relation, {part index: hit}) by child unique id: the relations with a column
        named as a part (or as the parent's entity before it: ``bin_floor``), not of the parent's
        own shape (a shard, a copy: ``COMPOSITE_SEARCH.same_shape_children``), at most
        ``COMPOSITE_SEARCH.children_per_parent`` (those sharing the most part names first); parts
        no column is named like filled by a column that names the parent (``_by_relation_name``)."""
        if self._children is not None:
            return self._children
        search, rel = self.search, self.rel
        shape = None if COMPOSITE_SEARCH.same_shape_children else search.shape[rel.uid]  # the shape left out
        # a bare key name (`id`) alone pairs no child (see `_slot`)
        shared = Counter()
        for name, entries in self._by_name.items():
            if any(not exact or not self.parts[i].parts.generic for i, exact in entries):
                shared.update(search.holders(name))
        chosen = sorted((uid for uid in shared if uid != rel.uid and search.shape[uid] != shape),
                        key=lambda uid: (-shared[uid], uid))[:COMPOSITE_SEARCH.children_per_parent]
        out = []
        for uid in sorted(chosen):
            child = search.features.relations[uid]
            slot = self._slot(child)
            if len(slot) >= 2:
                out.append((child, slot))
        self._children = out
        return out

    def _slot(self, child: RelInfo) -> dict[int, _Hit]:
        """Each part's column in ``child``: the first named as the part, else as the entity before
        it; a bare key name (`id`, `code`) names no entity: such a part is matched by name only when
        no child column names the parent (`race_id` for `race.id`)."""
        found, naming = self._layout(child)
        columns, skip = child.columns, self.search.skip
        slot: dict[int, _Hit] = {}
        bare: dict[int, _Hit] = {}
        for i, inexact, positions in found:
            pc, exact = self.parts[i], not inexact
            target = bare if exact and pc.parts.generic else slot
            for position in positions:
                cc = columns[position]
                if skip(cc, pc):
                    continue
                if i not in target or (exact and not target[i][1]):
                    target[i] = (cc, exact)
        if not slot:
            return slot
        namers = None if naming is None else {
            i: [columns[position] for position in positions] for i, positions in naming.items() if i not in slot}
        if namers is None or namers:
            _by_relation_name(slot, self.parts, child, self.search.settings, namers, self.search.matches)
        for i, hit in bare.items():
            if i not in slot and hit[0].key not in {c.key for c, _ in slot.values()}:
                slot[i] = hit
        return slot

    def _layout(self, child: RelInfo) -> tuple[list[tuple[int, bool, list[int]]], dict[int, list[int]] | None]:
        """What ``_slot`` reads of ``child``, by column position, the same for every child of its
        column names (:attr:`_Search.signature`: the shards of a family are paired with it once):
        (part, not named exactly, the columns of that name with values), per part its own name
        first; and per part the columns whose names may name this parent (None: any may)."""
        signature = self.search.signature[child.uid]
        layout = self._layouts.get(signature)
        if layout is not None:
            return layout
        names = self.search.by_norm[child.uid]
        found: list[tuple[int, bool, list[int]]] = []
        if len(names) < len(self._by_name):
            for name, cols in names.items():
                found += [(i, not exact, [c.position for c in cols]) for i, exact in self._by_name.get(name, ())]
        else:
            for name, entries in self._by_name.items():
                cols = names.get(name)
                if cols:
                    found += [(i, not exact, [c.position for c in cols]) for i, exact in entries]
        found.sort(key=lambda f: (f[0], f[1]))
        naming: dict[int, list[int]] | None = None
        if self.search.reach is not None:
            naming = {}
            for cc in child.columns:
                if _names_relation_part(cc):
                    for i in self._parts_named_by(cc.parts):
                        naming.setdefault(i, []).append(cc.position)
        layout = self._layouts[signature] = (found, naming)
        return layout

    def _parts_named_by(self, name: NameParts) -> tuple[int, ...]:
        """The parts a child column of this name may stand for by naming this parent: by a name
        of the relation (any part) or a part's key head."""
        found = self._named_by.get(name)
        if found is None:
            reach = self.search.reach
            if self._own_names is None:
                names = self.rel.names
                self._own_names = frozenset().union(
                    *(reach.naming(key, names.key_words.get(key, (key,))) for key in names.keys))
            if name in self._own_names:
                found = tuple(range(len(self.parts)))
            else:
                found = tuple(i for i, pc in enumerate(self.parts)
                              if not pc.parts.generic and name in reach.naming(pc.parts.head_key))
            self._named_by[name] = found
        return found

    def tuples(self, n: int, masks: list[int]) -> list[tuple[tuple[int, ...], int]]:
        """(part indexes, children that hold them all as a bitmask over ``children()``) of the
        tuples of ``n`` parts that may be unique (``_may_be_unique``) and that some child holds,
        in column order, at most ``COMPOSITE_SEARCH.tuples_per_parent``. Searched part by part: a
        partial tuple no child holds, or whose distinct counts cannot reach the row count even
        with the largest parts left, or with no part named like a key left, goes no further."""
        parts, rows = self.parts, self.rows
        order = [i for i in range(len(parts)) if masks[i]]
        # per position in `order`: the largest distinct counts at or after it, and whether a part
        # named like a key is left
        largest: list[list[int]] = [[] for _ in range(len(order) + 1)]
        keyed = [False] * (len(order) + 1)
        for j in range(len(order) - 1, -1, -1):
            largest[j] = sorted(largest[j + 1] + [parts[order[j]].distinct], reverse=True)[:n]
            keyed[j] = keyed[j + 1] or parts[order[j]].parts.keyness > 0
        out: list[tuple[tuple[int, ...], int]] = []
        steps = [COMPOSITE_SEARCH.steps_per_parent]

        def grow(start: int, chosen: tuple[int, ...], mask: int, product: int, key: bool) -> bool:
            need = n - len(chosen)
            for j in range(start, len(order) - need + 1):
                steps[0] -= 1
                if steps[0] < 0 or len(out) >= COMPOSITE_SEARCH.tuples_per_parent:
                    return False
                if product * math.prod(largest[j][:need]) < rows or not (key or keyed[j]):
                    break  # later parts are no larger, and no key-named part is left after them
                i = order[j]
                m = mask & masks[i]
                if not m:
                    continue
                p, k = product * parts[i].distinct, key or parts[i].parts.keyness > 0
                if need == 1:
                    if p >= rows and k:
                        out.append((chosen + (i,), m))
                elif not grow(j + 1, chosen + (i,), m, p, k):
                    return False
            return True

        grow(0, (), -1, 1, False)
        return out

    def emit(self, n: int, best: _Best) -> None:
        """Offer ``best`` this parent's candidates of ``n`` parts, in key order, while they can enter."""
        children = self.children()
        if not children:
            return
        any_mask = [0] * len(self.parts)
        exact_mask = [0] * len(self.parts)
        for bit, (_, slot) in enumerate(children):
            for i, (_, exact) in slot.items():
                any_mask[i] |= 1 << bit
                if exact:
                    exact_mask[i] |= 1 << bit
        found = self.tuples(n, any_mask)
        uid = self.rel.uid
        for own in (True, False):
            group = [(combo, mask) for combo, mask in found if any(self.own[i] for i in combo) == own]
            for exact in (True, False):
                kept = 0
                for combo, mask in group:
                    positions = tuple(self.parts[i].position for i in combo)
                    if best.beyond((n, not own, not exact, -self.rows, uid, positions)):
                        break  # tuples come in column order: none after this one can enter
                    alike = mask
                    for i in combo:
                        alike &= exact_mask[i]
                    pick = alike if exact else mask & ~alike
                    while pick:
                        low = pick & -pick
                        pick ^= low
                        child, slot = children[low.bit_length() - 1]
                        cs = tuple(slot[i][0] for i in combo)
                        if len({c.key for c in cs}) < n:
                            continue
                        key = (n, not own, not exact, -self.rows, uid, positions, child.uid)
                        ps = tuple(self.parts[i] for i in combo)
                        if best.add(key, lambda cs=cs, ps=ps: TupleCandidate(cs, ps, exact)):
                            kept += 1
                    if kept >= best.size:
                        break  # this group's later candidates come after those already kept


def _numbers_own_rows(parts: Sequence[ColInfo], references: frozenset[tuple[str, str]]) -> bool:
    """A part named like a key that references nothing (``ws_order_number``; not
    ``ws_sold_date_sk``, which links to date_dim)."""
    return any(p.parts.keyness > 0 and not p.parts.generic and p.key not in references for p in parts)


def _by_relation_name(slot: dict[int, _Hit], parts: list[ColInfo], child: RelInfo, settings: DiscoverySettings,
                      namers: Mapping[int, Sequence[ColInfo]] | None = None,
                      matches: RelationMatches | None = None) -> None:
    """Parts no child column is named like, matched to the child column whose name names the
    parent (``Country`` for ``countries.CountryId``), once another part matched by name.
    ``namers``: per part, the child columns (in column order) whose names may name it
    (from ``_Parent._layout``; None: every column is scored); ``matches``: ``relation_match`` answers
    kept for the run."""
    used = {c.key for c, _ in slot.values()}
    match = matches.get if matches is not None else relation_match
    for i, pc in enumerate(parts):
        if i in slot:
            continue
        best, strength = None, settings.composite_min_name_match
        for cc in (child.columns if namers is None else namers.get(i, ())):
            if cc.has_values and cc.key not in used and not cc.flag and not cc.free_text:
                pattern, fuzzy, _ = match(cc, pc)
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
