"""The trap rules of value overlap (docs/dbt_facts.md, "Value overlap"): which candidate pairs
cannot be links whatever their score — flags, free text, tiny enums, measures, keys numbered alike,
values chance explains, values several keys hold — and :func:`spans_keys`, the fit by which a few
small ids still name their parent (capped under the write bar). One verdict per pair:
:class:`TrapCheck`, read by :mod:`.evaluate`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dbt_schema_link.discovery.evidence import (
    designates, has_name_signal, is_calendar_pair, keys_held, overlap_surprise,
)
from dbt_schema_link.discovery.features import ColInfo, numbered, unrelated_sources
from dbt_schema_link.discovery.names import RelationNames
from dbt_schema_link.discovery.policy import CAPS, KEY, NAMES, TRAPS
from dbt_schema_link.discovery.records import Evidence, Signal, Trap
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.types import TypeFamily
from dbt_schema_link.discovery.values import common_step, count_on_step, step_surprise


_NAMELESS_FAMILIES = frozenset({TypeFamily.INTEGER, TypeFamily.TEXT, TypeFamily.UUID})
#: families whose values are periods or flags: never a key (a calendar's days aside)
_NEVER_KEYS = frozenset({TypeFamily.TEMPORAL, TypeFamily.BOOLEAN})


def unconfirmable(child: ColInfo, parent: ColInfo) -> str:
    """Why the data can neither confirm nor contradict a pair ("" when it can): the child holds
    only NULLs, or the parent's uniqueness rests on ``TRAPS.tiny_parent_rows`` rows or fewer
    (every column of a one-row table is unique). Absent evidence is not evidence: such a pair
    stands on a name that designates the parent's key alone, and is never written as a test."""
    if child.all_null:
        return f"{child.label} holds only NULLs"
    rows = parent.rel.row_count
    if parent.has_values and parent.rel.few_rows:
        return f"{parent.rel.relation.short_name} has {rows} row{'s' if rows > 1 else ''}, so each of its columns is unique"
    return ""


def _names_key(child: ColInfo, parent: ColInfo, evidence: Sequence[Evidence]) -> bool:
    """The child's name designates the parent's key, what an unconfirmable pair needs: a role
    pointing at people or its own table (`assigned_to`, `parent_id`); a key name whose head names
    the parent's relation (`voucher_id` -> voucher.id, as :func:`designates` reads it); a plain
    name that is the relation's whole name (`Country` -> countries.CountryId); or, when no
    relation is named by the child's head, a key name the names rules match to the parent's key
    (`cstmtypekey` -> customer_demographics.cstmtypekey, `hero_id` -> superhero.id). Not a name
    shared with a relation that merely carries the key (`user_id` -> user_email.user_id while
    the relation `user` exists, `new_candidate_id` -> candidate_tag.candidate_id, a key named for
    the relation `candidate`), nor a shared attribute (`memo`, `close_code`)."""
    if any(e.signal is Signal.ROLE_NAME and e.strength >= NAMES.signal_min for e in evidence):
        return True
    if not parent.is_table_key():
        return False
    if child.parts.keyness < NAMES.key_name_min:
        return bool(child.parts.head_key) and parent.rel.names.named_by(child.parts.head_key)
    if designates(child, parent):
        return True
    if child.is_table_key():
        return False  # one key name on two relations' own keys: a naming habit, unless data says 1:1
    exact = any(e.signal is Signal.NAME_EXACT for e in evidence)
    # a resemblance (`payroll_file_number` ~ `profile`) designates nothing: the same name or a
    # pattern the name rules read must
    matched = any(e.signal in (Signal.NAME_EXACT, Signal.NAME_PATTERN) and e.strength >= NAMES.signal_min
                  for e in evidence)
    return (not child.names_relation and not parent.names_relation and matched
            and (not exact or parent.parts.keyness >= NAMES.key_name_min))


def _shapes_differ(child: ColInfo, parent: ColInfo) -> str:
    """Why the child's text values cannot be keys of the parent ("" when they may be): the
    parent's keys all have one width and the child's values are of other widths."""
    c, p = child.profile, parent.profile
    if c is None or p is None or not (child.has_values and parent.has_values) or TypeFamily.TEXT not in (
            child.family, parent.family):
        return ""
    if None in (c.min_len, c.max_len, p.min_len, p.max_len) or p.min_len != p.max_len:
        return ""
    if c.min_len == c.max_len == p.min_len:
        return ""
    return (f"its keys are all {p.min_len} characters long while {child.label} holds values of "
            f"{c.min_len}..{c.max_len}")


@dataclass(frozen=True)
class ValueFit:
    """How specific a child's values are: how many relations' keys contain them."""

    containers: int  # distinct relations (lineage classes) whose key contains the child's values
    tightest: bool  # this parent is the smallest of them
    margin: float  # next-smallest container's distinct count / this parent's (inf if none)
    #: the same two among other relations' keys only (a value-only link never goes to the child's
    #: own relation, so its key is no place the values were drawn from): what ``spans_keys`` reads
    drawn_tightest: bool = False
    drawn_margin: float = 1.0


@dataclass(frozen=True)
class TrapCheck:
    """What :func:`find_trap` decided about a pair: the trap that refuses it (with why), or
    none; ``by_fit`` when a value-only pair passed only because its values name the parent by fit
    (:func:`spans_keys` waived the chance or ambiguity trap): they say which parent, not that the
    column references one, so its confidence stops at ``CAPS.value_fit_only`` (:func:`fit_note`)."""

    trap: tuple[Trap, str] | None = None
    by_fit: bool = False

    @classmethod
    def refused(cls, trap: Trap, why: str) -> "TrapCheck":
        return cls((trap, why))


PASSED = TrapCheck()


def find_trap(child: ColInfo, parent: ColInfo, evidence: Sequence[Evidence],
              settings: DiscoverySettings, fit: ValueFit | None = None,
              named: bool | None = None) -> TrapCheck:
    """The cross-product traps of value overlap (docs/dbt_facts.md, "Value overlap"): flags, free text, tiny enums,
    value-only links that chance explains, and links between unrelated sources that rest on names
    alone or on values chance explains: the pair's :class:`TrapCheck` (``PASSED`` when no trap).

    A value-only link (no name, no SQL join) needs (1) a child domain that chance cannot explain:
    at least ``nameless_min_child_distinct`` values, or values improbable at random
    (``nameless_min_surprise``), and (2) specific values: only one relation's key contains them, or
    (for a large child) this parent is the tightest container by a factor of 2 — a few small
    numbers fit every dense id range — unless the values name the parent by fit (:func:`spans_keys`),
    which passes the pair ``by_fit``. ``named``: ``has_name_signal(evidence)`` when the caller has it."""
    if named is None:
        named = has_name_signal(evidence)
    joined = any(e.signal is Signal.SQL_JOIN for e in evidence)
    if parent.flag or (child.flag and not (named and parent.pk_score >= TRAPS.flag_parent_key)):
        return TrapCheck.refused(Trap.FLAG_PAIR, "flag/boolean columns overlap with any other flag")
    if parent.free_text or child.free_text:
        which = parent if parent.free_text else child
        return TrapCheck.refused(Trap.FREE_TEXT, f"{which.label} is near-unique free text "
                                                 f"(values up to {which.profile.max_len} chars)")
    if (child.has_values and parent.has_values and not joined and not parent.is_table_key()
            and child.distinct <= settings.enum_max_distinct
            and parent.distinct <= settings.enum_max_distinct):
        return TrapCheck.refused(Trap.SHARED_ENUM, f"both are tiny enums ({child.distinct} and {parent.distinct} "
                                                   f"values) and {parent.label} is not its relation's key")
    if joined:
        return PASSED
    if parent.rel.grouped and not designates(child, parent):
        # a report grouped by `sale_month` or `shop_id` has them unique by construction; the
        # entity's key (or a report the name designates: `customer_id` -> customer_summary) is
        # the parent, never a period, band or key a report happens to group by
        return TrapCheck.refused(Trap.REPORT_PARENT, (
            f"{parent.rel.relation.short_name} groups its rows (a report or aggregate), so "
            f"{parent.ref.column!r} is unique by grouping, and {child.ref.column!r} does not name it"))
    if child.counts_something:
        how = "its model's SQL computes it with an aggregate" if child.aggregate else "its name counts or sums"
        return TrapCheck.refused(Trap.MEASURE, f"{child.label} is a measure ({how}), not a key: names alone "
                                               "never make it one")
    if unrelated_sources(child.rel, parent.rel) and settings.cross_source_strictness > 0:
        # same-named small ids of two databases agree by numbering, not by reference: across
        # sources, names never suffice and the values must be more than chance explains
        surprise = overlap_surprise(child, parent)
        big = child.distinct >= settings.nameless_min_child_distinct
        if not (child.has_values and parent.has_values):
            return TrapCheck.refused(Trap.CROSS_SOURCE, f"{child.label} and {parent.label} come from unrelated "
                                                        "sources and only their names were compared")
        if not big and surprise < settings.nameless_min_surprise:
            return TrapCheck.refused(Trap.CROSS_SOURCE, (
                f"{child.label} and {parent.label} come from unrelated sources and {child.distinct} values "
                f"inside {parent.distinct} would match by chance (chance ~1e-{surprise:.1f})"))
    if _numbered_inside(child, parent) and not (named and names_whole(child, parent)):
        # a word in common (`student_course_id` -> courses.course_id) does not outweigh the
        # numbering of dense surrogate keys; a child named for the parent whole is a 1:1 split
        low, high = child.profile.min_value, child.profile.max_value
        return TrapCheck.refused(Trap.KEY_TO_KEY, (
            f"{child.label} is its own relation's key, numbered {low:g}..{high:g} without a gap inside the "
            "longer run of the key it falls in" + ("; the names share a word, not the key's name" if named else "")))
    never = [c for c in (child, parent) if c.family in _NEVER_KEYS and not c.all_null]  # all NULL: a loader's guess
    if never and not is_calendar_pair(child, parent, settings):
        return TrapCheck.refused(Trap.NOT_A_KEY, (
            f"{never[0].label} holds {never[0].family.value} values: a period or a flag, not a key, whatever its "
            "name or values (only a calendar's key of days is referenced by dates)"))
    unconfirmed = unconfirmable(child, parent)
    if unconfirmed and not _names_key(child, parent, evidence):
        # nothing the data says can confirm it, so the name must designate the parent's key:
        # `rec_end_date` says a date, `memo` a text, `voucher_id` in a bridge table a copy
        return TrapCheck.refused(Trap.EMPTY_CHILD if child.all_null else Trap.TINY_PARENT, (
            f"{unconfirmed}, so only a name that designates {parent.rel.relation.short_name}'s key "
            f"(<entity>_id -> entity.id) could link it, and {child.ref.column!r} does not"))
    shape = _shapes_differ(child, parent) if unconfirmed else ""
    if shape:
        # a sample's few keys cannot confirm, but a fixed width they all have still tells what a
        # key of theirs looks like: user names are no 32-character ids
        return TrapCheck.refused(Trap.TINY_PARENT, f"{unconfirmed}, and {shape}")
    if child.names_entity and not parent.rel.names.named_by(child.parts.head_key) and not (
            parent.is_table_key() and (child.rel.names.part_of(parent.rel.names)
                                       or child.parts.head_key in parent.entity_heads)):
        # `organization_id` references the relation `organization`, which has a key: a bridge,
        # history or line table that carries the same column is a sibling, not its parent,
        # however well the names or values match (the entity's key is there to be linked);
        # the header a line table is named for is the line's parent whatever the column says, and
        # the layer the entity is modelled from (its key's lineage) is the entity too
        return TrapCheck.refused(Trap.NAMED_ELSEWHERE, (
            f"{child.label} is named for the relation {child.parts.head_key!r}, which has a key; "
            f"{parent.rel.relation.short_name} merely carries it"))
    if named and child.parts.keyness < NAMES.key_name_min and not parent.is_table_key() \
            and not parent.declared_unique and not parent.rel.names.named_by(child.parts.head_key):
        # `address_1`, `tracking_option_name`: an attribute two relations both have; a column
        # that is no key of its relation (unique or not) is never the one side of a reference
        # the name alone makes, unless the project declares it unique (an alternate key: `sku`)
        return TrapCheck.refused(Trap.NOT_A_KEY, (
            f"{child.label} and {parent.label} share an attribute's name, and {parent.label} is not its "
            "relation's key, declared unique, nor named by the child"))
    if named:
        return PASSED
    if is_calendar_pair(child, parent, settings):
        return PASSED  # days of a calendar: the calendar holds every day, so no chance argument applies
    if child.names_relation and not parent.rel.names.named_by(child.parts.head_key):
        # `race_id` says which relation it references; small ids that another key also holds
        # say only that both are numbered from 1
        return TrapCheck.refused(Trap.NAMED_ELSEWHERE, (
            f"{child.label} is named for the relation {child.parts.head_key!r}, not "
            f"{parent.rel.relation.short_name}, and values alone never overrule a name"))
    # value-only: chance must not explain the overlap
    if child.family not in _NAMELESS_FAMILIES or parent.family not in _NAMELESS_FAMILIES:
        return TrapCheck.refused(Trap.VALUE_TYPE, f"value-only links on {child.family.value} columns need name "
                                                  "evidence")
    if child.family is not parent.family and not _measured_beyond_chance(child, parent, settings):
        # numbers kept as text (street numbers, codes) fit any dense integer key, and a text
        # child's numbers have no measured range to weigh that chance by; a type that drifted is
        # told by its name, or by a child's numbers no chance explains (sparse ids against their
        # zero-padded text copies)
        return TrapCheck.refused(Trap.VALUE_TYPE, (
            f"a value-only link from {child.family.value} to {parent.family.value} needs name evidence "
            "or measured numbers chance cannot explain"))
    if child.pk_score >= KEY.own_key_named and child.unique:  # named as its own relation's key (id, <table>_id)
        return TrapCheck.refused(Trap.KEY_TO_KEY, f"{child.label} is its own relation's key; keys numbered "
                                                  "alike overlap")
    if child.parts.generic and child.parts.keyness >= NAMES.key_name_min:
        # `id` is its own relation's identifier, repeated or not (one row per version): small
        # ids numbered from 1 fit another key by numbering, not by reference
        return TrapCheck.refused(Trap.KEY_TO_KEY, f"{child.label} is named as its own relation's id; ids "
                                                  "numbered alike overlap")
    if _named_own_key(child):
        return TrapCheck.refused(Trap.KEY_TO_KEY, (
            f"{child.label} is named as its own relation's key (repeated: one per version or row of it); "
            "ids numbered or encoded alike overlap"))
    if child.table_key and child.unique and range_spread_surprise(child, parent) > TRAPS.span_max_spread:
        # a relation's own key drawn from another's (a 1:1 extension) spreads over its range; one
        # numbered by its own sequence, gaps and all, stays at its low end (1..23 inside 1..36)
        c, p = child.profile, parent.profile
        return TrapCheck.refused(Trap.KEY_TO_KEY, (
            f"{child.label} is its own relation's key, {c.min_value:g}..{c.max_value:g}, spread over less of "
            f"{p.min_value:g}..{p.max_value:g} than keys drawn from it would be: keys numbered alike overlap"))
    if child.parts.measure:
        return TrapCheck.refused(Trap.MEASURE, f"{child.label} is a quantity whose values fall inside a key "
                                               "range")
    if child.has_values and parent.has_values:
        surprise = overlap_surprise(child, parent)
        big = child.distinct >= settings.nameless_min_child_distinct
        chance = not big and surprise < settings.nameless_min_surprise
        ambiguous = (fit is not None and fit.containers > 1
                     and not (big and fit.tightest and fit.margin >= TRAPS.tightest_margin))
        # values chance explains, or several keys hold, may still name their parent by fit (capped)
        spans = (chance or ambiguous) and spans_keys(child, parent, fit, settings)
        if chance and not spans:
            return TrapCheck.refused(Trap.SMALL_SUBSET, (
                f"{child.distinct} values inside {parent.distinct} parent keys would match by chance "
                f"(chance ~1e-{surprise:.1f}) and no name says they join"))
        spread = range_spread_surprise(child, parent)
        if settings.range_spread_surprise > 0 and spread >= settings.range_spread_surprise:
            c, p = child.profile, parent.profile
            return TrapCheck.refused(Trap.SMALL_SUBSET, (
                f"{child.distinct} values {c.min_value:g}..{c.max_value:g} fill a small part of the parent's range "
                f"{p.min_value:g}..{p.max_value:g} (keys drawn from it would spread wider; chance ~1e-{spread:.1f}) "
                "and no name says they join"))
        stepped = stepped_values(child, parent)
        if settings.stepped_values_surprise > 0 and stepped is not None \
                and stepped[1] >= settings.stepped_values_surprise:
            step, chance = stepped
            c = child.profile
            return TrapCheck.refused(Trap.MEASURE, (
                f"{child.label} holds only multiples of {step} ({c.min_value:g}..{c.max_value:g}), which "
                f"{child.distinct} of the parent's keys would all be by chance ~1e-{chance:.1f}: a quantity in "
                "steps, not a reference, and no name says they join"))
        if ambiguous and not spans:
            return TrapCheck.refused(Trap.AMBIGUOUS, (
                f"the values of {child.label} fit the keys of {fit.containers} relations and no name "
                "says which one it references"))
        if spans:
            return TrapCheck(by_fit=True)
    return PASSED


def spans_keys(child: ColInfo, parent: ColInfo, fit: ValueFit | None, settings: DiscoverySettings) -> bool:
    """A few whole numbers (``TRAPS.span_min_distinct`` or more, not the child relation's own key)
    spread over the parent's key range as keys drawn from it would (``range_spread_surprise`` at
    most ``TRAPS.span_max_spread``), and held by no other relation's key or far more likely drawn
    from this one than from the next smallest (``fit.drawn_margin ** distinct`` at least
    ``TRAPS.span_min_fit`` decimal orders).
    Small ids fit every dense key range, so chance cannot single this parent out by containment;
    the fit can: a child drawn from a wider key would rarely stop at this one's end
    (``song.provider_id`` 1..7 -> ``singer`` 1..8, not ``album`` 1..347)."""
    c, p = child.profile, parent.profile
    if not settings.value_fit_links or fit is None or not fit.drawn_tightest:
        return False
    if child.distinct < TRAPS.span_min_distinct:
        return False
    if child.table_key:
        return False  # a relation's own key numbered like another's is keyed alike, not drawn from it
    if fit.drawn_margin != math.inf and child.distinct * math.log10(fit.drawn_margin) < TRAPS.span_min_fit:
        return False
    ends = (None, None) if c is None or p is None else (c.min_value, c.max_value, p.min_value, p.max_value)
    if None in ends or not all(float(end).is_integer() for end in ends):
        return False
    return range_spread_surprise(child, parent) <= TRAPS.span_max_spread


def fit_note(child: ColInfo, parent: ColInfo) -> str:
    """Why a pair passed ``by_fit`` stops at ``CAPS.value_fit_only``."""
    c, p = child.profile, parent.profile
    return (f"; no name or SQL says they join: {child.distinct} values {c.min_value:g}..{c.max_value:g} span the "
            f"keys {p.min_value:g}..{p.max_value:g} as keys drawn from them would and no other key holds "
            "them nearly as tightly, but a quantity counted from 1 would fit as well, so values alone never "
            f"lift the confidence above {CAPS.value_fit_only:.2f}")


def _measured_beyond_chance(child: ColInfo, parent: ColInfo, settings: DiscoverySettings) -> bool:
    """The child's numbers have a measured range and chance cannot explain that the parent holds
    them (``overlap_surprise`` at least ``nameless_min_surprise``)."""
    c = child.profile
    return (c is not None and c.min_value is not None and c.max_value is not None
            and overlap_surprise(child, parent) >= settings.nameless_min_surprise)


def _numbered_inside(child: ColInfo, parent: ColInfo) -> bool:
    """Two relations' keys, each a gapless run of numbers, the child's shorter (1..18 inside
    1..25): a sequence numbers both, and the shorter run lies inside the longer whatever the rows
    are. Equal runs (1..406 and 1..406) are the same rows keyed twice: a 1:1 split."""
    return (child.table_key and bool(child.unique) and numbered(child) and numbered(parent)
            and child.distinct < parent.distinct)


def _named_own_key(child: ColInfo) -> bool:
    """Its relation's key is another column with the same key name (``i_item_id`` beside
    ``i_item_sk``): the entity's own id a second time (a business id, repeated once per version of
    an item), whatever its values. ``pk_score`` counts only unique columns."""
    head = child.parts.head_key
    return (child.parts.keyness >= NAMES.key_name_min and not child.parts.generic and bool(head)
            and any(key is not child and key.parts.head_key == head for key in child.rel.key_columns))


def names_whole(child: ColInfo, parent: ColInfo) -> bool:
    """The child's whole head (key markers aside: ``fk_employee_id``) is the parent key's head
    (``pk_employee_id``) or the parent relation's whole name (``employee_id`` -> employee.id),
    not one word of it (``student_course_id`` -> courses.course_id). A head both keys share names
    the parent only when it names the child's own relation less (``hd_demo_sk`` in
    household_demographics and ``cd_demo_sk`` in customer_demographics each abbreviate their own)."""
    head = child.parts.head_key
    if not head:
        return False
    if parent.rel.names.named_by(head):
        return True
    own = _claim(child.rel.names, head)
    return head == parent.parts.head_key and not (own > 0.0 and own >= _claim(parent.rel.names, head))


def _claim(names: RelationNames, head: str) -> float:
    """How much ``head`` names a relation: one of its name keys, or an abbreviation of one."""
    return max(names.keys.get(head, 0.0), names.abbreviation(head)[0])


def stepped_values(child: ColInfo, parent: ColInfo) -> tuple[int, float] | None:
    """The common step of the child's numbers (every one of them listed in its profile) and how
    improbable it is that as many of the parent's keys would all be on it (``step_surprise``);
    ``None`` when the child's values have no step above 1 or either side has no measured range."""
    c, p = child.profile, parent.profile
    if c is None or p is None or c.top_values is None or len(c.top_values) < child.distinct or c.distinct_approx \
            or None in (c.min_value, c.max_value, p.min_value, p.max_value):
        return None
    step = common_step(c.top_values)
    if step < 2:
        return None
    parent_on_step = None  # counted when the profile lists every key of the parent
    if p.top_values is not None and len(p.top_values) >= parent.distinct and not p.distinct_approx \
            and parent.rel.sample_fraction >= 1.0:
        parent_on_step = count_on_step(p.top_values, step)
    return step, step_surprise(child.distinct, step, round(keys_held(parent)), p.min_value, p.max_value,
                               parent_on_step)


def range_spread_surprise(child: ColInfo, parent: ColInfo) -> float:
    """-log10 of the chance that ``child.distinct`` keys drawn from the parent's numeric range
    span no more than the child's own range: high for a few small numbers at the low end of a
    large dense key range (chance containment), about 0 for a child spread like the keys it
    references. 0 when either side has no numeric range."""
    c, p = child.profile, parent.profile
    if c is None or p is None or None in (c.min_value, c.max_value, p.min_value, p.max_value):
        return 0.0
    parent_span = p.max_value - p.min_value + 1.0
    child_span = c.max_value - c.min_value + 1.0
    if parent_span <= 0 or child_span <= 0 or child_span >= parent_span or child.distinct < 2:
        return 0.0
    return -(child.distinct - 1) * math.log10(child_span / parent_span)
