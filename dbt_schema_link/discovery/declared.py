"""Links dbt already states: declared tests, constraints and semantic entities, and the tests
`write` generated (kept as WRITTEN, scored from the data again)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from dbt_schema_link.artifacts.records import DeclaredLink, LinkOrigin
from dbt_schema_link.confidence import confidence_text
from dbt_schema_link.discovery.features import Features
from dbt_schema_link.discovery.materialise import cardinality, ordered
from dbt_schema_link.discovery.records import Cardinality, Evidence, Link, Provenance, Signal, round4


_ORIGIN_SIGNAL = {
    LinkOrigin.RELATIONSHIPS_TEST: Signal.DECLARED_TEST,
    LinkOrigin.RELATIONSHIPS_WHERE_TEST: Signal.DECLARED_TEST,
    LinkOrigin.FK_CONSTRAINT: Signal.DECLARED_CONSTRAINT,
    LinkOrigin.SEMANTIC_ENTITY: Signal.SEMANTIC_ENTITY,
}


def declared_links(declared: Sequence[DeclaredLink], features: Features) -> list[Link]:
    merged: dict[tuple, list] = {}
    for d in declared:
        merged.setdefault((d.child.key(), d.parent.key()), []).append(d)
    out: list[Link] = []
    for key in sorted(merged):
        items = merged[key]
        first = items[0]
        origins = tuple(sorted({d.origin for d in items}, key=lambda o: o.value))
        evidence = tuple(
            Evidence(_ORIGIN_SIGNAL[o], 1.0, _origin_detail(o, [d.source_id for d in items if d.origin is o]))
            for o in origins
        )
        child = features.col(first.child)
        out.append(Link(
            child=first.child, parent=first.parent, provenance=Provenance.DECLARED, confidence=1.0,
            cardinality=cardinality(child) if child else Cardinality.MANY_TO_ONE,
            evidence=ordered(evidence), origins=origins,
        ))
    return out


def _origin_detail(origin: LinkOrigin, sources: list) -> str:
    ids = sorted(s for s in sources if s)
    what = {
        LinkOrigin.RELATIONSHIPS_TEST: "relationships test",
        LinkOrigin.RELATIONSHIPS_WHERE_TEST: "relationships_where test",
        LinkOrigin.FK_CONSTRAINT: "foreign_key constraint",
        LinkOrigin.SEMANTIC_ENTITY: "semantic model entity",
    }[origin]
    return f"declared by {what}" + (f" {', '.join(ids[:3])}" if ids else "")


def mark_written(inferred: list[Link], written: Sequence[DeclaredLink], scored: dict,
                  features: Features) -> tuple[list[Link], int]:
    """Inferred links that are tests `write` generated become WRITTEN (confidence: what the data
    says now; ``written_confidence``: what the test recorded). A written test the data no longer
    supports is kept as a WRITTEN link at the confidence its pair scores now (0 when it is not a
    candidate any more), so every stage shows it and none uses it as a join. Returns the links
    and how many written tests are unsupported."""
    by_pair: dict[tuple, DeclaredLink] = {}
    for d in sorted(written, key=lambda d: (str(d.child), str(d.parent), d.source_id or "")):
        by_pair.setdefault((d.child.key(), d.parent.key()), d)
    found: set[tuple] = set()
    out: list[Link] = []
    for link in inferred:
        hits = [key for c, p in link.pairs() if (key := (c.key(), p.key())) in by_pair]
        if hits:
            found.update(hits)
            d = by_pair[hits[0]]
            link = replace(link, provenance=Provenance.WRITTEN, written_confidence=d.written_confidence,
                           evidence=ordered(link.evidence + (_written_evidence(d),)))
        out.append(link)
    unsupported = 0
    for key in sorted(by_pair):
        if key in found:
            continue
        d = by_pair[key]
        s = scored.get(key)
        now = s.confidence if s is not None and s.block is None and s.trap is None else 0.0
        evidence = (s.evidence if s is not None else ()) + (_written_evidence(d), Evidence(
            Signal.WRITTEN_TEST, -1.0, "not inferred from the data now" + (f" ({s.trap[1]})" if s and s.trap else "")))
        child = features.col(d.child)
        out.append(Link(
            child=d.child, parent=d.parent, provenance=Provenance.WRITTEN, confidence=round4(now),
            cardinality=cardinality(child) if child else Cardinality.MANY_TO_ONE,
            evidence=ordered(evidence), written_confidence=d.written_confidence,
            names_only=s is not None and not s.measured,
        ))
        unsupported += 1
    return out, unsupported


def _written_evidence(d: DeclaredLink) -> Evidence:
    at = confidence_text(d.written_confidence) if d.written_confidence is not None else "an unrecorded confidence"
    return Evidence(Signal.WRITTEN_TEST, 0.0, f"written by dbt-schema-link at {at}" + (f" ({d.source_id})" if d.source_id else ""))
