"""Candidate (child, parent) pairs, generated from indexes so the work grows with the number of
columns, not with its square:

* by name — dictionaries from normalized keys to columns/relations: the exact column name,
  relation-name keys (``customer`` -> ``customers``' key), key-column heads, relation-name affixes
  (``hero`` -> ``superhero``), and role names (``created_by`` -> tables of people / own table);
* by value — a MinHash LSH Ensemble over the potential parents (unique-ish columns), queried once
  per child, returns parents that probably contain the child's values even with no name signal
  (in warehouses of more than ``EXACT_VALUE_LOOKUP_PARENTS`` parents only the tightest
  ``max_candidates_per_child`` of them: dense id ranges contain one another); in warehouses of
  ``engine_lookup_min_columns`` columns the lookups run as one join in the engine (:mod:`.bands`);
* by calendar — every column of days to each calendar (a relation keyed by days), at most
  ``CALENDAR_CAP`` of them: date columns name no relation, and a few dates inside thousands of
  days are too small a share for the LSH to find;
* by SQL — pairs joined in models' SQL.

Blocking happens here too: never a column with itself, never a pair (or child) already declared,
never two copies of one column (lineage), never a parent that cannot be a key.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum, Flag, auto
from typing import NamedTuple

from dbt_schema_link.discovery import bands, lookup_reuse
from dbt_schema_link.discovery.bands import BandJoin, Lookup
from dbt_schema_link.discovery.features import ColInfo, Features, RelInfo, keys_calendar
from dbt_schema_link.discovery.names import NameParts, affixes, initialisms, may_abbreviate
from dbt_schema_link.discovery.policy import KEY, NAMES, PRIORS
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.sqlfacts import SqlJoin
from dbt_schema_link.discovery.types import TypeFamily
from dbt_schema_link.discovery.values import ContainmentIndex

#: A column's key: (relation unique_id, column name).
ColKey = tuple[str, str]

#: Most parents one name lookup may add (a name shared by hundreds of unique columns).
LOOKUP_CAP = 50
#: An affix (prefix/suffix of a relation name) shared by more relations than this is too common
#: to suggest anything.
AFFIX_CAP = 8
#: Most relations sharing a first and last letter that are tested as a subsequence abbreviation.
ENDS_CAP = 64


class Source(Flag):
    NAME = auto()
    VALUE = auto()
    SQL = auto()


@dataclass(eq=False, slots=True)
class Candidate:
    child: ColInfo
    parent: ColInfo
    sources: Source
    joins: tuple[SqlJoin, ...] = ()  # a few thousand pairs have any: no list per candidate

    @property
    def key(self) -> tuple[tuple[str, str], tuple[str, str]]:
        return (self.child.key, self.parent.key)


def can_be_parent(c: ColInfo) -> bool:
    """Unique (or, without values, key-like by name), and not a flag, free text or blob."""
    if c.flag or c.free_text or c.family in (TypeFamily.OTHER, TypeFamily.BOOLEAN):
        return False
    if c.declared_pk:
        return True
    if c.unique is None:
        return c.pk_score >= KEY.table_key_min
    return c.unique


def can_be_child(c: ColInfo) -> bool:
    return c.family is not TypeFamily.OTHER and not c.free_text


@dataclass
class NameIndex:
    by_norm: dict[str, list[ColInfo]] = field(default_factory=dict)
    by_relation_key: dict[str, list[RelInfo]] = field(default_factory=dict)
    by_key_head: dict[str, list[ColInfo]] = field(default_factory=dict)
    by_affix: dict[str, list[RelInfo]] = field(default_factory=dict)
    by_initialism: dict[str, list[RelInfo]] = field(default_factory=dict)
    by_ends: dict[tuple[str, str], list[RelInfo]] = field(default_factory=dict)  # first, last letter
    people: list[RelInfo] = field(default_factory=list)


class NameTable(Enum):
    """The tables of a :class:`NameIndex`, for what it files a relation under and what a lookup
    reads (:func:`index_keys`, :func:`lookup_keys`)."""

    NORM = auto()
    RELATION_KEY = auto()
    KEY_HEAD = auto()
    AFFIX = auto()
    INITIALISM = auto()
    ENDS = auto()
    PEOPLE = auto()  # one entry: the list of people relations


NameKey = tuple[NameTable, object]


#: Which of a relation's columns the name index files: those that can be parents by name, and its
#: keys (positions in ``RelInfo.columns``; :func:`name_roles`).
NameRoles = tuple[tuple[int, ...], tuple[int, ...]]


def name_roles(rel: RelInfo) -> NameRoles:
    """The columns of ``rel`` the name index files as parents by name and as keys: with the
    relation's names, what its entries follow from (:func:`index_keys`)."""
    return (tuple(c.position for c in rel.columns if can_be_parent(c) and not c.parts.generic),
            tuple(c.position for c in rel.key_columns))


@dataclass
class Filed:
    """Where the name index files one relation (:func:`filed`): some of its columns, each under
    one key, and — when it has keys — the relation itself under keys of its names."""

    columns: list[tuple[NameTable, str, ColInfo]] = field(default_factory=list)
    relation: dict[NameTable, set] = field(default_factory=dict)


def filed(rel: RelInfo, roles: NameRoles) -> Filed:
    """Where ``build_name_index`` files ``rel`` given its columns' ``roles`` (this run's, or the
    last run's for the same names): its parent columns by their name; with keys, the relation
    under its names' keys and, for the names that speak for it, their affixes, initialisms and
    first and last letters; its key columns by their head; and the people list."""
    parents, keyed = roles
    out = Filed([(NameTable.NORM, rel.columns[i].parts.norm, rel.columns[i]) for i in parents])
    if not keyed:
        return out
    strong = rel.names.strong_keys()
    out.relation = {
        NameTable.RELATION_KEY: set(rel.names.keys),
        NameTable.AFFIX: {affix for key in strong for affix in affixes(key)},
        NameTable.INITIALISM: {short for key in strong for short in initialisms(rel.names.key_words.get(key, (key,)))},
        NameTable.ENDS: {(key[0], key[-1]) for key in strong},
    }
    if rel.names.people > 0:
        out.relation[NameTable.PEOPLE] = {None}
    out.columns += [(NameTable.KEY_HEAD, rel.columns[i].parts.head_key, rel.columns[i]) for i in keyed
                    if not rel.columns[i].parts.generic]
    return out


def index_keys(rel: RelInfo, roles: NameRoles) -> set[NameKey]:
    """The entries of the name index ``rel`` is filed under (:func:`filed`; the fuzzy tables'
    entries whether or not a name looks them up). A relink (:func:`.memo.unaffected`) generates
    again the candidates of every column whose lookups read an entry a changed relation is filed
    under, before or after the change."""
    where = filed(rel, roles)
    keys: set[NameKey] = {(table, key) for table, key, _ in where.columns}
    keys.update((table, key) for table, found in where.relation.items() for key in found)
    return keys


def build_name_index(features: Features) -> NameIndex:
    index = NameIndex()
    tables: dict[NameTable, dict] = {
        NameTable.NORM: index.by_norm, NameTable.RELATION_KEY: index.by_relation_key,
        NameTable.KEY_HEAD: index.by_key_head, NameTable.AFFIX: index.by_affix,
        NameTable.INITIALISM: index.by_initialism, NameTable.ENDS: index.by_ends,
    }
    # the fuzzy tables are filed only under words some column's name may look up there: every
    # affix and initialism of every relation name is millions of entries at a million columns,
    # nearly all never read (a word's entry holds the same relations either way)
    asked = _fuzzy_words(features)
    for rel in features.relations.values():
        where = filed(rel, name_roles(rel))
        for table, key, col in where.columns:
            tables[table].setdefault(key, []).append(col)
        for table, keys in where.relation.items():
            if table is NameTable.PEOPLE:
                index.people.append(rel)
                continue
            for key in (keys & asked[table] if table in asked else keys):
                tables[table].setdefault(key, []).append(rel)
    for norm in [n for n, cols in index.by_norm.items()
                 if len(cols) > AFFIX_CAP and cols[0].parts.keyness < NAMES.key_name_min]:
        del index.by_norm[norm]  # "name", "created_at": unique in many relations, keys of none
    for table in (index.by_norm, index.by_key_head):
        for key, cols in table.items():
            if len(cols) > LOOKUP_CAP:
                cols.sort(key=lambda c: (-c.pk_score, c.rel.depth, str(c.ref)))
                del cols[LOOKUP_CAP:]
    return index


def _fuzzy_reads(gram: str, abbreviates: bool) -> list[NameKey]:
    """The fuzzy tables' entries ``_name_priors`` reads for a word that names no relation (its
    fallbacks: affixes from 3 letters; initialisms from 2 and first and last letters from 3, for
    a name that may abbreviate)."""
    keys: list[NameKey] = []
    if len(gram) >= 3:
        keys.append((NameTable.AFFIX, gram))
    if len(gram) >= 2 and abbreviates:
        keys.append((NameTable.INITIALISM, gram))
        if len(gram) >= 3:
            keys.append((NameTable.ENDS, (gram[0], gram[-1])))
    return keys


def _fuzzy_words(features: Features) -> dict[NameTable, set]:
    """Per fuzzy table, the words some column's name may look up there (:func:`_fuzzy_reads`)."""
    asked: dict[NameTable, set] = {NameTable.AFFIX: set(), NameTable.INITIALISM: set(), NameTable.ENDS: set()}
    for parts in {id(c.parts): c.parts for c in features.columns}.values():
        abbreviates = may_abbreviate(parts)
        for gram in parts.head_ngrams():
            for table, key in _fuzzy_reads(gram, abbreviates):
                asked[table].add(key)
    return asked


def lookup_keys(parts: NameParts, index: NameIndex) -> set[NameKey]:
    """Every entry of ``index`` that ``name_candidates`` reads for a column named ``parts`` (a role
    name reads its own relation's keys besides). The fuzzy fallbacks are read where the word
    names no relation: an entry of a relation key not read again holds what it held last run."""
    keys: set[NameKey] = set()
    if not parts.generic:
        keys.add((NameTable.NORM, parts.norm))
    abbreviates = may_abbreviate(parts)
    for gram in parts.head_ngrams():
        keys.add((NameTable.RELATION_KEY, gram))
        keys.add((NameTable.KEY_HEAD, gram))
        if not index.by_relation_key.get(gram):
            keys.update(_fuzzy_reads(gram, abbreviates))
    if parts.role is not None:
        keys.add((NameTable.PEOPLE, None))
    return keys


def name_candidates(child: ColInfo, index: NameIndex, limit: int,
                    memo: dict[NameParts, list[ColInfo]] | None = None) -> list[ColInfo]:
    """Parents whose names relate to the child's name (dictionary lookups only), at most
    ``limit``, best first by a cheap prior (exact name, relation name, key name, affix, role).

    ``memo`` (one per run) keeps the ranking per name: without a role it depends on the name
    alone, and warehouses repeat names (``customer_id`` in hundreds of relations)."""
    parts = child.parts
    if parts.role is None and memo is not None:
        ranked = memo.get(parts)
        if ranked is None:
            ranked = memo[parts] = _ranked(_name_priors(parts, index))
        out: list[ColInfo] = []
        for c in ranked:
            if c is not child:
                out.append(c)
                if len(out) >= limit:
                    break
        return out
    found = _name_priors(parts, index)
    if parts.role is not None:
        for rel in index.people[:LOOKUP_CAP]:
            _add(found, rel.key_columns, PRIORS.role * rel.names.people)
        _add(found, child.rel.key_columns, PRIORS.role)
    found.pop(id(child), None)
    return _ranked(found)[:limit]


def _add(found: dict[int, tuple[float, ColInfo]], cols, prior: float) -> None:
    for c in cols:
        if not can_be_parent(c):
            continue
        old = found.get(id(c))
        if old is None or old[0] < prior:
            found[id(c)] = (prior, c)


def _ranked(found: dict[int, tuple[float, ColInfo]]) -> list[ColInfo]:
    ranked = sorted(found.values(), key=lambda pc: (-pc[0], -pc[1].pk_score, pc[1].rel.depth, str(pc[1].ref)))
    return [c for _, c in ranked]


def _name_priors(parts: NameParts, index: NameIndex) -> dict[int, tuple[float, ColInfo]]:
    """Every parent the name's lookups reach, with its best prior (keyed by id)."""
    found: dict[int, tuple[float, ColInfo]] = {}

    def add(cols, prior: float) -> None:
        _add(found, cols, prior)

    if not parts.generic:
        add(index.by_norm.get(parts.norm, ()), PRIORS.exact)
    for gram, gw in parts.head_ngrams().items():
        hits = index.by_relation_key.get(gram, ())
        common = specificity(len(hits))
        for rel in hits[:LOOKUP_CAP]:
            kw = rel.names.keys[gram]
            # a relation named for the word counts whatever; a word ending hundreds of relation
            # names ("account" in west_accounts, global_accounts, ...) says ever less
            prior = gw * kw * (PRIORS.specific_word if kw >= KEY.names_relation_min else common)
            if prior > 0:
                add(rel.key_columns, prior)
        add(index.by_key_head.get(gram, ()), gw * PRIORS.key_head)
        if not hits and len(gram) >= 3:
            # fuzzy fallback; an affix shared by many relations ("cust") says nothing
            rels = index.by_affix.get(gram, ())
            if len(rels) <= AFFIX_CAP:
                for rel in rels:
                    add(rel.key_columns, gw * PRIORS.affix)
        if not hits and len(gram) >= 2 and may_abbreviate(parts):
            # abbreviations: initialisms (hdemo, cr) and shortened words (qty, mgr)
            rels = index.by_initialism.get(gram, ())
            if len(rels) <= AFFIX_CAP:
                for rel in rels:
                    add(rel.key_columns, gw * PRIORS.initialism)
            if len(gram) >= 3:
                ends = index.by_ends.get((gram[0], gram[-1]), ())
                if len(ends) <= ENDS_CAP:
                    for rel in ends:
                        if rel.names.abbreviation(gram)[0]:
                            add(rel.key_columns, gw * PRIORS.abbreviation)
    return found


#: A name word ending at most this many relations' names is specific; from there its weight as
#: a candidate prior falls with the log of the count, to 0 at ``COMMON_WORD_RELATIONS``.
SPECIFIC_WORD_RELATIONS = 8
COMMON_WORD_RELATIONS = 500


def specificity(relations: int) -> float:
    """1 for a word that ends few relation names, falling to 0 for one that ends hundreds."""
    if relations <= SPECIFIC_WORD_RELATIONS:
        return 1.0
    return max(0.0, 1.0 - math.log(relations / SPECIFIC_WORD_RELATIONS)
               / math.log(COMMON_WORD_RELATIONS / SPECIFIC_WORD_RELATIONS))


#: Most calendars (relations keyed by days) every column of days is paired with, the largest
#: first: warehouses have one or a few; daily snapshots keyed by day would make it a product.
CALENDAR_CAP = 4


def calendars(features: Features) -> list[ColInfo]:
    """The calendar keys (``ColInfo.is_calendar_key``), largest first, at most ``CALENDAR_CAP``."""
    found = [c for c in features.columns if c.is_calendar_key() and can_be_parent(c)]
    found.sort(key=lambda c: (-c.distinct, str(c.ref)))
    return found[:CALENDAR_CAP]


#: Families in which a link may rest on values alone (dates, decimals and booleans need names).
VALUE_ONLY_FAMILIES = frozenset({TypeFamily.INTEGER, TypeFamily.TEXT, TypeFamily.UUID})


def value_index(features: Features, settings: DiscoverySettings,
                bands: bool = True) -> tuple[ContainmentIndex, list[ColInfo]]:
    """The LSH Ensemble over parents a value-only link may point at: relations' keys
    (``bands=False``: its layout only, for lookups in the engine).

    Pairs with name evidence come from the name index and get their containment estimate from
    the signatures directly, so the LSH index only needs what names cannot find."""
    parents = [c for c in features.columns
               if can_be_parent(c) and c.signature is not None and c.has_values and c.is_table_key()
               and c.family in VALUE_ONLY_FAMILIES]
    index = ContainmentIndex(
        ((i, c.signature, c.distinct) for i, c in enumerate(parents)),
        k=features.k, threshold=settings.lsh_threshold, num_part=settings.lsh_num_part, m=settings.lsh_m,
        recall_weight=settings.lsh_recall_weight, bands=bands,
    )
    return index, parents


def _may_link_by_values(child: ColInfo) -> bool:
    """Whether a value-only link could start at this column (see ``traps.find_trap``): not a
    flag, measure or its own relation's key, in a family where values alone may speak."""
    return (child.signature is not None and child.has_values and not child.flag and can_be_child(child)
            and child.family in VALUE_ONLY_FAMILIES and not child.parts.measure
            and not (child.pk_score >= KEY.own_key_named and child.unique))


#: At most this many value-only parents per child, as a multiple of ``max_candidates_per_child``
#: (at most that many candidates of a child are scored in the end anyway) — in warehouses with
#: more than ``EXACT_VALUE_LOOKUP_PARENTS`` potential parents; below that every LSH hit is kept.
VALUE_LOOKUP_FACTOR = 1
EXACT_VALUE_LOOKUP_PARENTS = 100


def min_sample_fraction(parents: list[ColInfo]) -> float:
    return min((p.rel.sample_fraction for p in parents), default=1.0)


def effective_distinct(parents: list[ColInfo]) -> list[float]:
    """Each parent's distinct count scaled up to its whole relation (its width, for ``_need``)."""
    return [p.distinct / p.rel.sample_fraction for p in parents]


def tightest_containers(partitions: Iterable[list[int]], need: float, cap: int, widths: list[float]) -> list[int]:
    """A child's LSH hits (parent positions, one list per size partition, smallest parents first):
    all of them when there are at most ``cap``, else the ``cap`` smallest parents wide enough to
    hold the child's values (``widths[i] >= need``: the tightest containers, the ones
    ``evaluate.value_fits`` prefers). Reading stops once ``cap`` such parents are in hand: a dense
    id range is contained in every larger dense key, so reading them all would make value lookups
    grow with the square of the warehouse."""
    hits: list[tuple[bool, float, int]] = []
    usable = 0
    for part in partitions:
        for i in part:
            width = widths[i]
            ok = width >= need
            usable += ok
            hits.append((not ok, width, i))
        if usable >= cap:
            break
    if len(hits) > cap:
        hits.sort()
        del hits[cap:]
        hits.sort(key=lambda h: h[2])
    return [i for _, _, i in hits]


def _need(child: ColInfo, settings: DiscoverySettings) -> float:
    """The width a parent needs to hold the child's values (see ``evidence.cardinality_evidence``):
    the parent is wide enough when ``effective_distinct(parent) >= need``."""
    return (child.distinct - 1) / (1.0 + settings.approx_slack)


def _large_enough_for_the_engine(features: Features, settings: DiscoverySettings) -> bool:
    """Whether this warehouse is large enough for value lookups in the engine
    (``engine_lookup_min_columns``; 0: never)."""
    least = settings.engine_lookup_min_columns
    return bool(least) and len(features.columns) >= least


def value_candidates(features: Features, settings: DiscoverySettings, lsh: ContainmentIndex,
                     parents: list[ColInfo], band_join: BandJoin | None = None,
                     reuse: LookupReuse | None = None) -> dict[ColKey, list[ColInfo]]:
    """The parents the LSH finds by value for each child that has a value lookup, children in
    column order. An index built without band tables (``value_index(bands=False)``) has
    ``band_join`` run every lookup as one join in the engine (:mod:`.bands`); the pairs are the
    same as Python's lookups give. ``reuse``: the last run's answers that still stand are taken
    back (Python's lookups only, :mod:`.lookup_reuse`), this run's are kept in ``reuse.kept``, and
    the children whose lookup found other parents than last run's are ``reuse.changed``."""
    exact = len(parents) <= EXACT_VALUE_LOOKUP_PARENTS
    cap = VALUE_LOOKUP_FACTOR * settings.max_candidates_per_child
    # a partition whose largest parent is narrower than the child holds only CHILD_WIDER pairs
    # (``fraction``: the smallest sample fraction among the parents)
    fraction = min_sample_fraction(parents)
    widths = effective_distinct(parents)
    max_bucket = None if exact else settings.lsh_max_bucket
    # copies of one column (staging models, keys fully referenced) share a signature: the LSH
    # answer depends only on the signature and the size, so it is asked once
    children = [(c, (c.signature.tobytes(), c.distinct)) for c in features.columns if _may_link_by_values(c)]
    lookups: dict[tuple[bytes, int], Lookup] = {}
    for child, key in children:
        if key not in lookups:
            need = _need(child, settings)
            lookups[key] = Lookup(child.signature, child.distinct, 0.0 if exact else need * fraction, need)
    answered: dict[tuple[bytes, int], list[list[int]]] = {}
    in_engine = not lsh.has_bands  # built for lookups in the engine (``generate``): nothing taken back
    if in_engine:
        if band_join is None:
            raise ValueError("an index without band tables looks up through a band_join")
        answered = dict(zip(lookups, bands.engine_lookups(
            lsh, [p.signature for p in parents], list(lookups.values()), max_bucket, band_join,
            0 if exact else cap, widths)))
    picks: dict[tuple[bytes, int], list[int]] = {}
    if reuse is not None and not in_engine:
        digests = {key: lookup_reuse.lookup_key(look) for key, look in lookups.items()}
        layout = lookup_reuse.layout_digest(lsh, exact, fraction, cap, max_bucket)
        keys = [p.key for p in parents]
        sigs = [p.signature for p in parents]
        sizes = [lsh.indexed_size(i) for i in range(len(parents))]
        by_digest = lookup_reuse.reusable_answers(reuse.previous, layout, lsh, keys, sigs, sizes, widths,
                                                   {digests[key]: look for key, look in lookups.items()})
        picks = {key: by_digest[d] for key, d in digests.items() if d in by_digest}
        reuse.reused = len(picks)
    taken_back = set(picks)
    for key, look in lookups.items():
        if key in picks:
            continue
        parts = answered[key] if answered else lsh.query_partitions(look.signature, look.size, look.min_upper,
                                                                    max_bucket)
        picks[key] = [i for part in parts for i in part] if exact else tightest_containers(parts, look.need, cap,
                                                                                           widths)
    if reuse is not None:
        if in_engine:
            reuse.changed = {child.key for child, _ in children}
        else:
            answers = {digests[key]: picks[key] for key in lookups}
            asked = {digests[key] for key in lookups if key not in taken_back}
            other = asked - lookup_reuse.unchanged_answers(reuse.previous, keys, {d: answers[d] for d in asked})
            reuse.changed = {child.key for child, key in children if digests[key] in other}
            reuse.kept = lookup_reuse.kept(layout, keys, sigs, sizes, widths, answers)
    found: dict[tuple[bytes, int], list[ColInfo]] = {}
    out: dict[ColKey, list[ColInfo]] = {}
    for child, key in children:
        hits = found.get(key)
        if hits is None:
            hits = found[key] = [parents[i] for i in picks[key]]
        out[child.key] = hits
    return out


@dataclass
class LookupReuse:
    """Value lookups across runs: ``previous`` (the last run's, or ``None``) is read; ``kept``
    (this run's), ``reused`` (how many answers were taken back) and ``changed`` (the children
    whose lookup found other parents than the last run's, or had none then) are filled in."""

    previous: lookup_reuse.KeptLookups | None = None
    kept: lookup_reuse.KeptLookups | None = None
    reused: int = 0
    changed: set[ColKey] = field(default_factory=set)


class CandidateCounts(NamedTuple):
    """Candidate pairs, by what proposed them (a pair two sources propose counts in both). A
    tuple: one is made per column."""

    by_name: int = 0
    by_value: int = 0  # value lookups and calendars
    by_sql: int = 0
    total: int = 0

    @classmethod
    def of(cls, counts: Sequence[CandidateCounts]) -> CandidateCounts:
        """The sum of ``counts``."""
        return cls(*(sum(field) for field in zip(*counts))) if counts else cls()

    def as_counts(self) -> dict[str, int]:
        return {"candidates_by_name": self.by_name, "candidates_by_value": self.by_value,
                "candidates_by_sql": self.by_sql}


NO_CANDIDATES = CandidateCounts()


class CandidateSources:
    """Every source of candidate pairs made ready once — the name index, the value lookups, the
    calendars, the SQL joins by column — so that one child's candidates (``of``) are dictionary
    reads: ``generate`` asks it of every column, a relink (:mod:`.passes`) only of the columns
    whose candidates may have changed since the last run."""

    def __init__(self, features: Features, settings: DiscoverySettings, joins: list[SqlJoin],
                 skip: Callable[[ColInfo, ColInfo], bool], lap: Callable[[str], None] | None = None,
                 band_join: BandJoin | None = None, reuse: LookupReuse | None = None) -> None:
        """``lap(stage)`` (optional) is called after each source is ready, for per-stage timings;
        ``band_join`` (optional) runs value lookups in the engine and ``reuse`` (optional) takes
        back the last run's value lookups that still stand (``value_candidates``)."""
        lap = lap or (lambda _stage: None)
        self.skip, self.limit = skip, settings.max_name_candidates_per_child
        self.names = build_name_index(features) if settings.use_names else None
        self._ranked: dict[NameParts, list[ColInfo]] = {}  # name_candidates' memo, one per run
        lap("candidates by name")
        self.by_value: dict[ColKey, list[ColInfo]] = {}
        if settings.use_values and features.k:
            # lookups in the engine need the index's layout, not its band tables
            in_engine = band_join is not None and _large_enough_for_the_engine(features, settings)
            lsh, parents = value_index(features, settings, bands=not in_engine)
            if len(lsh):
                self.by_value = value_candidates(features, settings, lsh, parents, band_join, reuse)
        #: the children whose value lookup found other parents than the last run's (or had none then)
        self.changed_lookups: set[ColKey] = reuse.changed if reuse is not None else set(self.by_value)
        lap("candidates by value (LSH)")
        self.days = calendars(features) if settings.use_values and settings.calendar_keys else []
        lap("candidates by calendar")
        self.by_sql: dict[ColKey, list[tuple[ColInfo, SqlJoin]]] = {}  # both ways, in the joins' order
        for join in joins:
            a, b = features.col(join.left), features.col(join.right)
            if a is not None and b is not None:
                self.by_sql.setdefault(a.key, []).append((b, join))
                self.by_sql.setdefault(b.key, []).append((a, join))
        lap("candidates from SQL")

    def of(self, child: ColInfo) -> tuple[list[Candidate], CandidateCounts]:
        """``child``'s candidates — by name, by value, by calendar, from SQL, in that order — and
        their counts. Never the column itself, a blocked pair (``skip``) or a child that cannot be one."""
        if not can_be_child(child):
            return [], NO_CANDIDATES
        skip = self.skip
        out: dict[ColKey, Candidate] = {}
        if self.names is not None:
            for parent in name_candidates(child, self.names, self.limit, self._ranked):
                if not skip(child, parent):  # one lookup per child, each parent once
                    out[parent.key] = Candidate(child, parent, Source.NAME)
        by_name, by_value = len(out), 0
        for parent in self.by_value.get(child.key, ()):
            if parent is child or skip(child, parent):
                continue
            by_value += 1
            cand = out.get(parent.key)
            if cand is None:
                out[parent.key] = Candidate(child, parent, Source.VALUE)
            else:
                cand.sources |= Source.VALUE
        for parent in (self.days if child.day_values else ()):
            if parent.key not in out and parent is not child and keys_calendar(child, parent) and not skip(child, parent):
                by_value += 1
                out[parent.key] = Candidate(child, parent, Source.VALUE)
        joined: set[ColKey] = set()
        for parent, join in self.by_sql.get(child.key, ()):
            if parent is child or skip(child, parent):
                continue
            joined.add(parent.key)
            cand = out.get(parent.key)
            if cand is None:
                cand = out[parent.key] = Candidate(child, parent, Source.SQL)
            else:
                cand.sources |= Source.SQL
            cand.joins = (*cand.joins, join)
        return list(out.values()), CandidateCounts(by_name, by_value, len(joined), len(out))


def pairs(sources: CandidateSources, children: Iterable[ColInfo]) -> tuple[dict, dict[ColKey, CandidateCounts]]:
    """The candidates of ``children`` keyed by (child key, parent key), child by child in their
    order, and the counts of each child that has any."""
    out: dict[tuple, Candidate] = {}
    counts: dict[ColKey, CandidateCounts] = {}
    for child in children:
        cands, n = sources.of(child)
        if cands:
            counts[child.key] = n
            for cand in cands:
                out[(child.key, cand.parent.key)] = cand
    return out, counts


def generate(features: Features, settings: DiscoverySettings, joins: list[SqlJoin],
             skip: Callable[[ColInfo, ColInfo], bool],
             lap: Callable[[str], None] | None = None,
             band_join: BandJoin | None = None,
             reuse: LookupReuse | None = None) -> tuple[dict, dict[str, int]]:
    """All candidate pairs keyed by (child key, parent key), children in column order, plus counts
    per source (see :class:`CandidateSources` for the arguments)."""
    out, counts = pairs(CandidateSources(features, settings, joins, skip, lap, band_join, reuse), features.columns)
    return out, CandidateCounts.of(list(counts.values())).as_counts()
