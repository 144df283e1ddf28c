"""Evidence weights of join discovery. Replaced by ``benchmarks/calibrate.py --write`` with
weights fitted on labelled databases; until then the hand-set weights below."""

from dbt_schema_link.discovery.records import Signal

BIAS = -3.0

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
}

#: Most log-odds name signals may add together (hand-set weights overcount names that say the
#: same thing twice; a fitted table has ``None``: the fit already weighs them jointly).
NAME_CAP: float | None = 4.0
