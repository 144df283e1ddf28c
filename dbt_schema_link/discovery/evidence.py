"""Evidence about one (child, parent) pair, one function per signal (the trap rules are in
:mod:`.traps`).

Every function returns typed :class:`Evidence` (strength in [-1, 1]) or, for the blocking rules,
a typed reason (:class:`Block`) the pair cannot be a link; no string labels drive
logic. Names are compared as normalized keys computed once in :mod:`features`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from enum import Enum

import numpy as np

from dbt_schema_link.discovery.features import ColInfo, keys_calendar, unrelated_sources
from dbt_schema_link.discovery.names import (
    KEY_PREFIXES, MEASURE_WORDS, NameParts, Role, affix_similarity, fuzzy_similarity, may_abbreviate,
)
from dbt_schema_link.discovery.policy import CARDINALITY, NAMES, SURPRISE_FULL, TYPES, VALUES
from dbt_schema_link.discovery.records import Evidence, Signal
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.sqlfacts import SqlJoin
from dbt_schema_link.discovery.types import Compat, TypeFamily, compatibility
from dbt_schema_link.discovery.values import (
    ESTIMATE_BATCH, ContainmentEstimate, estimate_containment, estimate_containments, key_density, log10_choose,
    range_density_surprise, value_space_surprise,
)
from dbt_schema_link.profiling.records import ContainmentResult


class Block(Enum):
    """Why a pair cannot be a link at all (not reported: these are the bulk of non-links)."""

    TYPES = "types"  # incompatible type families
    TYPES_NEED_VALUES = "types_need_values"  # text vs number without values that agree
    PARENT_NOT_UNIQUE = "parent_not_unique"
    CHILD_WIDER = "child_wider"  # child has more distinct values than the parent
    PARENT_NOT_KEY = "parent_not_key"  # value-only link to a column that is not its table's key


# -- names ---------------------------------------------------------------------------------

class RelationMatches:
    """``relation_match`` answers for one discovery run. The answer depends only on the child's
    name parts, the relation and the parent's key column, and column names repeat across a
    warehouse (``customer_id`` in hundreds of relations), so each is computed once."""

    def __init__(self) -> None:
        self._answers: dict[tuple, tuple[float, float, str]] = {}

    def get(self, child: ColInfo, parent: ColInfo | None) -> tuple[float, float, str]:
        rel = parent.rel if parent is not None else child.rel
        key = (child.parts, id(rel), parent.ref.column if parent is not None else None)
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = relation_match(child, parent)
        return answer


def name_evidence(child: ColInfo, parent: ColInfo, matches: RelationMatches | None = None) -> list[Evidence]:
    """Exact name, ``<table>_id`` patterns, role names, and fuzzy (affix/edit) similarity.

    Two rules keep names honest: within one relation only hierarchy roles count (``manager_id``,
    ``parent_category_id``; ``invoice_id`` in ``invoice_line`` does not point at
    ``invoice_line_id``), and a column that is its own relation's key is not said to point at
    another relation whose name it matches no better than its own (``invoice.invoice_id`` vs
    ``invoice_line``), nor, named for its own relation, as a role (``owners.owner_id``).
    """
    out: list[Evidence] = []
    match = matches.get if matches is not None else relation_match
    cp, pp = child.parts, parent.parts
    parent_key = parent.is_table_key()
    prel = parent.rel
    same = child.rel is prel
    if _same_name(cp, pp) and not cp.generic and not same:
        if cp.keyness >= NAMES.key_name_min:
            strength = NAMES.exact_to_key if parent_key else NAMES.exact_to_unique
        else:
            strength = NAMES.exact_plain_unique if parent.unique else NAMES.exact_plain
        out.append(Evidence(Signal.NAME_EXACT, strength, f"same column name {child.ref.column!r}"))
    # how much a column that is its own relation's key names that relation (``owners.owner_id``)
    own = max(match(child, None)[:2]) if parent_key and not same and child.is_table_key() else 0.0
    # within one relation names count only for a hierarchy role (parent_category_id in categories)
    if parent_key and (not same or cp.role in (Role.HIERARCHY, Role.TREE)):
        pattern, fuzzy, via = match(child, parent)
        if own and own >= max(pattern, fuzzy):
            pattern = fuzzy = 0.0  # its name is explained by its own relation
        if pattern > 0:
            out.append(Evidence(
                Signal.NAME_PATTERN, pattern, f"{child.ref.column!r} names {via}, whose key is {parent.ref.column!r}",
            ))
        elif fuzzy >= NAMES.fuzzy_min and not any(e.signal is Signal.NAME_EXACT for e in out):
            out.append(Evidence(
                Signal.NAME_FUZZY, fuzzy, f"{child.ref.column!r} resembles {via}, whose key is {parent.ref.column!r}",
            ))
    if cp.role is not None and parent_key and not own:  # a key named for its relation is no role
        people = prel.names.people
        if cp.role is Role.PERSON:
            strength = people
            where = "a table of people"
        elif cp.role is Role.TREE:
            strength = NAMES.role_own_table if same else 0.0
            where = "its own table"
        else:  # a person's superior: its own table when that holds people, else a table of people
            strength = NAMES.role_own_table * people if same else NAMES.role_people_factor * people
            where = "its own table of people" if same else "a table of people"
        if strength > 0:
            out.append(Evidence(
                Signal.ROLE_NAME, strength,
                f"{child.ref.column!r} is a {cp.role.value} role pointing at {where}",
            ))
    return out


def _same_name(cp: NameParts, pp: NameParts) -> bool:
    """The same normalized name, or the same name behind each side's own key marker
    (``fk_customer_id`` and ``pk_customer_id``: the Hungarian style marks which side is which)."""
    if cp.norm == pp.norm:
        return True
    a, b = cp.tokens, pp.tokens
    return len(a) > 1 and len(b) > 1 and a[0] in KEY_PREFIXES and b[0] in KEY_PREFIXES and a[1:] == b[1:]


def relation_match(child: ColInfo, parent: ColInfo | None) -> tuple[float, float, str]:
    """How much the child's name names the parent's relation (``parent=None``: its own).

    Returns (pattern, fuzzy, how): ``pattern`` when an n-gram of the child's head equals a
    relation-name key (``customer`` ~ ``customers``) or the key column's head; ``fuzzy`` when one is
    a prefix/suffix of the other (``hero`` ~ ``superhero``) or they are a near-miss spelling.
    """
    cp = child.parts
    rel = parent.rel if parent is not None else child.rel
    targets = dict(rel.names.keys)
    key_head = ""
    if parent is not None and not parent.parts.generic:
        key_head = parent.parts.head_key
        targets[key_head] = max(targets.get(key_head, 0.0), NAMES.key_head_pattern)
    fuzzy_targets = dict(rel.names.keys)
    if key_head:  # a key column's head is weaker fuzzy evidence than the relation's name
        fuzzy_targets[key_head] = max(fuzzy_targets.get(key_head, 0.0), NAMES.key_head_fuzzy)
    pattern, fuzzy, via = 0.0, 0.0, ""
    for gram, gw in cp.head_ngrams().items():
        tw = targets.get(gram, 0.0)
        if tw and gw * tw > pattern:
            pattern = gw * tw
            via = f"key name {parent.ref.column!r}" if gram == key_head and gram not in rel.names.keys else \
                f"relation {rel.relation.short_name!r}"
        elif not tw and gw * NAMES.abbreviation > pattern and may_abbreviate(cp) and gram not in MEASURE_WORDS:
            # a key-like name or a one-word name may abbreviate (cust_id, con ~ continents);
            # a word among others may not (discount_pct is no product)
            abbr, key = rel.names.abbreviation(gram)  # cust ~ customer, hdemo ~ household_demographics
            if abbr and gw * abbr > pattern:
                pattern = gw * abbr
                via = f"relation {rel.relation.short_name!r} ({gram} abbreviates {key})"
        if len(gram) < 3:
            continue
        for key, kw in fuzzy_targets.items():
            sim = affix_similarity(gram, key)
            if not sim:
                ratio = fuzzy_similarity(gram, key)
                sim = ratio if ratio >= NAMES.fuzzy_ratio_min else 0.0
            if sim * gw * kw > fuzzy:
                fuzzy = sim * gw * kw
                if not pattern:
                    via = f"relation {rel.relation.short_name!r} ({gram} ~ {key})"
    if cp.keyness < NAMES.key_name_min:  # "continent" rather than "continent_id"
        pattern *= NAMES.plain_name_factor
        fuzzy *= NAMES.plain_name_factor
    return pattern, fuzzy, via


def designates(child: ColInfo, parent: ColInfo) -> bool:
    """Whether the child's name designates the parent's relation itself (``customer_id`` ->
    ``customers``), not merely shares the parent key column's name (``customer_id`` in
    ``customer_notes``, ``payout_ledger_entry.ledger_entry_id``), and the parent is that relation's
    key: a word of the child's head (weighed as ``head_ngrams`` does) is the relation's whole name,
    or without a generic word, or abbreviates it (``cust``) without being one of its words."""
    if not parent.is_table_key():
        return False
    names = parent.rel.names
    for gram, weight in child.parts.head_ngrams().items():
        if weight < NAMES.signal_min:
            continue
        if names.named_by(gram):
            return True
        if may_abbreviate(child.parts):
            abbr, key = names.abbreviation(gram)
            if abbr and names.named_by(key) and gram not in names.key_words.get(key, ()):
                return True
    return False


def has_name_signal(evidence: Sequence[Evidence]) -> bool:
    """Whether names speak for the pair (strong enough to lift the value-only trap rules)."""
    for e in evidence:
        if e.signal in (Signal.NAME_EXACT, Signal.NAME_PATTERN, Signal.ROLE_NAME) and e.strength >= NAMES.signal_min:
            return True
        if e.signal is Signal.NAME_FUZZY and e.strength >= NAMES.fuzzy_signal_min:
            return True
    return False


def names_or_sql(evidence: Sequence[Evidence]) -> bool:
    """Whether names or the project's SQL speak for the pair (not its values alone)."""
    return has_name_signal(evidence) or any(e.signal is Signal.SQL_JOIN for e in evidence)


# -- types and cardinality -----------------------------------------------------------------

def type_evidence(child: ColInfo, parent: ColInfo, values_agree: bool) -> Evidence | Block:
    compat = compatibility(child.family, parent.family)
    if child.all_null and compat in (Compat.NO, Compat.NEEDS_VALUES) and TypeFamily.OTHER not in (
            child.family, parent.family):
        return Evidence(Signal.TYPE_MATCH, TYPES.no_values,
                        f"{child.family.value} and {parent.family.value}, but the child holds only NULLs: "
                        "its type is the loader's guess, the pair is judged on its name")
    if compat is Compat.NO:
        return Block.TYPES
    if compat is Compat.SAME:
        return Evidence(Signal.TYPE_MATCH, TYPES.same, f"both {child.family.value}")
    if compat is Compat.COMPATIBLE:
        return Evidence(Signal.TYPE_MATCH, TYPES.compatible, f"{child.family.value} and {parent.family.value}")
    if not values_agree:
        return Block.TYPES_NEED_VALUES
    return Evidence(
        Signal.TYPE_MATCH, TYPES.values_agree,
        f"{child.family.value} and {parent.family.value}, allowed because the values agree",
    )


def cardinality_evidence(child: ColInfo, parent: ColInfo, settings: DiscoverySettings,
                         vouched: bool = False) -> Evidence | Block:
    """The parent must be unique (the one side); the child may not have more distinct values,
    unless names vouch for the pair (``vouched``) and the surplus could be orphans of a partial
    link (at most ``1 / partial_min_containment`` times the parent's values)."""
    if parent.unique is False and not parent.declared_pk:
        return Block.PARENT_NOT_UNIQUE
    if parent.unique is None:
        if parent.pk_score < CARDINALITY.unprofiled_key_min and not parent.declared_pk:
            return Block.PARENT_NOT_KEY  # not profiled, and its name does not say "key" either
        return Evidence(
            Signal.CARDINALITY, CARDINALITY.unprofiled_per_key * parent.pk_score,
            f"{parent.ref.column!r} looks like the key of {parent.rel.relation.short_name!r} by name (not profiled)",
        )
    parent_distinct = keys_held(parent)
    if child.has_values:
        slack = settings.approx_slack if (child.profile.distinct_approx or parent.profile.distinct_approx) else 0.0
        wider = child.distinct > parent_distinct * (1.0 + slack) + 1
        # a parent of a few rows is a sample: any number of the child's values may be missing
        # from it, which says no more than the child fitting in it would
        if wider and not (vouched and parent.rel.few_rows):
            room = parent_distinct / max(settings.partial_min_containment, 1e-9)
            if not vouched or child.distinct > room * (1.0 + slack) + 1:
                return Block.CHILD_WIDER
            return Evidence(Signal.CARDINALITY, CARDINALITY.orphans,
                            f"child {child.distinct} distinct > parent {parent.distinct}: orphans if the names are right")
        detail = (f"parent unique ({parent.distinct} distinct, a sample of {parent.rel.row_count} rows), "
                  f"child {child.distinct} distinct" if wider else
                  f"parent unique ({parent.distinct} distinct), child {child.distinct} distinct <= parent")
    else:
        what = "holds only NULLs" if child.all_null else "not profiled"
        detail = f"parent unique ({parent.distinct} distinct); child {what}"
    return Evidence(Signal.CARDINALITY, CARDINALITY.base + CARDINALITY.per_key * parent.pk_score, detail)


# -- values --------------------------------------------------------------------------------

def _estimable(child: ColInfo, parent: ColInfo) -> bool:
    return (child.signature is not None and parent.signature is not None and child.has_values
            and parent.has_values and len(child.signature) == len(parent.signature))


def containment_estimate(child: ColInfo, parent: ColInfo) -> ContainmentEstimate | None:
    if not _estimable(child, parent):
        return None
    est = estimate_containment(child.signature, child.distinct, parent.signature, parent.distinct,
                               child.borrowed, parent.borrowed)
    return _scaled(est, parent)


def containment_estimates(pairs: Sequence[tuple[ColInfo, ColInfo]]) -> list[ContainmentEstimate | None]:
    """``containment_estimate`` of every pair, counted in numpy batches (``ESTIMATE_BATCH``)."""
    out: list[ContainmentEstimate | None] = [None] * len(pairs)
    todo = [i for i, (c, p) in enumerate(pairs) if _estimable(c, p)]
    for start in range(0, len(todo), ESTIMATE_BATCH):
        batch = todo[start:start + ESTIMATE_BATCH]
        children = [pairs[i][0] for i in batch]
        parents = [pairs[i][1] for i in batch]
        ests = estimate_containments(
            np.stack([c.signature for c in children]), np.array([c.distinct for c in children]),
            np.stack([p.signature for p in parents]), np.array([p.distinct for p in parents]),
            _owned(children), _owned(parents))
        for i, parent, est in zip(batch, parents, ests):
            out[i] = _scaled(est, parent)
    return out


def _owned(cols: Sequence[ColInfo]) -> np.ndarray:
    """Positions each column's signature holds itself (not filled by densification)."""
    own = np.ones((len(cols), len(cols[0].signature)), dtype=bool)
    for row, c in enumerate(cols):
        if c.borrowed is not None:
            own[row] = ~c.borrowed
    return own


def _scaled(est: ContainmentEstimate, parent: ColInfo) -> ContainmentEstimate:
    fraction = parent.rel.sample_fraction
    if fraction < 1.0:  # a sampled unique parent holds ~fraction of its values
        est = ContainmentEstimate(
            containment=min(1.0, est.containment / fraction), jaccard=est.jaccard,
            jaccard_containment=min(1.0, est.jaccard_containment / fraction),
            reliability=est.reliability * fraction, violations=est.violations,
        )
    return est


def value_evidence(child: ColInfo, parent: ColInfo, est: ContainmentEstimate,
                   settings: DiscoverySettings, vouched: bool = False) -> Evidence:
    """The MinHash estimate; ``vouched`` as in :func:`exact_evidence` (orphans make a pair the
    names join partial, so the estimate turns positive from ``partial_min_containment``).
    Its detail is written by :func:`deferred_detail`, for the pairs that are reported."""
    threshold = settings.min_estimated_containment
    if vouched:
        threshold = min(threshold, settings.partial_min_containment)
    strength = est.reliability * _ramp(est.containment, threshold)
    return Evidence(Signal.VALUE_CONTAINMENT_ESTIMATE, strength, "")


def deferred_detail(evidence: Evidence, child: ColInfo, parent: ColInfo, est: ContainmentEstimate | None) -> Evidence:
    """``evidence`` with its detail written, when it is an item whose detail is left empty until
    the pair is reported (:func:`value_evidence`'s, ``est`` its estimate, :func:`surprise_evidence`'s
    and :func:`cross_source_evidence`'s): every candidate pair is weighed, hundreds of thousands at
    warehouse scale, and few are reported."""
    if evidence.detail:
        return evidence
    if evidence.signal is Signal.VALUE_CONTAINMENT_ESTIMATE and est is not None:
        return replace(evidence, detail=est.describe(child.distinct, parent.distinct))
    if evidence.signal is Signal.VALUE_SURPRISE:
        surprise = evidence.strength * SURPRISE_FULL
        return replace(evidence, detail=(
            "the values the parent holds would all be among its keys by chance with probability "
            + (f"below 1e-{SURPRISE_FULL:.0f}" if evidence.strength >= 1.0 else f"~1e-{surprise:.1f}")))
    if evidence.signal is Signal.CROSS_SOURCE:
        return replace(evidence, detail=(
            f"{child.rel.relation.short_name!r} and {parent.rel.relation.short_name!r} come from "
            f"unrelated sources ({', '.join(sorted(child.rel.origins))} / "
            f"{', '.join(sorted(parent.rel.origins))})"))
    return evidence


def exact_evidence(child: ColInfo, parent: ColInfo, result: ContainmentResult,
                   settings: DiscoverySettings, vouched: bool = False) -> Evidence:
    """The verified containment. ``vouched``: names or a SQL join already say the pair joins, so
    orphan values make it a partial link (positive from ``partial_min_containment``), not a
    refuted one."""
    c = result.containment
    threshold = settings.min_exact_containment
    if vouched:
        threshold = min(threshold, settings.partial_min_containment)
    measured_here = (result.child, result.child_column.lower(), result.parent, result.parent_column.lower()) == (
        child.ref.relation, child.ref.column.lower(), parent.ref.relation, parent.ref.column.lower())
    where = "" if measured_here else (
        f" (measured on the lineage copies {result.child}.{result.child_column} -> "
        f"{result.parent}.{result.parent_column})")
    orphans = result.child_distinct - result.matched
    if orphans and result.orphan_rows is not None:
        where += f"; {orphans} orphan values in {result.orphan_rows} child rows"
    elif orphans:
        where += f"; {orphans} orphan values"
    return Evidence(
        Signal.EXACT_CONTAINMENT, _ramp(c, threshold),
        f"verified in the warehouse: {result.matched} of {result.child_distinct} child values "
        f"found in the parent ({c:.1%}){where}",
    )


def values_agree(est: ContainmentEstimate | None, exact: ContainmentResult | None,
                 settings: DiscoverySettings) -> bool:
    if exact is not None and exact.child_distinct:
        return exact.containment >= settings.min_exact_containment
    return (est is not None and est.reliability >= VALUES.estimate_reliability_min
            and est.containment >= settings.min_estimated_containment)


def matched_surprise(child: ColInfo, parent: ColInfo, est: ContainmentEstimate | None,
                     exact: ContainmentResult | None) -> tuple[float, int, int] | None:
    """How improbable it is by chance that as many of the child's values as the parent holds
    would fall among the parent's, in decimal orders of magnitude (the ``C(n, k)`` ways to pick
    which ``k`` of the ``n`` values fall in discounted), with ``k`` and ``n``; ``None`` without
    measured values (an estimate of too little reliability is none)."""
    if not (child.has_values and parent.has_values):
        return None
    if exact is not None and exact.child_distinct:
        n, matched = exact.child_distinct, exact.matched
    elif est is not None and est.reliability >= VALUES.estimate_reliability_min:
        n = child.distinct
        matched = int(round(est.containment * n))
    else:
        return None
    if n <= 0 or matched <= 0:
        return 0.0, matched, n
    ways = log10_choose(n, matched)
    c, p = child.profile, parent.profile
    if None in (c.min_value, c.max_value, p.min_value, p.max_value) or p.distinct_approx:
        return max(0.0, overlap_surprise(child, parent, matched) - ways), matched, n
    # numbers: where the child's values lie is given (years, negative ones too, are where years
    # are); what chance must explain is that those inside the parent's range hit its keys
    on_key = key_density(keys_held(parent), p.min_value, p.max_value)
    return max(0.0, matched * -math.log10(on_key) - ways), matched, n


def surprise_evidence(chance: tuple[float, int, int]) -> Evidence | None:
    """``value_surprise`` of a pair no name or SQL vouches for: its matched values beyond chance
    (sparse keys); ``None`` where chance explains them (a dense range holds any number), the bulk
    of value candidates at warehouse scale. Its detail is written by :func:`deferred_detail`."""
    surprise = chance[0]
    if surprise <= 0.0:
        return None
    return Evidence(Signal.VALUE_SURPRISE, min(1.0, surprise / SURPRISE_FULL), "")


def _ramp(value: float, threshold: float) -> float:
    """+1 at 1.0, 0 at ``threshold``, -1 at or below ``threshold - (1 - threshold)``, or at 0 for
    a bar under one half (the partial bar): no value found is full evidence against at any bar."""
    if value >= threshold:
        return min(1.0, (value - threshold) / max(1.0 - threshold, 1e-6))
    return max(-1.0, (value - threshold) / max(min(threshold, 1.0 - threshold), 1e-6))


# -- calendars -----------------------------------------------------------------------------

def is_calendar_pair(child: ColInfo, parent: ColInfo, settings: DiscoverySettings) -> bool:
    """A column of days and a calendar's key (``settings.calendar_keys``): a date column names
    no relation, so this is what says it references one."""
    return settings.calendar_keys and keys_calendar(child, parent)


def calendar_evidence(parent: ColInfo) -> Evidence:
    return Evidence(Signal.CALENDAR_KEY, 1.0, f"a column of days; {parent.label} is the key of a calendar "
                                              f"({parent.distinct} days, one row each)")


# -- dbt SQL -------------------------------------------------------------------------------

def sql_evidence(joins: Sequence[SqlJoin]) -> Evidence:
    models = sorted({j.model for j in joins})
    clauses = sorted({j.clause.value for j in joins})
    paths = sorted({j.path.value for j in joins})
    shown = ", ".join(models[:3]) + (f" and {len(models) - 3} more" if len(models) > 3 else "")
    return Evidence(
        Signal.SQL_JOIN, 1.0,
        f"joined in {shown} ({'/'.join(clauses)}; SQL from {'/'.join(paths)})",
    )


# -- chance ----------------------------------------------------------------------------------

def keys_held(parent: ColInfo) -> float:
    """The parent's distinct keys, a sampled parent's scaled up: it holds more than it showed."""
    return parent.distinct / parent.rel.sample_fraction


def overlap_surprise(child: ColInfo, parent: ColInfo, count: int | None = None) -> float:
    """How improbable the child's values (``count`` of those the parent holds; all of them by
    default) inside the parent's are by chance (0 without values): ``value_space_surprise`` from
    their lengths, or, when the parent's numeric range is measured and holds those values, the
    lower ``range_density_surprise`` (12 months inside property ids 1..15 are no surprise,
    whatever their lengths say; three 4-digit ids inside 2001..2003 are)."""
    if not (child.has_values and parent.has_values):
        return 0.0
    prof = child.profile
    n = child.distinct if count is None else count
    by_length = value_space_surprise(n, prof.min_len, prof.max_len, parent.distinct,
                                     numeric=child.numeric_values or parent.numeric_values)
    c, p = prof, parent.profile
    if None in (c.min_value, c.max_value, p.min_value, p.max_value) or p.distinct_approx:
        return by_length
    if count is None and (c.min_value < p.min_value or c.max_value > p.max_value):
        return by_length  # (values the parent holds lie in its range whatever the child's spread)
    return min(by_length, range_density_surprise(n, round(keys_held(parent)), p.min_value, p.max_value,
                                                 prof.min_len, prof.max_len))


# -- sources ---------------------------------------------------------------------------------

def cross_source_evidence(child: ColInfo, parent: ColInfo, settings: DiscoverySettings) -> Evidence | None:
    """Against a pair whose relations come from unrelated sources (see ``features.relation_origins``);
    its detail is written by :func:`deferred_detail`, for the pairs that are reported."""
    if settings.cross_source_strictness <= 0 or not unrelated_sources(child.rel, parent.rel):
        return None
    return Evidence(Signal.CROSS_SOURCE, -settings.cross_source_strictness, "")
