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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import Flag, auto

from dbt_schema_link.discovery import bands, lookup_reuse
from dbt_schema_link.discovery.bands import BandJoin, Lookup
from dbt_schema_link.discovery.features import ColInfo, Features, RelInfo, keys_calendar
from dbt_schema_link.discovery.names import NameParts, affixes, initialisms, may_abbreviate
from dbt_schema_link.discovery.policy import KEY, NAMES, PRIORS
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.sqlfacts import SqlJoin
from dbt_schema_link.discovery.types import TypeFamily
from dbt_schema_link.discovery.values import ContainmentIndex

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


def build_name_index(features: Features) -> NameIndex:
    index = NameIndex()
    for c in features.columns:
        if can_be_parent(c) and not c.parts.generic:
            index.by_norm.setdefault(c.parts.norm, []).append(c)
    for rel in features.relations.values():
        if not rel.key_columns:
            continue
        for key in rel.names.keys:
            index.by_relation_key.setdefault(key, []).append(rel)
        seen_affixes: set[str] = set()
        for key, weight in rel.names.keys.items():
            if weight >= KEY.names_relation_min:
                seen_affixes.update(affixes(key))
        for affix in seen_affixes:
            index.by_affix.setdefault(affix, []).append(rel)
        seen_short: set[str] = set()
        ends: set[tuple[str, str]] = set()
        for key, weight in rel.names.keys.items():
            if weight >= KEY.names_relation_min:
                seen_short.update(initialisms(rel.names.key_words.get(key, (key,))))
                ends.add((key[0], key[-1]))
        for short in seen_short:
            index.by_initialism.setdefault(short, []).append(rel)
        for end in ends:
            index.by_ends.setdefault(end, []).append(rel)
        for c in rel.key_columns:
            if not c.parts.generic:
                index.by_key_head.setdefault(c.parts.head_key, []).append(c)
        if rel.names.people > 0:
            index.people.append(rel)
    for norm in [n for n, cols in index.by_norm.items()
                 if len(cols) > AFFIX_CAP and cols[0].parts.keyness < NAMES.key_name_min]:
        del index.by_norm[norm]  # "name", "created_at": unique in many relations, keys of none
    for table in (index.by_norm, index.by_key_head):
        for key, cols in table.items():
            if len(cols) > LOOKUP_CAP:
                cols.sort(key=lambda c: (-c.pk_score, c.rel.depth, str(c.ref)))
                del cols[LOOKUP_CAP:]
    return index


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
    """Whether a value-only link could start at this column (see ``evidence.find_trap``): not a
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
                     reuse: LookupReuse | None = None) -> Iterator[tuple[ColInfo, ColInfo]]:
    """(child, parent) pairs the LSH finds by value, child by child. An index built without band
    tables (``value_index(bands=False)``) has ``band_join`` run every lookup as one join in the
    engine (:mod:`.bands`); the pairs are the same as Python's lookups give. ``reuse`` (Python's
    lookups only): the last run's answers that still stand are taken back (:mod:`.lookup_reuse`),
    and this run's are kept in ``reuse.kept``."""
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
    if not lsh.has_bands:  # built for lookups in the engine (``generate``)
        if band_join is None:
            raise ValueError("an index without band tables looks up through a band_join")
        answered = dict(zip(lookups, bands.engine_lookups(
            lsh, [p.signature for p in parents], list(lookups.values()), max_bucket, band_join,
            0 if exact else cap, widths)))
        reuse = None
    picks: dict[tuple[bytes, int], list[int]] = {}
    if reuse is not None:
        digests = {key: lookup_reuse.lookup_key(look) for key, look in lookups.items()}
        layout = lookup_reuse.layout_digest(lsh, exact, fraction, cap, max_bucket)
        keys = [p.key for p in parents]
        sigs = [p.signature for p in parents]
        sizes = [lsh.indexed_size(i) for i in range(len(parents))]
        by_digest = lookup_reuse.reusable_answers(reuse.previous, layout, lsh, keys, sigs, sizes, widths,
                                                   {digests[key]: look for key, look in lookups.items()})
        picks = {key: by_digest[d] for key, d in digests.items() if d in by_digest}
        reuse.reused = len(picks)
    for key, look in lookups.items():
        if key in picks:
            continue
        parts = answered[key] if answered else lsh.query_partitions(look.signature, look.size, look.min_upper,
                                                                    max_bucket)
        picks[key] = [i for part in parts for i in part] if exact else tightest_containers(parts, look.need, cap,
                                                                                           widths)
    if reuse is not None:
        reuse.kept = lookup_reuse.kept(layout, keys, sigs, sizes, widths, {digests[key]: picks[key] for key in lookups})
    found: dict[tuple[bytes, int], list[ColInfo]] = {}
    for child, key in children:
        hits = found.get(key)
        if hits is None:
            hits = found[key] = [parents[i] for i in picks[key]]
        for parent in hits:
            yield child, parent


@dataclass
class LookupReuse:
    """Value lookups across runs: ``previous`` (the last run's, or ``None``) is read; ``kept``
    (this run's) and ``reused`` (how many answers were taken back) are filled in."""

    previous: lookup_reuse.KeptLookups | None = None
    kept: lookup_reuse.KeptLookups | None = None
    reused: int = 0


def generate(features: Features, settings: DiscoverySettings, joins: list[SqlJoin],
             skip: Callable[[ColInfo, ColInfo], bool],
             lap: Callable[[str], None] | None = None,
             band_join: BandJoin | None = None,
             reuse: LookupReuse | None = None) -> tuple[dict, dict[str, int]]:
    """All candidate pairs keyed by (child key, parent key), plus counts per source. ``lap(stage)``
    (optional) is called after each source of candidates, for per-stage timings; ``band_join``
    (optional) runs value lookups in the engine and ``reuse`` (optional) takes back the last
    run's value lookups that still stand (``value_candidates``)."""
    lap = lap or (lambda _stage: None)
    out: dict[tuple, Candidate] = {}
    counts = {"candidates_by_name": 0, "candidates_by_value": 0, "candidates_by_sql": 0}
    sql_pairs: set[tuple] = set()  # counted as proposed (flag arithmetic over every candidate is slow)

    def put(child: ColInfo, parent: ColInfo, source: Source, join: SqlJoin | None = None) -> bool:
        if child is parent or not can_be_child(child) or skip(child, parent):
            return False
        key = (child.key, parent.key)
        if source is Source.SQL:
            sql_pairs.add(key)
        cand = out.get(key)
        if cand is None:
            cand = out[key] = Candidate(child, parent, source)
        else:
            cand.sources |= source
        if join is not None:
            cand.joins = (*cand.joins, join)
        return True

    if settings.use_names:
        index = build_name_index(features)
        memo: dict[NameParts, list[ColInfo]] = {}
        for child in features.columns:
            for parent in name_candidates(child, index, settings.max_name_candidates_per_child, memo):
                put(child, parent, Source.NAME)
        counts["candidates_by_name"] = len(out)  # one lookup per child, each parent once
    lap("candidates by name")

    if settings.use_values and features.k:
        # lookups in the engine need the index's layout, not its band tables
        in_engine = band_join is not None and _large_enough_for_the_engine(features, settings)
        lsh, parents = value_index(features, settings, bands=not in_engine)
        if len(lsh):
            # one lookup per child, each parent once: every accepted pair is a new one
            counts["candidates_by_value"] += sum(put(child, parent, Source.VALUE) for child, parent
                                                 in value_candidates(features, settings, lsh, parents, band_join, reuse))
    lap("candidates by value (LSH)")

    if settings.use_values and settings.calendar_keys:
        days = calendars(features)
        for child in (features.columns if days else ()):
            for parent in (days if child.day_values else ()):
                if keys_calendar(child, parent) and (child.key, parent.key) not in out:
                    counts["candidates_by_value"] += put(child, parent, Source.VALUE)
    lap("candidates by calendar")

    for join in joins:
        a, b = features.col(join.left), features.col(join.right)
        if a is None or b is None:
            continue
        put(a, b, Source.SQL, join)
        put(b, a, Source.SQL, join)
    counts["candidates_by_sql"] = len(sql_pairs)
    lap("candidates from SQL")
    return out, counts
