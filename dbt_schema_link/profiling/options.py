"""Profiling options passed to the `link_schemas` macro (see docs/envelope.md for meanings)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from dbt_schema_link.errors import SchemaLinkError


@dataclass(frozen=True)
class ProfileOptions:
    #: MinHash signature size (hash functions per column). More = tighter containment estimates.
    k: int = 128
    #: Relations with more rows than this are sampled.
    sample_rows: int = 1_000_000
    #: Bernoulli sample size, in percent of rows, for sampled relations.
    sample_percent: float = 10.0
    #: How many frequent values to report for low-cardinality columns.
    top_n: int = 10
    #: Columns with at most this many distinct values report their frequent values.
    top_max_distinct: int = 50
    #: Wide relations are profiled in chunks of this many columns (still one statement each).
    max_columns_per_query: int = 60

    def __post_init__(self) -> None:
        checks = [
            ("k", 8 <= self.k <= 1024, "8..1024"),
            ("sample_rows", self.sample_rows >= 1, ">= 1"),
            ("sample_percent", 0 < self.sample_percent <= 100, "0 < p <= 100"),
            ("top_n", 0 <= self.top_n <= 100, "0..100"),
            ("top_max_distinct", 0 <= self.top_max_distinct <= 10_000, "0..10000"),
            ("max_columns_per_query", 1 <= self.max_columns_per_query <= 1000, "1..1000"),
        ]
        for name, ok, valid in checks:
            if not ok:
                raise SchemaLinkError(f"profiling option {name}={getattr(self, name)!r} is out of range: use {valid}")

    def macro_args(self) -> dict:
        return asdict(self)
