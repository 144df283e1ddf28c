"""Combine typed evidence into one confidence with an explainable breakdown.

Each signal has a weight in log-odds (the table in :mod:`calibration`, fitted on labelled
databases); an evidence item adds ``weight × strength`` (strength in [-1, 1]); the sum plus
:data:`BIAS` is squashed by the logistic function. ``Evidence.contribution`` records each item's share, so a report can
say *why* (e.g. ``name_pattern +3.0, exact_containment +4.0, bias -3.0 -> 0.98``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from dbt_schema_link.discovery.policy import UNFITTED_WEIGHTS
from dbt_schema_link.discovery.records import NAME_SIGNALS, Evidence, Signal

from dbt_schema_link.discovery import calibration
from dbt_schema_link.discovery.calibration import Table

#: Signals whose weights are fitted (``benchmarks/calibrate.py``), in the table's order.
FITTED_SIGNALS: tuple[Signal, ...] = (
    Signal.NAME_EXACT, Signal.NAME_PATTERN, Signal.NAME_FUZZY, Signal.ROLE_NAME, Signal.TYPE_MATCH,
    Signal.CARDINALITY, Signal.VALUE_CONTAINMENT_ESTIMATE, Signal.EXACT_CONTAINMENT, Signal.SQL_JOIN,
    Signal.VALUE_SURPRISE,
)

#: Signals of measured values (an exact check supersedes the estimate).
VALUE_SIGNALS = frozenset({Signal.VALUE_CONTAINMENT_ESTIMATE, Signal.EXACT_CONTAINMENT})



def table_for(measured: bool) -> Table:
    """The fitted table for a pair whose columns were profiled (``measured``) or not
    (``link --no-profile``, unprofiled relations): two fits, because the same name evidence
    means more when nothing could have been measured than when the profiles said little."""
    return calibration.MEASURED if measured else calibration.NAMES_ONLY


def weight(table: Table, signal: Signal) -> float:
    """Log-odds added by an evidence item of strength 1.0 (declared and lineage links are facts,
    not scored: weight 0)."""
    unfitted = UNFITTED_WEIGHTS.get(signal)
    return unfitted if unfitted is not None else table.weights.get(signal, 0.0)


def score(evidence: Iterable[Evidence], measured: bool = True) -> tuple[float, tuple[Evidence, ...]]:
    """Confidence in [0, 1] and the evidence with ``contribution`` filled in, by the table for
    profiled (``measured``) or unprofiled pairs.

    An exact containment measurement supersedes the MinHash estimate (which then contributes 0).
    """
    items = list(evidence)
    total, contributions = _log_odds(items, table_for(measured))
    out = tuple(Evidence(e.signal, e.strength, e.detail, contribution=c) for e, c in zip(items, contributions))
    return squash(total), out


def confidence(evidence: Sequence[Evidence], measured: bool = True) -> float:
    """``score(evidence, measured)[0]`` without the scored evidence records (discovery scores
    every candidate pair and reports a few: the records are built for those, see
    ``evaluate.Scored``)."""
    return squash(_log_odds(evidence, table_for(measured))[0])


def _log_odds(items: Sequence[Evidence], table: Table) -> tuple[float, list[float]]:
    """The summed log-odds (bias included) and each item's contribution, names capped at
    ``table.name_cap`` together."""
    weights = table.weights
    has_exact = False
    for e in items:
        if e.signal is Signal.EXACT_CONTAINMENT:
            has_exact = True
            break
    raw: list[float] = []
    name_total = 0.0
    for e in items:
        signal = e.signal
        if has_exact and signal is Signal.VALUE_CONTAINMENT_ESTIMATE:
            c = 0.0
        else:
            w = UNFITTED_WEIGHTS.get(signal)
            if w is None:
                w = weights.get(signal, 0.0)
            c = w * max(-1.0, min(1.0, e.strength))
        raw.append(c)
        if c > 0 and signal in NAME_SIGNALS:
            name_total += c
    cap = table.name_cap
    factor = cap / name_total if cap is not None and name_total > cap else 1.0
    total = table.bias
    for i, e in enumerate(items):
        c = raw[i]
        if c > 0 and e.signal in NAME_SIGNALS:
            c *= factor
            raw[i] = c
        total += c
    return total, raw


def squash(log_odds: float) -> float:
    if log_odds >= 0:
        return 1.0 / (1.0 + math.exp(-log_odds))
    z = math.exp(log_odds)
    return z / (1.0 + z)


def breakdown(evidence: Iterable[Evidence], measured: bool = True) -> str:
    """One line: ``bias -3.0; name_pattern +3.0; ...`` (the sum squashes to the confidence). The
    prior is that of the table the pair was scored by, chosen by the same rule as :func:`score`
    (``measured``: its columns were profiled; ``Link.names_only`` records the opposite)."""
    evidence = list(evidence)
    table = table_for(measured)
    parts = [f"bias {table.bias:+.1f}"]
    parts += [f"{e.signal.value} {e.contribution:+.1f}" for e in evidence if e.contribution]
    return "; ".join(parts)
