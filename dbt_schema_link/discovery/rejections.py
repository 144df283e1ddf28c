"""Rejections worth reporting in links.json: traps that left a child without a link, and pairs
the names join and the data contradicts."""

from __future__ import annotations

from dbt_schema_link.discovery.domains import UnionFind
from dbt_schema_link.discovery.evaluate import Scored
from dbt_schema_link.discovery.evidence import has_name_signal
from dbt_schema_link.discovery.records import Link, Rejection, Trap, round4
from dbt_schema_link.discovery.scoring import VALUE_SIGNALS, confidence
from dbt_schema_link.discovery.selection import sort_key
from dbt_schema_link.discovery.settings import DiscoverySettings


def rejections(scored: dict, settings: DiscoverySettings, links: list[Link],
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
        if child_class not in best or sort_key(s) > sort_key(best[child_class]):
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
