"""Every knob of the question-time linker, in one frozen dataclass with a valid range per field.

Defaults were chosen on Spider dev's tuning half and BIRD superhero (no per-database or
per-question tuning) and checked on the held-back half (benchmarks/question_linking.py,
benchmarks/haystack.py). `LinkSettings(...)` and `with_overrides` reject unknown keys and
out-of-range values with a one-line message, as DiscoverySettings does for join discovery.
"""

from __future__ import annotations

import math
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.links import CONFIDENCE_BARS


class LinkSettingsError(SchemaLinkError):
    """A linker setting is unknown or out of range."""


def _num(default: float, lo: float, hi: float) -> Any:
    return field(default=default, metadata={"range": (lo, hi)})


def _checked(f: Field, value: Any) -> float | int:
    lo, hi = f.metadata["range"]
    whole = isinstance(f.default, int)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LinkSettingsError(f"linker setting {f.name!r} must be a number in [{lo}, {hi}], got {value!r}")
    if whole and not float(value).is_integer():
        raise LinkSettingsError(f"linker setting {f.name!r} must be a whole number in [{lo}, {hi}], got {value!r}")
    if not lo <= value <= hi:
        raise LinkSettingsError(f"linker setting {f.name!r} must be in [{lo}, {hi}], got {value!r}")
    return int(value) if whole else float(value)


@dataclass(frozen=True)
class LinkSettings:
    """Knobs of the linker (each field: default and valid range)."""

    # column evidence weights
    w_dense: float = _num(1.6, 0.0, 10.0)
    w_lex: float = _num(0.2, 0.0, 10.0)
    w_name: float = _num(0.3, 0.0, 10.0)
    w_value: float = _num(0.35, 0.0, 10.0)
    # relation evidence weights
    r_dense: float = _num(0.6, 0.0, 10.0)
    r_lex: float = _num(0.3, 0.0, 10.0)
    r_name: float = _num(0.8, 0.0, 10.0)
    r_best_col: float = _num(1.0, 0.0, 10.0)
    r_second_col: float = _num(0.3, 0.0, 10.0)
    # localization (its own column weights: which database is a different question from which column)
    l_lex: float = _num(0.35, 0.0, 10.0)
    l_name: float = _num(0.35, 0.0, 10.0)
    l_value: float = _num(1.2, 0.0, 10.0)  # a literal of the question found in a group's values says a lot about where to look
    l_rel_dense: float = _num(0.6, 0.0, 10.0)
    l_rel_lex: float = _num(0.3, 0.0, 10.0)
    # a relation's name counts through the unit document and its columns already; on its own it let
    # a small schema whose one table a question word names ("continents") outrank the schema holding
    # the columns (0.6 -> 0: all 20 Spider dev databases tuning 0.976 -> 0.994, held-back 0.980 unchanged;
    # haystack quick run tuning 0.974 -> 0.987, held-back 0.979 -> 0.986)
    l_rel_name: float = _num(0.0, 0.0, 10.0)
    retrieve_k: int = _num(60, 1, 100000)  # columns retrieved globally for group support
    group_top_cols: int = _num(4, 1, 1000)  # a group's score sums its best this-many retrieved column scores
    l_coverage: float = _num(0.15, 0.0, 10.0)  # group support: retrieved columns / sqrt(group columns)
    # term coverage: the idf-weighted share of the question's terms found anywhere in a unit
    # (names, descriptions, values); rare terms that one unit alone has say where to look
    l_term_cover: float = _num(1.0, 0.0, 10.0)
    # the lexical router as a feature: the unit's best router_columns column BM25 scores summed,
    # as a share of the best unit's (off: on the haystack, 0.5 raised Spider's tuning half 0.962
    # -> 0.968 and lowered the held-back half 0.965 -> 0.938); and the unit document (schema
    # summary) BM25, likewise (0.5: tuning 0.962 -> 0.968, held-back 0.965 -> 0.972; 1.0 ties 0.5
    # on the tuning half, so the smaller weight)
    l_router: float = _num(0.0, 0.0, 10.0)
    router_columns: int = _num(5, 1, 1000)
    l_unit_lex: float = _num(0.5, 0.0, 10.0)
    # field weights of a unit document (schema summary): relation names say most about a schema,
    # then its relations' descriptions, then the bag of its column names
    unit_relation_name: float = _num(1.0, 0.0, 10.0)
    unit_relation_description: float = _num(0.5, 0.0, 10.0)
    unit_column_name: float = _num(0.25, 0.0, 10.0)
    candidates: int = _num(3, 1, 100)  # groups reported
    # candidates' confidence: a softmax of their scores at this temperature (fitted on the
    # haystack's tuning half: 0.356 on the quick run, see benchmarks/README.md); below
    # sure_confidence for the first, the answer is unsure
    unit_temperature: float = _num(0.35, 0.001, 100.0)
    sure_confidence: float = _num(0.7, 0.0, 1.0)
    # selection
    max_relations: int = _num(4, 1, 100)  # terminal relations before join completion
    relation_ratio: float = _num(0.6, 0.0, 1.0)  # keep relations scoring at least this share of the best
    seed_columns: int = _num(4, 0, 100)  # relations owning the group's best this-many columns are selected too
    # a question word naming a relation (a word of its name) that no selected relation's name has
    # selects the best such relation too ("tickets ... each customer": the customer model), this many at most
    named_relations: int = _num(1, 0, 100)
    named_columns: int = _num(1, 0, 100)  # relations added because the question names one of their columns in full and a link joins them to a terminal
    column_ratio: float = _num(0.3, 0.0, 1.0)  # keep columns scoring at least this share of the best column
    max_columns: int = _num(13, 1, 1000)  # columns returned at most, join keys included (keys are never dropped)
    # wide questions: from the wide_relations-th terminal relation on, each adds wide_columns to
    # the budget, up to wide_max_columns. Off: on the haystack (database given) wide_columns=2
    # left Spider's tuning half at 0.955 strict with 10.4 columns instead of 9.9 (held-back 0.889
    # @ 8.6 -> 0.917 @ 8.9); the enterprise questions it is for are not in the data we have
    wide_relations: int = _num(3, 1, 100)
    wide_columns: int = _num(0, 0, 100)
    wide_max_columns: int = _num(20, 1, 1000)
    per_relation: int = _num(6, 1, 1000)  # non-key columns per relation at most
    w_label: float = _num(0.15, 0.0, 10.0)  # the name/title column of a model the question names (SELECT name ...)
    count_key: int = _num(1, 0, 1)  # questions that count things keep the primary key of the best model (COUNT(id))
    time_key: int = _num(1, 0, 1)  # time-grain questions ("per month", "latest") keep the best date column of the best model
    keys_in_budget: int = _num(1, 0, 1)  # join keys count against max_columns (0: keys come on top)
    # budget-aware selection: below the column_ratio floor, a column still fills the remaining
    # budget when it has real evidence of its own: a question word names it (name coverage), its
    # own text matches (BM25 share of the best column), or a question literal is one of its values
    fill_budget: int = _num(1, 0, 1)
    fill_name: float = _num(0.5, 0.0, 1.0)  # name coverage at least
    fill_lex: float = _num(0.5, 0.0, 1.0)  # lexical score (share of the best column's) at least
    fill_bridges: int = _num(1, 0, 1)  # ... also a bridge relation's columns with such evidence
    fill_per_relation: int = _num(9, 1, 1000)  # ... up to this many non-key columns of one relation (wide tables)
    max_path_cost: float = _num(8.0, 0.0, 1000.0)  # join completion: longest path searched between two terminals (a hop costs 1-3)
    contradicted_joins: int = _num(1, 0, 1)  # ... falls back on pairs the names join and the data refutes (labelled) when no link joins
    # spans: a unit is one schema (or project); a question may use a second unit joined to the first
    span_ratio: float = _num(0.9, 0.0, 1.0)  # ... when that unit's localization score is at least this share of the best's
    span_confidence: float = _num(CONFIDENCE_BARS.span_units, 0.0, 1.0)  # ... through links at or above this confidence (weaker ones never cross units)
    max_spans: int = _num(1, 0, 100)  # units an answer may add to its own

    def __post_init__(self) -> None:
        for f in fields(self):
            object.__setattr__(self, f.name, _checked(f, getattr(self, f.name)))
        if self.wide_max_columns < self.max_columns:
            raise LinkSettingsError(f"linker setting 'wide_max_columns' ({self.wide_max_columns}) must be at least "
                                    f"max_columns ({self.max_columns})")

    def with_overrides(self, overrides: dict | None) -> "LinkSettings":
        """These settings with some changed; unknown keys and out-of-range values raise
        LinkSettingsError (one line naming the setting and its range)."""
        if not overrides:
            return self
        names = {f.name for f in fields(self)}
        unknown = sorted(str(k) for k in overrides if k not in names)
        if unknown:
            raise LinkSettingsError(f"unknown linker setting {unknown[0]!r}: use one of {', '.join(sorted(names))}")
        return replace(self, **overrides)
