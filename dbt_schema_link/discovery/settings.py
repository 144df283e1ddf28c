"""Every user-tunable threshold of join discovery, in one frozen dataclass (the strengths and
rule cut-offs the fitted weights depend on are declared in :mod:`.policy`, not tunable).

The CLI and dbt ``vars`` feed :meth:`DiscoverySettings.from_mapping`, which rejects unknown keys
and out-of-range values with a one-line message. Each field carries its valid range in its
``metadata``; the docstring under each field says what it means.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.links import CONFIDENCE_BARS


class DiscoverySettingsError(SchemaLinkError):
    """A discovery setting is unknown or out of range."""


def _num(default: float, lo: float, hi: float) -> Any:
    return field(default=default, metadata={"range": (lo, hi)})


def _flag(default: bool) -> Any:
    return field(default=default, metadata={"kind": "bool"})


def _names(default: tuple[str, ...]) -> Any:
    return field(default=default, metadata={"kind": "names"})


@dataclass(frozen=True)
class DiscoverySettings:
    """Thresholds and switches of :func:`dbt_schema_link.discovery.discover`."""

    min_confidence: float = _num(CONFIDENCE_BARS.keep_link, 0.0, 1.0)
    """Keep bar: inferred links with at least this confidence are reported (every bar:
    ``dbt_schema_link.links.ConfidenceBars``). Default 0.5, range [0, 1]."""

    parent_min_uniqueness: float = _num(0.98, 0.5, 1.0)
    """A parent (referenced) column needs distinct/non-null at least this. Default 0.98,
    range [0.5, 1]; lowered by ``approx_slack`` when the distinct count is approximate."""

    parent_max_null_fraction: float = _num(0.01, 0.0, 1.0)
    """A parent column may have at most this fraction of NULLs. Default 0.01, range [0, 1]."""

    approx_slack: float = _num(0.1, 0.0, 0.5)
    """Relative error allowed for approximate distinct counts (HyperLogLog): widens the
    uniqueness test and the child-distinct <= parent-distinct test. Default 0.1, range [0, 0.5]:
    DuckDB's estimate of n distinct values was measured up to 6.7% short at n = 15 and 7.6% at
    20,000 (20 seeds each), so a REAL key of 15 rows counted as 14 is still unique."""

    free_text_min_len: int = _num(40, 1, 1_000_000)
    """Text columns whose longest value is longer than this are free text (never a key unless
    the name is key-like). Default 40, range [1, 1e6]."""

    enum_max_distinct: int = _num(12, 1, 1_000_000)
    """A child and parent that both have at most this many distinct values are a "tiny enum"
    pair: linked only when the parent is its table's key and names agree. Default 12."""

    flag_max_distinct: int = _num(2, 1, 10)
    """Columns with at most this many distinct values drawn from flag words (0/1, y/n, true/
    false) are flags; flag pairs are a cross-product trap. Default 2, range [1, 10]."""

    lsh_threshold: float = _num(0.7, 0.05, 1.0)
    """Containment threshold of the MinHash LSH Ensemble query (child in parent) that finds
    value-only candidates. Default 0.7, range [0.05, 1]."""

    lsh_num_part: int = _num(8, 1, 64)
    """Number of set-size partitions of the LSH Ensemble. Default 8, range [1, 64]."""

    lsh_recall_weight: float = _num(0.8, 0.05, 0.95)
    """How much the LSH Ensemble's band parameters favour recall (false negatives) over
    precision (false positives); datasketch's own default is 0.5, which misses about half of the
    contained parents that are much larger than the child. Candidates are re-scored from full
    signatures anyway, so a false positive costs little. Default 0.8, range [0.05, 0.95]."""

    lsh_m: int = _num(8, 2, 64)
    """Memory/accuracy factor of the LSH Ensemble (datasketch ``m``). Default 8, range [2, 64];
    capped at the signature size."""

    lsh_max_bucket: int = _num(256, 1, 1_000_000_000)
    """An LSH band bucket shared by more indexed parents than this says nothing specific about a
    child's values (dense id ranges 1..n all share their bands) and is not read, where value
    lookups are capped (warehouses of more than ``candidates.EXACT_VALUE_LOOKUP_PARENTS``
    potential parents; in smaller ones every hit is kept). Default 256,
    range [1, 1e9]: on the 100,000-column scale benchmark it changes 7 of 161,459 value candidates
    and no link; at 1,000,000 columns reading such buckets made value lookups grow with the
    square of the warehouse. Value-only links into dense ranges are what chance produces anyway
    (``traps.find_trap``)."""

    relink_max_columns: int = _num(500_000, 0, 1_000_000_000)
    """``link`` keeps every column's scored candidates (``target/schema_link/scores.memo``) so
    that the next run scores again only what changed, in projects of at most this many columns.
    The memo is some 300 bytes per scored pair held until it is written: 80 MB on the
    100,000-column scale benchmark, 1.2 GB at 1,000,000 columns, where it would take inference past
    12 GiB. 0: never. Default 500,000, range [0, 1e9]."""

    engine_lookup_min_columns: int = _num(0, 0, 1_000_000_000)
    """In a project of at least this many columns, ``link`` runs the value lookups (the LSH
    above) as one join in the engine instead of in Python: the index's band keys go to the engine
    as files and the ``schema_link_band_candidates`` macro joins them (DuckDB and Spark, which read
    local files). The candidates are the same; what changes is where the work and memory go.
    Default 0: never (on the 100,000-column scale benchmark the Python lookups take a few seconds
    and the files alone take longer to write; see benchmarks/README.md), range [0, 1e9]."""

    min_estimated_containment: float = _num(0.9, 0.0, 1.0)
    """MinHash-estimated containment at which value evidence turns positive (full support at
    1.0); below it the evidence counts against the link. Default 0.9, range [0, 1]."""

    min_exact_containment: float = _num(0.9, 0.0, 1.0)
    """Exact (verified) containment at which the evidence turns positive (full support at 1.0;
    real foreign keys have a few orphans). Default 0.9, range [0, 1]."""

    partial_min_containment: float = _num(0.2, 0.0, 1.0)
    """Exact containment at which the evidence turns positive for a pair whose names (or a SQL
    join) already say it joins: real data has orphans (late-arriving dimensions, sample rows of a
    dev environment), so such a pair is a partial link (its orphan share in the evidence, its
    written test tolerating today's orphan rows) rather than no link; below it the names are
    contradicted by the data. Pairs without that evidence keep ``min_exact_containment``.
    Default 0.2 (chosen on the tuning half of the dirt benchmark's ``orphans`` and
    ``sampled_rows``: 0.1 and 0.2 tie there, 0.5 found 19 of 28), range [0, 1]; at or above
    ``min_exact_containment`` it changes nothing."""

    nameless_min_child_distinct: int = _num(20, 1, 1_000_000_000)
    """A value-only link (no name evidence) needs a child with at least this many distinct
    values, unless its containment is improbable by chance (``nameless_min_surprise``).
    Default 20."""

    nameless_min_surprise: float = _num(8.0, 0.0, 1000.0)
    """A value-only link is also accepted when the chance that the child's values all fall in
    the parent at random is below 10^-this (estimated from value lengths and counts).
    Default 8, range [0, 1000]."""

    range_spread_surprise: float = _num(8.0, 0.0, 1000.0)
    """A value-only numeric link is chance when the child's values span so small a part of the
    parent's range (numeric ``min_value``/``max_value`` from the profiles) that a child drawn from
    the parent's keys would spread wider with probability below 10^-this: small counters,
    quantities and sequence numbers sit at the low end of every dense surrogate range. Default 8
    (the scale of ``nameless_min_surprise``),
    range [0, 1000]; 0 turns the rule off."""

    stepped_values_surprise: float = _num(8.0, 0.0, 1000.0)
    """A value-only numeric link is chance when every value of the child is a multiple of one step
    (scores 5, 10, .., 100) that keys drawn from the parent would all be on with probability below
    10^-this (the parent's keys counted when all are known, else the multiples its range holds):
    quantities in steps fall inside every dense key range. Default 8 (the scale of
    ``nameless_min_surprise``), range [0, 1000]; 0 turns the rule off."""

    max_candidates_per_child: int = _num(8, 1, 1000)
    """At most this many parent candidates are scored per child column. Default 8."""

    max_name_candidates_per_child: int = _num(12, 1, 1000)
    """At most this many parents found by name are proposed per child column, best first by a
    cheap name prior (keeps candidate generation linear at warehouse scale). Default 12."""

    max_verify_per_child: int = _num(2, 0, 1000)
    """At most this many pairs per child column are sent to exact verification. Default 2."""

    max_verify_total: int = _num(2000, 0, 10_000_000)
    """At most this many pairs in all are sent to exact verification. Default 2000."""

    composite_max_columns: int = _num(3, 1, 3)
    """Composite keys: a child column tuple may reference a unique tuple of at most this many
    parent columns (``room(floor, code) -> bin(floor, code)``). 1: no composite keys. Default 3."""

    composite_max_candidates: int = _num(200, 0, 100_000)
    """At most this many composite candidates (child tuple, parent tuple) are checked in the
    warehouse, those with the fewest columns and the most parent rows first. Default 200."""

    composite_min_name_match: float = _num(0.5, 0.0, 1.0)
    """A composite key part no child column is named like is matched to the child column whose
    name names the parent relation at least this much (``Country`` for ``countries.CountryId``:
    the name-pattern or fuzzy strength, as in a one-column link's name evidence). Default 0.5, range [0, 1]."""

    composite_min_containment: float = _num(0.98, 0.5, 1.0)
    """A composite link needs at least this share of the child's distinct tuples in the parent
    (and the parent tuple unique). Default 0.98, range [0.5, 1]."""

    verify_min_confidence: float = _num(0.2, 0.0, 1.0)
    """Pairs scoring below this before verification are not verified. Default 0.2, [0, 1]."""

    max_parents_per_child: int = _num(1, 1, 100)
    """At most this many parent value domains are linked from one child column. Default 1."""

    max_carried_copies: int = _num(64, 0, 100_000)
    """A join holds between the lineage copies of its columns at every layer (staging copies of a
    join declared on marts, and the other way round); at most this many copy pairs are carried
    per link. 0: joins stay at the layer where they were found. Default 64."""

    max_rejected_reported: int = _num(200, 0, 1_000_000)
    """At most this many trap rejections are kept in the LinkSet for the report. Default 200."""

    cross_source_strictness: float = _num(1.0, 0.0, 1.0)
    """How much more evidence a link between two unrelated sources needs (relations in different
    source schemas, or models with no source in common upstream — often different databases).
    Above 0 such a link needs measured values that chance cannot explain (as a value-only link
    does: ``nameless_min_child_distinct`` or ``nameless_min_surprise``), never names alone; at
    1.0 it also costs 1 log-odds. 0 treats them like any other pair. Default 1.0, range [0, 1]."""

    use_names: bool = _flag(True)
    """Use name evidence and name-based candidates. Default true."""

    use_values: bool = _flag(True)
    """Use profiles (cardinality, MinHash containment, LSH candidates). Default true."""

    calendar_keys: bool = _flag(True)
    """Link a column of days (a DATE, or text holding ISO days) to a calendar: a relation keyed
    by days (its key column unique and day-valued, ``calendar.day_date``). Such a link rests on
    the values alone (a date column names no relation), verified like any other; a relation
    whose key is a surrogate integer (``date_dim.d_date_sk``) is no calendar. Default true."""

    value_fit_links: bool = _flag(True)
    """Let a few small ids that chance cannot single out name their parent by fit: at least three
    whole numbers spread over one relation's key range as keys drawn from it would, and held by
    no other key nearly as tightly (``song.provider`` 1..7 -> ``singer`` 1..8, not ``album``
    1..347); a larger child held by several keys is settled the same way. The values say which
    parent, not that the column is a reference, so such a pair stays at most 0.65, under the
    write bar (the numbers: ``policy.TRAPS``, ``policy.CAPS``).
    Default true; false leaves such pairs ``small_subset`` or ``ambiguous`` rejections."""

    use_sql: bool = _flag(True)
    """Parse models' SQL for joins and column lineage. Default true."""

    collapse_lineage: bool = _flag(True)
    """Collapse links between copies of the same columns (column lineage) into one canonical
    link. Default true."""

    table_prefixes: tuple[str, ...] = _names(
        ("stg_", "dim_", "fct_", "fact_", "raw_", "int_", "src_", "base_", "ref_", "mart_", "tbl_")
    )
    """Relation-name prefixes stripped before matching column names to relations
    (``stg_customers`` -> ``customers``). Default: stg_, dim_, fct_, fact_, raw_, int_, src_,
    base_, ref_, mart_, tbl_; any list of non-empty strings (lower-cased)."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, _check_field(f, getattr(self, f.name)))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> DiscoverySettings:
        """Build settings from a plain mapping (CLI options, dbt ``vars``); missing keys keep
        their defaults. Raises :class:`DiscoverySettingsError` on unknown keys or bad values."""
        if not data:
            return cls()
        if not isinstance(data, Mapping):
            raise DiscoverySettingsError(
                f"discovery settings must be a mapping, got {type(data).__name__}"
            )
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise DiscoverySettingsError(
                f"unknown discovery setting {unknown[0]!r} (valid: {', '.join(sorted(known))})"
            )
        values = {name: _coerce(known[name], value) for name, value in data.items()}
        return cls(**values)

    def to_mapping(self) -> dict[str, Any]:
        """Plain JSON-ready mapping; ``from_mapping(to_mapping())`` round-trips."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


def _coerce(f: dataclasses.Field, value: Any) -> Any:
    kind = f.metadata.get("kind")
    if kind == "names":
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise DiscoverySettingsError(
                f"discovery setting {f.name!r} must be a list of strings, got {value!r}"
            )
        return tuple(value)
    return value


def _check_field(f: dataclasses.Field, value: Any) -> Any:
    """Validate one field value; return it normalized (tuples, ints)."""
    kind = f.metadata.get("kind")
    if kind == "bool":
        if not isinstance(value, bool):
            raise DiscoverySettingsError(
                f"discovery setting {f.name!r} must be true or false, got {value!r}"
            )
        return value
    if kind == "names":
        if isinstance(value, list):
            value = tuple(value)
        if not isinstance(value, tuple) or not all(isinstance(v, str) and v for v in value):
            raise DiscoverySettingsError(
                f"discovery setting {f.name!r} must be a list of non-empty strings, got {value!r}"
            )
        return tuple(v.lower() for v in value)
    lo, hi = f.metadata["range"]
    is_int = isinstance(f.default, int)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DiscoverySettingsError(
            f"discovery setting {f.name!r} must be a number in [{lo}, {hi}], got {value!r}"
        )
    if is_int and (isinstance(value, float) and not value.is_integer()):
        raise DiscoverySettingsError(
            f"discovery setting {f.name!r} must be a whole number in [{lo}, {hi}], got {value!r}"
        )
    if (isinstance(value, float) and not math.isfinite(value)) or not lo <= value <= hi:
        raise DiscoverySettingsError(
            f"discovery setting {f.name!r} must be in [{lo}, {hi}], got {value!r}"
        )
    return int(value) if is_int else float(value)
