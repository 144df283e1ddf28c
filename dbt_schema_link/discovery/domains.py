"""Value domains and lineage collapse.

* A :class:`UnionFind` over column keys groups columns that share values: lineage copies
  (``stg_customers.customer_id`` is a copy of ``raw_customers.id``) and link endpoints.
* :func:`canonical_pair` picks the one link to keep among links that are copies of each other
  through lineage (same child class, same parent class).

  Decision: keep the pair **between two models of the same layer, furthest upstream** — first
  pairs whose endpoints are both dbt models (seeds, sources and snapshots come after: they are
  loaded, not modelled), then pairs on no pass-through view (a ``select *`` of one relation, as
  a package's ``_tmp`` views are: nobody tests those), then the smallest difference in DAG depth (same layer:
  ``stg_orders`` -> ``stg_customers``, not ``fct_orders`` -> ``stg_customers``), then the smallest
  depth (staging before marts), then the highest confidence, then the name order. Rationale: the
  first modelled layer where both columns exist is where dbt style puts ``relationships`` tests;
  one test there guards every downstream copy, which inherits the link through lineage (the copies
  are listed in ``Link.collapsed``). Marts are often wide, aggregated or filtered; staging is not.
* :func:`choose_anchor` anchors a domain on its primary key: the member that is a declared key,
  else the most key-like parent that is not itself a child, then the most referenced, then the
  most upstream.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass


class UnionFind:
    """Disjoint sets over hashable items (path halving, union by size)."""

    def __init__(self) -> None:
        self._parent: dict[Hashable, Hashable] = {}
        self._size: dict[Hashable, int] = {}

    def add(self, item: Hashable) -> None:
        if item not in self._parent:
            self._parent[item] = item
            self._size[item] = 1

    def find(self, item: Hashable) -> Hashable:
        """The item's set; an item never added is its own set (and is not added: discovery asks
        this of hundreds of thousands of columns that have no lineage copy)."""
        parent = self._parent
        up = parent.get(item)
        if up is None:
            return item
        while up != item:
            parent[item] = grand = parent[up]
            item, up = grand, parent[grand]
        return item

    def union(self, a: Hashable, b: Hashable) -> Hashable:
        self.add(a)
        self.add(b)
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if self._size[ra] < self._size[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra
        self._size[ra] += self._size[rb]
        return ra

    def same(self, a: Hashable, b: Hashable) -> bool:
        return self.find(a) == self.find(b)

    def groups(self) -> list[list[Hashable]]:
        out: dict[Hashable, list[Hashable]] = {}
        for item in self._parent:
            out.setdefault(self.find(item), []).append(item)
        return list(out.values())


@dataclass(frozen=True)
class PairRank:
    """What :func:`canonical_pair` needs to know about one (child, parent) pair."""

    child_depth: int
    parent_depth: int
    both_models: bool  # both endpoints are dbt models (not seeds/sources/snapshots)
    confidence: float
    name: str  # deterministic tie-breaker (e.g. "child -> parent")
    pass_through: bool = False  # an endpoint is a pass-through view (``RelInfo.pass_through``)


def canonical_pair(pairs: Sequence[PairRank]) -> int:
    """Index of the pair to keep among lineage-equivalent pairs (see module docstring)."""
    def key(i: int) -> tuple:
        p = pairs[i]
        return (
            not p.both_models,
            p.pass_through,  # the modelled layer (staging, marts) before a `select *` view of a source
            abs(p.child_depth - p.parent_depth),
            max(p.child_depth, p.parent_depth),
            -round(p.confidence, 6),
            p.name,
        )

    return min(range(len(pairs)), key=key)


@dataclass(frozen=True)
class AnchorRank:
    member: Hashable
    declared_pk: bool
    is_parent: bool
    is_child: bool  # child of a join link (an FK itself)
    pk_score: float
    in_degree: int
    depth: int
    name: str


def choose_anchor(members: Iterable[AnchorRank]) -> Hashable:
    def key(m: AnchorRank) -> tuple:
        return (
            not m.declared_pk,
            not (m.is_parent and not m.is_child),
            not m.is_parent,
            -round(m.pk_score, 6),
            -m.in_degree,
            m.depth,
            m.name,
        )

    return min(members, key=key).member
