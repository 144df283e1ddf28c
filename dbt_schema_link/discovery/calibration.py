"""Evidence weights of join discovery, fitted by ``benchmarks/calibrate.py`` — do not edit by
hand; rerun the script (``--write``) after changing what a signal measures.

Fitted on the tuning half of original, table_prefixed, glued, camel, upper_snake, abbreviated, kimball, hungarian, non_english, opaque (value_surprise fitted alone, the bias and every other weight held). Logistic regression with non-negative weights and an L2 penalty towards
the hand-set prior (signals the corpus barely shows keep it), one table for pairs whose
values were measured and one for pairs judged on names alone; the script prints the
reliability table of the held-back half."""

from __future__ import annotations

from dataclasses import dataclass, field

from dbt_schema_link.discovery.records import Signal


@dataclass(frozen=True)
class Table:
    """One fitted logistic model: prior log-odds, log-odds per unit of each signal's strength,
    and the most log-odds name signals may add together (``None``: no cap)."""

    bias: float
    weights: dict[Signal, float] = field(default_factory=dict)
    name_cap: float | None = None


#: 1415 scored candidate pairs, 906 of them declared foreign keys.
MEASURED = Table(bias=-4.444, weights={
    Signal.NAME_EXACT: 3.237,
    Signal.NAME_PATTERN: 2.663,
    Signal.NAME_FUZZY: 1.037,
    Signal.ROLE_NAME: 0.352,
    Signal.TYPE_MATCH: 0.000,
    Signal.CARDINALITY: 1.050,
    Signal.VALUE_CONTAINMENT_ESTIMATE: 4.004,
    Signal.EXACT_CONTAINMENT: 3.936,
    Signal.SQL_JOIN: 3.500,
    Signal.VALUE_SURPRISE: 1.491,
})


#: 572 scored candidate pairs, 459 of them declared foreign keys.
NAMES_ONLY = Table(bias=-1.943, weights={
    Signal.NAME_EXACT: 2.866,
    Signal.NAME_PATTERN: 1.229,
    Signal.NAME_FUZZY: 1.631,
    Signal.ROLE_NAME: 1.532,
    Signal.TYPE_MATCH: 0.500,
    Signal.CARDINALITY: 1.776,
    Signal.VALUE_CONTAINMENT_ESTIMATE: 3.000,
    Signal.EXACT_CONTAINMENT: 4.000,
    Signal.SQL_JOIN: 3.500,
    Signal.VALUE_SURPRISE: 1.000,
})
