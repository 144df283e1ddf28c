"""The profiling options: one schema (names, kinds, defaults, ranges, docs) for every option of
the `link_schemas` macro, and `ProfileOptions`, the part the CLI sends (docs/envelope.md).

The macro's defaults and checks (`macros/schema_link_option_schema.sql`) are generated from
`OPTION_SCHEMA` (`python -m dbt_schema_link.package_macros`) and the argument docs of
`macros/link_schemas.yml` are checked against it (tests/profiling/test_option_schema.py), so
a range or default lives here only.
"""

from __future__ import annotations

import enum
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from dbt_schema_link.errors import SchemaLinkError


class OptionKind(enum.Enum):
    INTEGER = "integer"
    NUMBER = "number"
    BOOL = "bool"
    NAMES = "names"  # a list of unique_ids or names (one string reads as a list of one)


#: The dbt macro-properties type each kind is documented as in link_schemas.yml.
_YML_TYPES = {
    OptionKind.INTEGER: "optional[integer]",
    OptionKind.NUMBER: "optional[float]",
    OptionKind.BOOL: "optional[bool]",
    OptionKind.NAMES: "optional[list[string]]",
}


@dataclass(frozen=True)
class OptionSpec:
    name: str
    kind: OptionKind
    default: Any
    doc: str  # one sentence for link_schemas.yml, no range or default (those are added)
    low: float | None = None  # inclusive bounds of a number; None for other kinds
    high: float | None = None
    default_doc: str | None = None  # the default in words where the value says little (none)

    @property
    def yml_type(self) -> str:
        return _YML_TYPES[self.kind]

    def yml_description(self) -> str:
        """The argument's description in link_schemas.yml: the doc, its range, its default."""
        facts = []
        if self.low is not None:
            facts.append(f"{_number_text(self.low)} to {_number_text(self.high)}")
        facts.append(f"default {self.default_doc or _default_text(self.default)}")
        return f"{self.doc} ({', '.join(facts)})."

    def check(self, value: Any) -> None:
        """Raise a one-line error naming the option and its valid range when `value` is outside it."""
        if self.kind in (OptionKind.INTEGER, OptionKind.NUMBER):
            integer = self.kind is OptionKind.INTEGER
            ok = (not isinstance(value, bool) and isinstance(value, (int, float))
                  and math.isfinite(value) and (not integer or float(value).is_integer())
                  and self.low <= value <= self.high)
            if not ok:
                what = "an integer" if integer else "a number"
                raise SchemaLinkError(f"profiling option {self.name}={value!r} is out of range: use {what} in "
                                      f"[{_number_text(self.low)}, {_number_text(self.high)}]")
        elif self.kind is OptionKind.BOOL and not isinstance(value, bool):
            raise SchemaLinkError(f"profiling option {self.name}={value!r} must be true or false")


def _number_text(value: float | None) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _default_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return _number_text(value)


#: Every option of `link_schemas`, in its argument order.
OPTION_SCHEMA: tuple[OptionSpec, ...] = (
    OptionSpec("select", OptionKind.NAMES, None,
               "Unique_ids, node names or `source_name.table_name` to profile", default_doc="all of the root project"),
    OptionSpec("exclude", OptionKind.NAMES, None, "Same form as `select`; these are left out", default_doc="none"),
    # below 8 buckets a one-permutation signature cannot tell containment from chance
    OptionSpec("k", OptionKind.INTEGER, 128, "MinHash signature size, in buckets per column", 8, 1024),
    OptionSpec("sample_rows", OptionKind.INTEGER, 1_000_000,
               "Relations with more (estimated) rows than this are sampled", 1, 1_000_000_000_000),
    OptionSpec("sample_percent", OptionKind.NUMBER, 10.0,
               "Percent of each column's values a sampled relation keeps (by hash), or on Redshift, Snowflake and BigQuery of its rows",
               0.0001, 100.0),
    OptionSpec("sample_seed", OptionKind.INTEGER, 42, "Seed of the repeatable sample", 0, 2_147_483_647),
    # the whole domain of a column of up to 500 values, so that a question's literal ("flights from
    # Aberdeen") grounds on the column holding it; the envelope carries the values on one log line,
    # so both stay bounded
    OptionSpec("top_n", OptionKind.INTEGER, 500,
               "How many most frequent values to report for low-cardinality columns", 0, 1000),
    OptionSpec("top_max_distinct", OptionKind.INTEGER, 500,
               "Columns with at most this many distinct values report `top_values`", 0, 10_000),
    # one statement per chunk: a GROUPING SETS / UNION of more columns than this is a planner's worry
    OptionSpec("max_columns_per_query", OptionKind.INTEGER, 60,
               "Wide relations are profiled in chunks of this many columns", 1, 1000),
    OptionSpec("envelope", OptionKind.BOOL, True, "Print the envelope lines; false prints only the summary"),
    OptionSpec("suggest", OptionKind.BOOL, True,
               "Verify name/type-based join candidates and print them as relationships YAML"),
    OptionSpec("min_containment", OptionKind.NUMBER, 0.98, "Minimum exact containment for a suggestion", 0.0, 1.0),
    OptionSpec("packages", OptionKind.NAMES, None,
               "Installed packages whose models, seeds, snapshots and sources are profiled too; `[all]` for every one",
               default_doc="none, the root project only"),
)

SPECS: dict[str, OptionSpec] = {s.name: s for s in OPTION_SCHEMA}


@dataclass(frozen=True)
class SamplingSettings:
    """How a value-coordinated sample (sample_method 'values') profiles a column; generated into
    `schema_link__sampling_settings` with the option schema."""

    #: The values above the threshold fall into this many groups by hash; a column whose every group
    #: holds one value is still profiled exactly. A column of d values has two in one group with
    #: probability about d**2 / (2 * groups): 14% at 35 values with 4,096 groups (measured: 65,536
    #: groups cost twice as much per high-cardinality column).
    recovery_groups: int = 4096

    def __post_init__(self) -> None:
        if not 1 <= self.recovery_groups <= 1 << 24:
            raise SchemaLinkError(f"sampling recovery_groups={self.recovery_groups} must be in [1, {1 << 24}]")


SAMPLING = SamplingSettings()


def _default(name: str) -> Any:
    return SPECS[name].default


@dataclass(frozen=True)
class ProfileOptions:
    """The options the CLI sends to the macro (and keys its profile cache on); meanings and
    ranges in `OPTION_SCHEMA`."""

    k: int = _default("k")
    sample_rows: int = _default("sample_rows")
    sample_percent: float = _default("sample_percent")
    top_n: int = _default("top_n")
    top_max_distinct: int = _default("top_max_distinct")
    max_columns_per_query: int = _default("max_columns_per_query")

    def __post_init__(self) -> None:
        for f in fields(self):
            SPECS[f.name].check(getattr(self, f.name))

    def macro_args(self) -> dict:
        return asdict(self)
