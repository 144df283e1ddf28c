"""Evidence and scores of candidate pairs: how specific a child's values are to each parent
(:func:`value_fits`), the evidence, block and trap of one pair (:func:`evaluate`), and the cap on
candidates per child. Pure: the exact results, when there are any, are passed in."""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from dbt_schema_link.discovery.candidates import Candidate
from dbt_schema_link.discovery.domains import UnionFind
from dbt_schema_link.discovery.evidence import (
    Block, RelationMatches, calendar_evidence, cardinality_evidence, cross_source_evidence, deferred_detail,
    exact_evidence, has_name_signal, is_calendar_pair, matched_surprise, name_evidence, sql_evidence,
    surprise_evidence, type_evidence, value_evidence, values_agree,
)
from dbt_schema_link.discovery.features import ColInfo
from dbt_schema_link.discovery.policy import CAPS, CARDINALITY, NAMES, TYPES, VALUES
from dbt_schema_link.discovery.records import Evidence, Signal, Trap
from dbt_schema_link.discovery.scoring import VALUE_SIGNALS, confidence, score
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.traps import (
    PASSED, ValueFit, find_trap, fit_note, names_whole, range_spread_surprise, unconfirmable,
)
from dbt_schema_link.discovery.values import ContainmentEstimate
from dbt_schema_link.profiling.records import ContainmentResult


@dataclass(eq=False, slots=True)
class Scored:
    cand: Candidate
    raw: tuple[Evidence, ...]  # the evidence as weighed, contributions not filled in
    confidence: float  # for a pending TYPES_NEED_VALUES block: the confidence if values agree
    block: Block | None
    trap: tuple[Trap, str] | None
    estimate: ContainmentEstimate | None
    exact: ContainmentResult | None
    measured: bool = True  # values were profiled and the child is not all NULL (which table applies)
    _scored: tuple[Evidence, ...] | None = field(default=None, repr=False)

    @property
    def evidence(self) -> tuple[Evidence, ...]:
        """The evidence with each item's contribution, made when first asked: every candidate
        is scored, few are reported (hundreds of thousands of pairs at warehouse scale)."""
        if self._scored is None:
            child, parent = self.cand.child, self.cand.parent
            raw = [deferred_detail(e, child, parent, self.estimate) for e in self.raw]
            self._scored = score(raw, self.measured)[1]
        return self._scored


def value_fits(cands: dict, estimates: dict, exacts: dict, settings: DiscoverySettings,
                lineage_uf: UnionFind) -> dict:
    """For every candidate, how specific the child's values are (see ``ValueFit``)."""
    containers: dict[tuple, dict[object, int]] = {}
    others: dict[tuple, dict[object, int]] = {}  # other relations' keys only
    for key, cand in cands.items():
        parent = cand.parent
        if not parent.is_table_key() or not parent.has_values:
            continue
        if not values_agree(estimates.get(key), exacts.get(key), settings):
            continue
        if settings.range_spread_surprise > 0 and \
                range_spread_surprise(cand.child, parent) >= settings.range_spread_surprise:
            continue  # the child spreads too narrowly to have been drawn from it: not where it comes from
        cls = lineage_uf.find(parent.key)
        for held in (containers,) if parent.rel is cand.child.rel else (containers, others):
            per_class = held.setdefault(cand.child.key, {})
            per_class[cls] = min(per_class.get(cls, parent.distinct), parent.distinct)
    # every key that holds the values says how far chance explains them (a child's own key
    # holding them too: any dense range would); the one it was drawn from is another relation's
    every, drawn = _two_smallest(containers), _two_smallest(others)
    fits = {}
    for key, cand in cands.items():
        fit = _fit(cand, containers, every, lineage_uf)
        if fit is not None:
            _, drawn_tightest, drawn_margin = _fit(cand, others, drawn, lineage_uf) or (0, False, 1.0)
            fits[key] = ValueFit(*fit, drawn_tightest=drawn_tightest, drawn_margin=drawn_margin)
    return fits


def _two_smallest(containers: dict) -> dict:
    """Each child's two smallest containers (one pass, not one per candidate over every container)."""
    return {child: tuple(heapq.nsmallest(2, per_class.items(), key=lambda item: item[1]))
            for child, per_class in containers.items()}


def _fit(cand: Candidate, containers: dict, smallest: dict,
         lineage_uf: UnionFind) -> tuple[int, bool, float] | None:
    """How many keys (lineage classes) hold the child's values, whether this parent is the
    smallest of them, and the next smallest's distinct count over this one's."""
    per_class = containers.get(cand.child.key)
    if not per_class:
        return None
    own = lineage_uf.find(cand.parent.key)
    mine = per_class.get(own, cand.parent.distinct)
    # the nearest other container: the smallest unless that is this parent's own class
    nearest = next((n for cls, n in smallest[cand.child.key] if cls != own), None)
    return (len(per_class) if own in per_class else len(per_class) + 1,
            nearest is None or mine <= nearest,
            float("inf") if nearest is None else nearest / max(mine, 1))


def evaluate(cand: Candidate, settings: DiscoverySettings, est: ContainmentEstimate | None,
              fit: ValueFit | None, exact: ContainmentResult | None = None,
              matches: RelationMatches | None = None, checked: bool = False) -> Scored:
    """The evidence, block, trap and confidence of one pair. ``checked``: exact verification ran
    (the second pass), so a measured pair without a result is capped as unverified."""
    child, parent = cand.child, cand.parent
    # a loaded child column with no value (all NULL) leaves nothing to check: absent evidence is
    # not contrary evidence, the pair is judged on names. A relation never loaded (no rows)
    # keeps the measured table: names-only linked an empty relation's columns to loaded keys by
    # a shared word (non_english northwind, 2026-12-06)
    measured = (child.has_values or parent.has_values) and not child.all_null
    # types and cardinality first: a pair they rule out is never ranked, verified or reported
    # (the bulk of candidates at warehouse scale), so its names are not weighed at all
    typed = type_evidence(child, parent, values_agree(est, exact, settings))
    card = cardinality_evidence(child, parent, settings)
    if isinstance(typed, Block) and typed is not Block.TYPES_NEED_VALUES:
        return Scored(cand, (), 0.0, typed, None, est, exact, measured)
    names = name_evidence(child, parent, matches) if settings.use_names and card is not Block.PARENT_NOT_UNIQUE else []
    # a relation's own key whose name is as much its own relation's (`cd_demo_sk` beside
    # `hd_demo_sk`) is no child whose surplus could be orphans
    wider = card is Block.CHILD_WIDER and has_name_signal(names) and not (
        child.table_key and child.unique and not names_whole(child, parent))
    if wider:  # the surplus may be orphans
        card = cardinality_evidence(child, parent, settings, vouched=True)
    if isinstance(card, Block) and wider:
        # kept (blocked) with its names, so the rejections report what the schema says
        return Scored(cand, tuple(names), 0.0, card, None, est, exact, measured)
    if isinstance(card, Block):
        return Scored(cand, (), 0.0, card, None, est, exact, measured)
    evidence: list[Evidence] = list(names)
    if cand.joins:
        evidence.append(sql_evidence(cand.joins))
    named = has_name_signal(evidence)
    if not named and is_calendar_pair(child, parent, settings):
        evidence.append(calendar_evidence(parent))
    joined = bool(cand.joins)
    block: Block | None = None
    pending = False
    if typed is Block.TYPES_NEED_VALUES and (named or joined) and _partially_agree(exact, settings):
        # text against numbers that names vouch for: orphans make the check partial, not refuted
        typed = type_evidence(child, parent, True)
    if typed is Block.TYPES_NEED_VALUES:
        pending = True
        evidence.append(Evidence(Signal.TYPE_MATCH, TYPES.values_agree, f"{child.family.value} and {parent.family.value}: "
                                                          "the values must agree"))
    else:
        evidence.append(typed)
    if wider:
        card = _orphans_measured(child, parent, card, est, exact, settings)
    evidence.append(card)
    # no name or SQL: how far chance explains the values the parent holds is evidence itself,
    # and values beyond chance make orphans a partial link as names do (13 of 14 sparse ids)
    chance = None if named or joined else matched_surprise(child, parent, est, exact)
    vouched = named or joined or (chance is not None and chance[0] >= settings.nameless_min_surprise)
    if est is not None:
        evidence.append(value_evidence(child, parent, est, settings, vouched=vouched))
    if exact is not None and exact.child_distinct:
        evidence.append(exact_evidence(child, parent, exact, settings, vouched=vouched))
    surprising = surprise_evidence(chance) if chance is not None else None
    if surprising is not None:
        evidence.append(surprising)
    against = cross_source_evidence(child, parent, settings)
    if against is not None and not joined:
        evidence.append(against)
    if not named and not joined and block is None:
        if not parent.is_table_key() or child.rel is parent.rel:
            block = Block.PARENT_NOT_KEY  # value-only links go to another relation's key
        elif est is None and exact is None:
            block = Block.PARENT_NOT_KEY  # nothing but a type match
    check = find_trap(child, parent, evidence, settings, fit, named) if block is None else PASSED
    if pending and block is None:
        block = Block.TYPES_NEED_VALUES
    unconfirmed = unconfirmable(child, parent) if block is None and check.trap is None else ""
    if unconfirmed and measured:
        # a parent of a few rows holds a sample of its keys: whatever share of the child it
        # holds says nothing either way, so the name that passed the trap is weighed alone
        evidence, measured = _noted([e for e in evidence if e.signal not in VALUE_SIGNALS],
                                    _sample_note(exact)), False
    conf = confidence(evidence, measured)
    if (named or joined) and measured and block is None and _short_of_containment(child, parent, exact, settings):
        # orphans short of full containment neither confirm nor contradict what the names say (a
        # sampled or late-arriving parent): the pair never scores below the names alone, as an
        # all-NULL child would, and the verified share stays in the evidence and the orphans
        alone = [e for e in evidence if e.signal not in VALUE_SIGNALS]
        if confidence(alone, False) > conf:
            evidence, measured = _noted(alone, _partial_note(exact)), False
            conf = confidence(evidence, measured)
    if checked and measured and (exact is None or not exact.child_distinct):
        conf = min(conf, CAPS.unverified)
    if exact is not None and exact.child_distinct and exact.containment < settings.min_exact_containment:
        # orphans are a sample's only where the name refers to the parent (or SQL joins them):
        # two columns sharing an attribute's name (`index`, `code`) overlap in part by chance
        shared_only = named and not joined and not _refers(child, parent)
        conf = min(conf, CAPS.failed_check if shared_only else CAPS.partial)
    if unconfirmed and conf > CAPS.unconfirmed:
        conf = CAPS.unconfirmed
        evidence = _noted(evidence, f"; named, no data to check: {unconfirmed}, so the data can neither confirm "
                                    f"nor contradict the name, and the confidence stops at {CAPS.unconfirmed:.2f} "
                                    "(under the write bar)")
    if check.by_fit and block is None:
        conf = min(conf, CAPS.value_fit_only)
        evidence = _noted(evidence, fit_note(child, parent))
    return Scored(cand, tuple(evidence), _capped(conf, evidence), block, check.trap, est, exact, measured)


def _noted(evidence: list[Evidence], note: str) -> list[Evidence]:
    """``evidence`` with ``note`` added to its measured containment (the exact check's, else the
    cardinality's), the item a reader looks at for why values alone stop where they do."""
    at = next((i for i, e in enumerate(evidence) if e.signal is Signal.EXACT_CONTAINMENT),
              next(i for i, e in enumerate(evidence) if e.signal is Signal.CARDINALITY))
    return evidence[:at] + [replace(evidence[at], detail=evidence[at].detail + note)] + evidence[at + 1:]


def _orphans_measured(child, parent, card: Evidence, est: ContainmentEstimate | None,
                      exact: ContainmentResult | None, settings: DiscoverySettings) -> Evidence:
    """A named child wider than its parent, once its values are measured: when the contained
    share reaches the partial bar, the surplus is the measured orphans (their share is the
    containment evidence's), so the parent is the unique one side as for any other child;
    below it the neutral strength stands (``policy.CARDINALITY.orphans``)."""
    if exact is not None and exact.child_distinct:
        share, how = exact.containment, "verified"
    elif est is not None:
        share, how = est.containment, "estimated"
    else:
        return card
    if share < settings.partial_min_containment:
        return card
    orphans = max(0, round(child.distinct * (1.0 - share)))
    return Evidence(Signal.CARDINALITY, CARDINALITY.base + CARDINALITY.per_key * parent.pk_score,
                    f"parent unique ({parent.distinct} distinct); child {child.distinct} distinct, of which "
                    f"~{orphans} ({1.0 - share:.0%}, {how}) are orphans absent from the parent")


def _partially_agree(exact: ContainmentResult | None, settings: DiscoverySettings) -> bool:
    """The exact check found enough of the child's values for a partial link (the bar orphans
    are allowed under when names vouch): text and number values that agree that far are one key."""
    return (exact is not None and exact.child_distinct > 0
            and exact.containment >= min(settings.partial_min_containment, settings.min_exact_containment))


def _short_of_containment(child: ColInfo, parent: ColInfo, exact: ContainmentResult | None,
                          settings: DiscoverySettings) -> bool:
    """The exact check found the child's values partly in the parent (at least the partial bar,
    below which the names are contradicted; short of ``min_exact_containment``), the child's name
    refers to the parent (a key name to its relation's key, or the relation's own name: not a
    shared attribute such as ``phone``) and its numbers stay inside the parent's key range (as
    ``VALUES.partial_range_slack`` allows): a sample's orphans, not another numbering."""
    if not (exact is not None and exact.child_distinct > 0
            and settings.partial_min_containment <= exact.containment < settings.min_exact_containment):
        return False
    refers = _refers(child, parent)
    c, p = child.profile, parent.profile
    if not refers or c is None or p is None:
        return refers
    if None in (c.min_value, c.max_value, p.min_value, p.max_value):
        return True
    slack = VALUES.partial_range_slack * (p.max_value - p.min_value + 1.0)
    return p.min_value - slack <= c.min_value and c.max_value <= p.max_value + slack


def _refers(child: ColInfo, parent: ColInfo) -> bool:
    """The child's name refers to the parent: a key name to its relation's key, or the
    relation's own name (not a shared attribute such as ``phone`` or ``index``)."""
    return (parent.is_table_key() and child.parts.keyness >= NAMES.key_name_min) or \
        parent.rel.names.named_by(child.parts.head_key)


def _sample_note(exact: ContainmentResult | None) -> str:
    if exact is None or not exact.child_distinct:
        return "; its values are not weighed"
    return (f"; the exact check found {exact.matched} of {exact.child_distinct} child values in the parent, "
            "which is not weighed")


def _partial_note(exact: ContainmentResult) -> str:
    return (f"; the exact check found {exact.matched} of {exact.child_distinct} child values in the parent "
            f"({exact.containment:.1%}): short of containment, not contradicted, so the names decide")


def _capped(conf: float, evidence: list[Evidence]) -> float:
    """A failed exact check caps the confidence (``policy.CAPS``): names and SQL cannot outweigh it."""
    for e in evidence:
        if e.signal is Signal.EXACT_CONTAINMENT and e.strength < 0:
            return min(conf, CAPS.failed_check)
    return conf


def cap_per_child(scored: Iterable[Scored], cap: int) -> dict:
    """The ``cap`` best-ranked pairs of each child, keyed by pair, children in the order they
    first come. Consumes ``scored`` as it comes and holds at most ``cap`` per child meanwhile, so
    the pairs evaluated and dropped are never all held at once (millions at warehouse scale).
    The ranking is a total order (a child's parents differ) and an equal rank goes after the
    ones before it, as a stable sort would place it: the same pairs in the same order."""
    by_child: dict[tuple, list[Scored]] = {}
    for s in scored:
        items = by_child.get(s.cand.child.key)
        if items is None:
            items = by_child[s.cand.child.key] = []
        bisect.insort_right(items, s, key=_rank_key)
        if len(items) > cap:
            items.pop()
    return {s.cand.key: s for items in by_child.values() for s in items}


def _rank_key(s: Scored) -> tuple[float, str]:
    return -_rank_value(s), str(s.cand.parent.ref)


def _rank_value(s: Scored) -> float:
    """Order of candidates of one child: usable ones first, by confidence."""
    if s.block in (None, Block.TYPES_NEED_VALUES) and s.trap is None:
        return 1.0 + s.confidence
    return s.confidence if s.block is None else 0.0
