"""Combine typed evidence into one confidence with an explainable breakdown.

Each signal has a weight in log-odds; an evidence item adds ``weight × strength`` (strength in
[-1, 1]); name signals together add at most :data:`NAME_CAP`; the sum plus :data:`BIAS` is squashed
by the logistic function. ``Evidence.contribution`` records each item's share, so a report can
say *why* (e.g. ``name_pattern +3.0, exact_containment +4.0, bias -3.0 -> 0.98``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from dbt_schema_link.discovery.records import NAME_SIGNALS, Evidence, Signal

#: Prior log-odds of a candidate pair being a link before any evidence.
BIAS = -3.0

#: Log-odds added by an evidence item of strength 1.0.
WEIGHTS: dict[Signal, float] = {
    Signal.NAME_EXACT: 2.5,
    Signal.NAME_PATTERN: 3.0,
    Signal.NAME_FUZZY: 1.5,
    Signal.ROLE_NAME: 2.0,
    Signal.TYPE_MATCH: 0.5,
    Signal.CARDINALITY: 1.5,
    Signal.VALUE_CONTAINMENT_ESTIMATE: 3.0,
    Signal.EXACT_CONTAINMENT: 4.0,
    Signal.SQL_JOIN: 3.5,
    Signal.CROSS_SOURCE: 4.0,  # strength is -cross_source_strictness
    # declared and lineage links are facts, not scored
    Signal.DECLARED_TEST: 0.0,
    Signal.DECLARED_CONSTRAINT: 0.0,
    Signal.SEMANTIC_ENTITY: 0.0,
    Signal.LINEAGE: 0.0,
}

#: Most log-odds that name signals may add together (exact + pattern say much the same thing).
NAME_CAP = 4.0


def score(evidence: Iterable[Evidence]) -> tuple[float, tuple[Evidence, ...]]:
    """Confidence in [0, 1] and the evidence with ``contribution`` filled in.

    An exact containment measurement supersedes the MinHash estimate (which then contributes 0).
    """
    items = list(evidence)
    has_exact = any(e.signal is Signal.EXACT_CONTAINMENT for e in items)
    raw: list[float] = []
    for e in items:
        if has_exact and e.signal is Signal.VALUE_CONTAINMENT_ESTIMATE:
            raw.append(0.0)
        else:
            raw.append(WEIGHTS[e.signal] * max(-1.0, min(1.0, e.strength)))
    name_total = sum(c for e, c in zip(items, raw) if e.signal in NAME_SIGNALS and c > 0)
    factor = NAME_CAP / name_total if name_total > NAME_CAP else 1.0
    out: list[Evidence] = []
    total = BIAS
    for e, c in zip(items, raw):
        if e.signal in NAME_SIGNALS and c > 0:
            c *= factor
        total += c
        out.append(Evidence(e.signal, e.strength, e.detail, contribution=c))
    return squash(total), tuple(out)


def squash(log_odds: float) -> float:
    if log_odds >= 0:
        return 1.0 / (1.0 + math.exp(-log_odds))
    z = math.exp(log_odds)
    return z / (1.0 + z)


def breakdown(evidence: Iterable[Evidence]) -> str:
    """One line: ``bias -3.0; name_pattern +3.0; ...`` (the sum squashes to the confidence)."""
    parts = [f"bias {BIAS:+.1f}"]
    parts += [f"{e.signal.value} {e.contribution:+.1f}" for e in evidence if e.contribution]
    return "; ".join(parts)
