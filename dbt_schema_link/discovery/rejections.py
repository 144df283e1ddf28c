"""Rejections worth reporting in links.json: traps that left a child without a link, and pairs
names or SQL join that only their values keep out (contradicted, or short of containment)."""

from __future__ import annotations

from dbt_schema_link.discovery.domains import UnionFind
from dbt_schema_link.discovery.evaluate import Scored
from dbt_schema_link.discovery.evidence import Block, has_name_signal
from dbt_schema_link.discovery.records import Link, Rejection, Trap, round4
from dbt_schema_link.discovery.scoring import VALUE_SIGNALS, confidence
from dbt_schema_link.discovery.selection import sort_key
from dbt_schema_link.discovery.settings import DiscoverySettings


def rejections(scored: dict, settings: DiscoverySettings, links: list[Link],
                lineage_uf: UnionFind) -> list[Rejection]:
    """Trap rejections worth reporting: the best one per child lineage class that got no link
    (a trap that lost to a real link changed nothing), leaving out keys that are parents of links;
    a child whose names or SQL join are kept out only by values is reported so instead (the pair
    the schema means, which join completion may use, rather than the trap a lesser pair hit)."""
    cls = lineage_uf.find
    linked_children = {cls(link.child.key()) for link in links}
    linked_children |= {cls(c.key()) for link in links for c, _ in link.collapsed}
    parents = {cls(link.parent.key()) for link in links}
    shortfalls = _containment_rejections(scored, settings, linked_children, cls)
    linked_children |= {cls(r.child.key()) for r in shortfalls}
    best: dict[object, tuple[tuple, Scored]] = {}  # child class -> (sort key, pair)
    for s in scored.values():
        if s.trap is None or s.block is not None or s.confidence < settings.min_confidence:
            continue
        child_class = cls(s.cand.child.key)
        if child_class in linked_children or (s.trap[0] is Trap.KEY_TO_KEY and child_class in parents):
            continue
        rank = sort_key(s)
        if child_class not in best or rank > best[child_class][0]:
            best[child_class] = (rank, s)
    items = sorted((s for _, s in best.values()), key=lambda s: (-s.confidence, str(s.cand.child.ref)))
    out = [
        Rejection(s.cand.child.ref, s.cand.parent.ref, s.trap[0], s.trap[1], round4(s.confidence))
        for s in items[: settings.max_rejected_reported]
    ]
    room = max(0, settings.max_rejected_reported - len(out))
    return out + shortfalls[:room]


def _containment_rejections(scored: dict, settings: DiscoverySettings, taken: set, cls) -> list[Rejection]:
    """Pairs names or a SQL join say join, rejected only because their values fall short: reported
    so a reader (and join completion) still sees what the schema says, never a link or a written
    test. ``CONTRADICTED``: named, and the exact check finds (almost) none of the child's values (a
    dev environment, sample data, a half-loaded source); ``CONTAINMENT_FAILED``: any other pair
    whose measured containment (verified, or estimated when unchecked) or disagreeing text/number
    values keep it under the bar. One per child class, the pair names alone would score highest;
    ``would_be_confidence`` is that score without the values."""
    best: dict[object, tuple[float, Scored, Trap, float, bool]] = {}
    for s in scored.values():
        if s.trap is not None or s.block not in (None, Block.TYPES_NEED_VALUES, Block.CHILD_WIDER):
            continue
        measured = _containment(s)
        if measured is None:
            continue
        share, verified = measured
        named = has_name_signal(s.raw)
        if not named and not s.cand.joins:
            continue
        kind = _shortfall(s, share, verified, named, settings)
        if kind is None:
            continue
        child_class = cls(s.cand.child.key)
        if child_class in taken:
            continue
        names_only = confidence([e for e in s.raw if e.signal not in VALUE_SIGNALS], s.measured)
        if names_only < settings.min_confidence:
            continue
        if child_class not in best or names_only > best[child_class][0]:
            best[child_class] = (names_only, s, kind, share, verified)
    out = []
    for names_only, s, kind, share, verified in sorted(best.values(), key=lambda x: (-x[0], str(x[1].cand.child.ref))):
        out.append(Rejection(s.cand.child.ref, s.cand.parent.ref, kind, _shortfall_detail(s, kind, share, verified),
                             round4(names_only), containment=share, verified=verified))
    return out


def _containment(s: Scored) -> tuple[float, bool] | None:
    """The share of child values in the parent and whether the exact check measured it."""
    if s.exact is not None and s.exact.child_distinct:
        return s.exact.containment, True
    if s.estimate is not None:
        return s.estimate.containment, False
    if s.block is Block.CHILD_WIDER:  # at most the parent's width of the child's values
        child, parent = s.cand.child, s.cand.parent
        return min(1.0, parent.distinct / max(child.distinct, 1)), False
    return None


def _shortfall(s: Scored, share: float, verified: bool, named: bool, settings: DiscoverySettings) -> Trap | None:
    """Which containment reason rejected the pair (``None``: its values did not keep it out)."""
    contradicted_below = min(settings.partial_min_containment, settings.min_exact_containment)
    if verified and named and s.block is None and share < contradicted_below:
        return Trap.CONTRADICTED
    if s.block in (Block.TYPES_NEED_VALUES, Block.CHILD_WIDER) or s.confidence < settings.min_confidence:
        return Trap.CONTAINMENT_FAILED
    return None


def _shortfall_detail(s: Scored, kind: Trap, share: float, verified: bool) -> str:
    e = s.exact
    if kind is Trap.CONTRADICTED:
        return f"named, contradicted by data: {e.matched} of {e.child_distinct} child values found in the parent"
    named = has_name_signal(s.raw)
    who = "named and joined in SQL" if named and s.cand.joins else "named" if named else "joined in SQL"
    if verified:
        what = f"the exact check found {e.matched} of {e.child_distinct} child values in the parent ({share:.1%})"
    elif s.block is Block.CHILD_WIDER and s.estimate is None:
        child, parent = s.cand.child, s.cand.parent
        what = (f"the child has {child.distinct} distinct values and the parent {parent.distinct}: "
                f"at most {share:.0%} are in it, {1.0 - share:.0%} or more would be orphans")
    else:
        what = f"MinHash estimates {share:.0%} of the child values in the parent (not verified)"
    types = ""
    if s.block is Block.TYPES_NEED_VALUES:
        child, parent = s.cand.child, s.cand.parent
        types = f"; {child.family.value} and {parent.family.value} join only when the values agree"
    return f"{who}, values fall short: {what}{types}"
