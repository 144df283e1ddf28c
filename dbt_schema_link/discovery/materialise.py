"""Scored candidates -> :class:`Link` records: cardinality, orphans, evidence in report order."""

from __future__ import annotations

from dbt_schema_link.discovery.evaluate import Scored
from dbt_schema_link.discovery.features import ColInfo
from dbt_schema_link.discovery.policy import KEY
from dbt_schema_link.discovery.records import Cardinality, Evidence, Link, Orphans, Provenance, Signal, round4
from dbt_schema_link.profiling.records import ContainmentResult


def cardinality(child: ColInfo) -> Cardinality:
    if child.unique is not None:
        return Cardinality.ONE_TO_ONE if child.unique else Cardinality.MANY_TO_ONE
    return Cardinality.ONE_TO_ONE if child.pk_score >= KEY.one_to_one_min else Cardinality.MANY_TO_ONE


def inferred_link(s: Scored, collapsed: tuple) -> Link:
    return Link(
        child=s.cand.child.ref, parent=s.cand.parent.ref,
        provenance=Provenance.SQL if s.cand.joins else Provenance.INFERRED,
        confidence=round4(s.confidence), cardinality=cardinality(s.cand.child),
        evidence=ordered(s.evidence), collapsed=tuple(sorted(collapsed)), orphans=_orphans(s.exact),
        names_only=not s.measured,
    )


def _orphans(exact: ContainmentResult | None) -> Orphans | None:
    """The orphans the exact check found (None: none, or not checked)."""
    if exact is None or not exact.child_distinct or exact.matched >= exact.child_distinct:
        return None
    return Orphans(exact.child_distinct - exact.matched, exact.child_distinct, exact.orphan_rows)


def ordered(evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """Evidence in Signal order, numbers at links.json precision."""
    order = {sig: i for i, sig in enumerate(Signal)}
    return tuple(
        Evidence(e.signal, round4(e.strength), e.detail, round4(e.contribution))
        for e in sorted(evidence, key=lambda e: (order[e.signal], e.detail))
    )
