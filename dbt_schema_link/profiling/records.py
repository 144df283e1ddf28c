"""Typed records for in-warehouse profiles (what the `link_schemas` macro measures)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

#: MinHash minima are 64-bit warehouse hashes; signed ones (PostgreSQL) are mapped to unsigned.
HASH_MASK = (1 << 64) - 1

#: Values (canonical text, case-insensitive) a flag column holds: the macros count the values
#: outside this list in the warehouse (generated into `schema_link__discovery_rules`) and
#: discovery decides, by `flag_max_distinct`, which such columns are flags.
FLAG_WORDS = frozenset({"0", "1", "t", "f", "true", "false", "y", "n", "yes", "no", "-1", "on", "off"})


class Signature(Sequence[int]):
    """A column's K MinHash minima (unsigned 64-bit), held as one read-only uint64 array.

    A warehouse's profiles hold 100,000s of signatures: as tuples of Python ints they took five
    times the memory (a third of inference's peak on the 100,000-column benchmark), and discovery
    compares them as arrays anyway (``numpy.asarray`` gives the array itself, no copy). Reads as
    a sequence of ints, equal to any tuple or list of the same ints."""

    __slots__ = ("_values",)

    def __init__(self, values: Iterable[int] | np.ndarray) -> None:
        array = values.astype(np.uint64, copy=True) if isinstance(values, np.ndarray) \
            else np.array(list(values), dtype=np.uint64)
        array.flags.writeable = False
        self._values = array

    @classmethod
    def of_array(cls, array: np.ndarray) -> Signature:
        """A signature over ``array`` itself (uint64, owned by no one else: it is made read-only)."""
        out = cls.__new__(cls)
        array.flags.writeable = False
        out._values = array
        return out

    @property
    def array(self) -> np.ndarray:
        return self._values

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if (dtype is None or np.dtype(dtype) == self._values.dtype) and not copy:
            return self._values
        return self._values.astype(dtype or self._values.dtype, copy=True)

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[int, ...]: ...

    def __getitem__(self, index: int | slice) -> int | tuple[int, ...]:
        if isinstance(index, slice):
            return tuple(self._values[index].tolist())
        return int(self._values[index])

    def __iter__(self) -> Iterator[int]:
        return iter(self._values.tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Signature):
            return bool(np.array_equal(self._values, other._values))
        if isinstance(other, (tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))  # equal to the tuple of the same ints, as __eq__ says

    def __repr__(self) -> str:
        return f"Signature({tuple(self)!r})"

    def __reduce__(self) -> tuple:
        return (Signature, (tuple(self),))


@dataclass(frozen=True)
class ColumnProfile:
    name: str
    data_type: str | None
    non_null: int
    distinct: int
    distinct_approx: bool
    min_len: int | None
    max_len: int | None
    minhash: Signature | None  # K minima, unsigned 64-bit (any sequence of ints is taken); None when no values
    top_values: tuple[str, ...] | None  # most frequent first; None unless low-cardinality
    #: a measured fact, no threshold: the column has values and every distinct one is a flag
    #: word (FLAG_WORDS), or its type is boolean; discovery applies `flag_max_distinct`
    flag_words: bool
    skipped: str | None = None  # reason the column was not profiled
    # one-permutation MinHash: positions whose bucket was empty and were densified from another
    # (no ordering between two columns' values holds there); empty for k-permutation signatures
    minhash_borrowed: frozenset[int] = frozenset()
    # numeric columns only (schema_link_numeric_type); None elsewhere and on adapters without them
    min_value: float | None = None
    max_value: float | None = None

    def __post_init__(self) -> None:
        if self.minhash is not None and not isinstance(self.minhash, Signature):
            object.__setattr__(self, "minhash", Signature(self.minhash))

    @property
    def uniqueness(self) -> float:
        """distinct / non-null values (1.0 = unique). Approximate counts can exceed 1: clamp."""
        if self.non_null <= 0:
            return 0.0
        return min(1.0, self.distinct / self.non_null)


class SampleMethod(str, enum.Enum):
    """How a relation above `sample_rows` was sampled (macro schema_link_sample_method)."""

    ROWS = "rows"  # a sample of rows: the statistics describe about sample_percent of them
    #: every row read; each column kept the values whose hash is below one threshold shared by every
    #: column (sample_percent of the hash range), so a child's and its parent's samples hold the same
    #: values: row counts are exact, distinct counts already scaled, signatures need no scaling
    VALUES = "values"


@dataclass
class RelationProfile:
    unique_id: str
    relation: str
    row_count: int
    sampled: bool
    sample_percent: float | None
    columns: dict[str, ColumnProfile] = field(default_factory=dict)  # keyed by lower-case name
    sample_method: SampleMethod | None = None  # None unless sampled; ROWS for profiles without one

    @property
    def row_fraction(self) -> float:
        """Fraction of the rows the statistics describe: below 1.0 only for a sample of rows."""
        if self.sampled and self.sample_percent and self.sample_method is not SampleMethod.VALUES:
            return max(1e-6, min(1.0, self.sample_percent / 100.0))
        return 1.0

    def column(self, name: str) -> ColumnProfile | None:
        return self.columns.get(name.lower())

    def null_fraction(self, name: str) -> float:
        col = self.column(name)
        if col is None or self.row_count <= 0:
            return 1.0
        return 1.0 - min(1.0, col.non_null / self.row_count)


@dataclass(frozen=True)
class ProfileFailure:
    unique_id: str
    message: str


@dataclass(frozen=True)
class ContainmentResult:
    child: str
    child_column: str
    parent: str
    parent_column: str
    child_distinct: int
    matched: int
    #: child rows whose value the parent lacks (None: not measured, an older package's macro)
    orphan_rows: int | None = None

    @property
    def containment(self) -> float:
        return self.matched / self.child_distinct if self.child_distinct else 0.0


@dataclass(frozen=True)
class TupleContainmentResult:
    """Exact containment of a child column tuple in a parent's (macro schema_link_tuple_containment),
    and whether the parent tuple is a unique key: the parent's rows all hold distinct tuples with
    no NULL part."""

    child: str
    child_columns: tuple[str, ...]
    parent: str
    parent_columns: tuple[str, ...]
    child_distinct: int  # distinct child tuples with no NULL part
    matched: int  # of them, found among the parent's tuples
    orphan_rows: int  # child rows whose tuple the parent lacks
    parent_rows: int
    parent_distinct: int  # distinct parent tuples with no NULL part

    @property
    def containment(self) -> float:
        return self.matched / self.child_distinct if self.child_distinct else 0.0

    @property
    def parent_unique(self) -> bool:
        return self.parent_rows > 0 and self.parent_distinct == self.parent_rows


@dataclass
class ProfileSet:
    adapter: str
    k: int
    package_version: str
    relations: dict[str, RelationProfile] = field(default_factory=dict)
    failures: list[ProfileFailure] = field(default_factory=list)
    #: relations whose profile this run took from a dbt build's on-run-end hook (build_log.py)
    from_build: list[str] = field(default_factory=list)
    #: relations this run profiled in the warehouse itself
    profiled: list[str] = field(default_factory=list)
