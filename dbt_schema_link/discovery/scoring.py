"""Combine typed evidence into one confidence with an explainable breakdown.

Each signal has a weight in log-odds (the table in :mod:`calibration`, fitted on labelled
databases); an evidence item adds ``weight × strength`` (strength in [-1, 1]); the sum plus
:data:`BIAS` is squashed by the logistic function. ``Evidence.contribution`` records each item's share, so a report can
say *why* (e.g. ``name_pattern +3.0, exact_containment +4.0, bias -3.0 -> 0.98``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from dbt_schema_link.discovery.records import NAME_SIGNALS, Evidence, Signal

from dbt_schema_link.discovery import calibration

#: Prior log-odds of a candidate pair being a link before any evidence (see ``calibration``).
BIAS = calibration.BIAS

#: Signals whose weights are fitted (``benchmarks/calibrate.py``), in the table's order.
FITTED_SIGNALS: tuple[Signal, ...] = (
    Signal.NAME_EXACT, Signal.NAME_PATTERN, Signal.NAME_FUZZY, Signal.ROLE_NAME, Signal.TYPE_MATCH,
    Signal.CARDINALITY, Signal.VALUE_CONTAINMENT_ESTIMATE, Signal.EXACT_CONTAINMENT, Signal.SQL_JOIN,
)

#: Log-odds a link between unrelated sources loses at full ``cross_source_strictness``: a policy
#: (labelled corpora are one database each, so there is nothing to fit it on), not a fitted weight.
CROSS_SOURCE_WEIGHT = 1.0

#: Log-odds added by an evidence item of strength 1.0 (declared and lineage links are facts,
#: not scored: weight 0).
WEIGHTS: dict[Signal, float] = {
    **{s: 0.0 for s in Signal}, **{s: calibration.WEIGHTS[s] for s in FITTED_SIGNALS},
    Signal.CROSS_SOURCE: CROSS_SOURCE_WEIGHT,
}

#: Most log-odds that name signals may add together (``None``: no cap).
NAME_CAP = calibration.NAME_CAP


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
    factor = NAME_CAP / name_total if NAME_CAP is not None and name_total > NAME_CAP else 1.0
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
