"""The one link record, from discovery to agents, and the one reader of ``links.json``.

A :class:`Link` says that the child column's values reference the parent column (FK -> key), how
sure we are (``confidence``), why (typed ``evidence``) and where it comes from (``provenance``):

- ``declared``: a person wrote it (a relationships test, a foreign-key constraint, a semantic
  entity);
- ``written``: a relationships test ``dbt-schema-link write`` generated. It is never promoted to
  declared: it keeps the confidence it was written with (``written_confidence``) and is inferred
  from the data again on every ``link``, so its ``confidence`` is what the data says now;
- ``inferred``: found from names, types and values; ``sql``: inferred, and the project's own SQL
  joins the two columns;
- ``lineage``: the child is a pass-through copy of the parent (never a join).

Every stage reads this record: discovery makes it, ``links.json`` stores it
(:func:`read_links_file` is its only reader, strict about ``format_version``), the writers,
the question index, ``ask`` and the MCP tools take views of it. Bottom layer: imports only the
artifact records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from dbt_schema_link.artifacts.records import ColumnRef, LinkOrigin
from dbt_schema_link.confidence import confidence_text
from dbt_schema_link.errors import ArtifactError

LINKS_FORMAT = "dbt_schema_link/links"
#: 2: ``provenance`` and ``written_confidence`` on every link (1 had only ``kind``); 3: a composite
#: key's further column pairs (``extra_pairs``), absent on single-column links.
LINKS_FORMAT_VERSION = 3
#: Versions this package reads: a version-2 file is a version-3 file without composite links.
READABLE_LINKS_VERSIONS = frozenset({2, LINKS_FORMAT_VERSION})


class LinkSetFormatError(ArtifactError):
    """A links JSON document is not of a format/version this package reads."""


class Provenance(str, Enum):
    """Where a link comes from (see the module docstring)."""

    DECLARED = "declared"
    WRITTEN = "written"
    INFERRED = "inferred"
    SQL = "sql"
    LINEAGE = "lineage"

    @property
    def is_join(self) -> bool:
        return self is not Provenance.LINEAGE

    @property
    def kind(self) -> "LinkKind":
        """The coarse kind (declared / inferred / lineage): a written link is an inferred one that
        was written, a SQL link an inferred one the project's SQL confirms."""
        return _KIND_OF[self]


class LinkKind(str, Enum):
    """Coarse kind, kept in links.json beside ``provenance`` for readers that only need it."""

    INFERRED = "inferred"
    DECLARED = "declared"
    LINEAGE = "lineage"


_KIND_OF = {
    Provenance.DECLARED: LinkKind.DECLARED, Provenance.WRITTEN: LinkKind.INFERRED,
    Provenance.INFERRED: LinkKind.INFERRED, Provenance.SQL: LinkKind.INFERRED, Provenance.LINEAGE: LinkKind.LINEAGE,
}


class Cardinality(str, Enum):
    """child -> parent. ``code`` is dbterd's short spelling, ``meta_value`` its long one (what
    dbterd reads from a relationships test's ``meta.relationship_type``)."""

    MANY_TO_ONE = "many_to_one"
    ONE_TO_ONE = "one_to_one"
    ONE_TO_MANY = "one_to_many"
    MANY_TO_MANY = "many_to_many"
    ZERO_TO_ONE = "zero_to_one"
    ZERO_TO_MANY = "zero_to_many"

    @property
    def code(self) -> str:
        return _CODES[self]

    @property
    def meta_value(self) -> str:
        return self.value.replace("_", "-")

    @property
    def phrase(self) -> str:
        """For column descriptions: ``many-to-one``."""
        return self.meta_value

    @classmethod
    def parse(cls, value: "str | Cardinality") -> "Cardinality":
        """The enum value, dbterd's short code (``n1``) or long form (``many-to-one``)."""
        if isinstance(value, Cardinality):
            return value
        text = str(value).strip().lower().replace("-", "_")
        for member in cls:
            if text in (member.value, member.code):
                return member
        valid = ", ".join(f"{m.code}/{m.meta_value}" for m in cls)
        raise ValueError(f"unknown relationship type {value!r}: use one of {valid}")


_CODES = {
    Cardinality.MANY_TO_ONE: "n1", Cardinality.ONE_TO_ONE: "11", Cardinality.ONE_TO_MANY: "1n",
    Cardinality.MANY_TO_MANY: "nn", Cardinality.ZERO_TO_ONE: "01", Cardinality.ZERO_TO_MANY: "0n",
}


@dataclass(frozen=True)
class ConfidenceBars:
    """Every confidence bar of the product, named for what it decides, in one place. Each is the
    default of a validated setting where the decision is made:

    - ``keep_link`` (0.5): discovery reports an inferred link at or above it
      (``DiscoverySettings.min_confidence``, ``--set min_confidence=``);
    - ``write_test`` (0.7): ``write`` makes a relationships test of a link at or above it
      (``vars: {schema_link: {write: {min_confidence}}}``, ``write --min-confidence``); a link
      ``write`` wrote is joined on by ``ask``/MCP only while the data still scores it at least
      the project's write bar (``linker.service.written_min_confidence``);
    - ``span_units`` (0.9): ``ask`` joins a second localization unit (schema) only through a link
      at or above it (``LinkSettings.span_confidence``);
    - ``list_links`` (0.0): the MCP ``list_links`` filter (its ``min_confidence`` argument).

    Confidences are calibrated (benchmarks/calibrate.py): on held-back data links at >= 0.7 were
    about 97% real foreign keys. Every other edge of the join graph is used at any confidence,
    weighted ``1 - ln(confidence)``.
    """

    keep_link: float = 0.5
    write_test: float = 0.7
    span_units: float = 0.9
    list_links: float = 0.0


CONFIDENCE_BARS = ConfidenceBars()


class Signal(str, Enum):
    """One kind of evidence about a (child, parent) column pair."""

    NAME_EXACT = "name_exact"
    NAME_PATTERN = "name_pattern"
    NAME_FUZZY = "name_fuzzy"
    ROLE_NAME = "role_name"
    TYPE_MATCH = "type_match"
    CARDINALITY = "cardinality"
    VALUE_CONTAINMENT_ESTIMATE = "value_containment_estimate"
    EXACT_CONTAINMENT = "exact_containment"
    SQL_JOIN = "sql_join"
    CROSS_SOURCE = "cross_source"  # against: child and parent come from unrelated sources
    CALENDAR_KEY = "calendar_key"  # a column of days and a relation keyed by days
    #: for a pair no name or SQL vouches for: how improbable its matched values are by chance
    VALUE_SURPRISE = "value_surprise"
    DECLARED_TEST = "declared_test"
    DECLARED_CONSTRAINT = "declared_constraint"
    SEMANTIC_ENTITY = "semantic_entity"
    WRITTEN_TEST = "written_test"  # a test `write` generated, with the confidence it was written at
    LINEAGE = "lineage"


#: Signals that say something about names (their log-odds are capped together).
NAME_SIGNALS = frozenset({Signal.NAME_EXACT, Signal.NAME_PATTERN, Signal.NAME_FUZZY, Signal.ROLE_NAME})


def round4(x: float) -> float:
    """The precision of numbers in links.json (so a record equals its JSON round trip)."""
    return round(float(x), 4) + 0.0  # + 0.0 turns -0.0 into 0.0


@dataclass(frozen=True, slots=True)  # millions per warehouse-scale discovery: no __dict__ each
class Evidence:
    """One piece of evidence. ``strength`` is in [-1, 1] (negative: against the link);
    ``contribution`` is the log-odds it added to the confidence (0 for declared/lineage)."""

    signal: Signal
    strength: float
    detail: str
    contribution: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "signal": self.signal.value,
            "strength": round4(self.strength),
            "contribution": round4(self.contribution),
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Evidence:
        return cls(
            signal=Signal(data["signal"]),
            strength=float(data["strength"]),
            detail=str(data.get("detail", "")),
            contribution=float(data.get("contribution", 0.0)),
        )


Pair = tuple[ColumnRef, ColumnRef]


def provenance_text(provenance: Provenance, confidence: float, written_confidence: float | None = None) -> str:
    """How people are told where a link comes from, with its confidence (links.md, ask, MCP)."""
    now = confidence_text(confidence)
    if provenance is Provenance.WRITTEN:
        at = confidence_text(written_confidence) if written_confidence is not None else "?"
        return f"written by dbt-schema-link at {at}, confidence now {now}"
    if provenance is Provenance.DECLARED:
        return f"declared, confidence {now}"
    if provenance is Provenance.SQL:
        return f"inferred and joined in the project's SQL, confidence {now}"
    return f"{provenance.value}, confidence {now}"


@dataclass(frozen=True)
class Orphans:
    """Child values the exact check found absent from the parent: a partial link (a late-arriving
    dimension, a half-loaded source). A test written for it tolerates today's ``rows``."""

    values: int  # distinct child values absent from the parent
    of_values: int  # distinct child values checked
    rows: int | None = None  # child rows holding them (None: not measured)

    @property
    def share(self) -> float:
        return self.values / self.of_values if self.of_values else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"values": self.values, "of_values": self.of_values, "rows": self.rows}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Orphans:
        rows = data.get("rows")
        return cls(int(data["values"]), int(data["of_values"]), None if rows is None else int(rows))


@dataclass(frozen=True)
class Link:
    """child -> parent: the child column's values reference the parent column (FK -> key).

    For LINEAGE links the child is the downstream copy and the parent the upstream column.
    ``extra_pairs`` are a composite key's further (child column, parent column) pairs, in key
    order after (``child``, ``parent``): ``room(floor, code) -> bin(floor, code)`` is child
    ``room.floor``, parent ``bin.floor`` and ``extra_pairs`` ``((room.code, bin.code),)``; the tuple
    of child columns references the parent's unique tuple (empty for a single-column link).
    ``collapsed`` lists the other (child, parent) pairs the same join holds between: the lineage
    copies of its two columns at every layer (staging, intermediate, marts), folded into it so the
    join is reported once.
    """

    child: ColumnRef
    parent: ColumnRef
    provenance: Provenance
    confidence: float
    cardinality: Cardinality
    evidence: tuple[Evidence, ...] = ()
    domain: str | None = None
    origins: tuple[LinkOrigin, ...] = ()
    collapsed: tuple[Pair, ...] = ()
    written_confidence: float | None = None  # WRITTEN: the confidence the test was written with
    orphans: Orphans | None = None  # measured orphan child values (None: none found or not checked)
    #: scored by the names-only weight table (neither column was profiled, the child holds only
    #: NULLs, or its verified values fall short of containment without contradicting the names);
    #: the breakdown in links.md picks its table by this, the rule ``scoring.score`` applies
    names_only: bool = False
    extra_pairs: tuple[Pair, ...] = ()  # a composite key's further column pairs (see above)

    @property
    def kind(self) -> LinkKind:
        return self.provenance.kind

    @property
    def is_join(self) -> bool:
        return self.provenance.is_join

    def pairs(self) -> tuple[Pair, ...]:
        """The link's own pair, then the pairs it holds between through lineage copies."""
        return ((self.child, self.parent),) + self.collapsed

    @property
    def is_composite(self) -> bool:
        return bool(self.extra_pairs)

    def column_pairs(self) -> tuple[Pair, ...]:
        """Every (child column, parent column) pair of the key, in key order (one for a single column)."""
        return ((self.child, self.parent),) + self.extra_pairs

    def columns_text(self) -> str:
        """``room(floor, code) -> bin(floor, code)``; ``room.floor -> bin.floor`` for one column."""
        if not self.extra_pairs:
            return f"{self.child} -> {self.parent}"
        pairs = self.column_pairs()
        return (f"{self.child.relation}({', '.join(c.column for c, _ in pairs)}) -> "
                f"{self.parent.relation}({', '.join(p.column for _, p in pairs)})")

    def has(self, signal: Signal) -> bool:
        return any(e.signal is signal for e in self.evidence)

    def provenance_text(self) -> str:
        return provenance_text(self.provenance, self.confidence, self.written_confidence)

    def sort_key(self) -> tuple:
        return (_KIND_ORDER[self.kind], self.child.relation, self.child.column.lower(),
                self.parent.relation, self.parent.column.lower(),
                tuple((c.column.lower(), p.column.lower()) for c, p in self.extra_pairs))

    def to_json(self) -> dict[str, Any]:
        out = {
            "child": ref_json(self.child),
            "parent": ref_json(self.parent),
            "provenance": self.provenance.value,
            "kind": self.kind.value,
            "confidence": round4(self.confidence),
            "written_confidence": None if self.written_confidence is None else round4(self.written_confidence),
            "cardinality": self.cardinality.value,
            "domain": self.domain,
            "origins": [o.value for o in self.origins],
            "evidence": [e.to_json() for e in self.evidence],
            "collapsed": [
                {"child": ref_json(c), "parent": ref_json(p)} for c, p in self.collapsed
            ],
        }
        if self.orphans is not None:  # only partial links carry it (older files stay as they were)
            out["orphans"] = self.orphans.to_json()
        if self.names_only:  # only links scored without profiles carry it
            out["names_only"] = True
        if self.extra_pairs:  # only composite links carry it
            out["extra_pairs"] = [{"child": ref_json(c), "parent": ref_json(p)} for c, p in self.extra_pairs]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Link:
        written = data.get("written_confidence")
        return cls(
            child=ref_from(data["child"]),
            parent=ref_from(data["parent"]),
            provenance=Provenance(data["provenance"]),
            confidence=float(data["confidence"]),
            cardinality=Cardinality(data["cardinality"]),
            evidence=tuple(Evidence.from_json(e) for e in data.get("evidence", ())),
            domain=data.get("domain"),
            origins=tuple(LinkOrigin(o) for o in data.get("origins", ())),
            collapsed=tuple(
                (ref_from(c["child"]), ref_from(c["parent"])) for c in data.get("collapsed", ())
            ),
            written_confidence=None if written is None else float(written),
            orphans=Orphans.from_json(data["orphans"]) if data.get("orphans") else None,
            names_only=bool(data.get("names_only", False)),
            extra_pairs=tuple(
                (ref_from(c["child"]), ref_from(c["parent"])) for c in data.get("extra_pairs", ())
            ),
        )


_KIND_ORDER = {LinkKind.DECLARED: 0, LinkKind.INFERRED: 1, LinkKind.LINEAGE: 2}


def ref_json(ref: ColumnRef) -> dict[str, str]:
    return {"relation": ref.relation, "column": ref.column}


def ref_from(data: Mapping[str, Any]) -> ColumnRef:
    return ColumnRef(str(data["relation"]), str(data["column"]))


def parse_links_document(data: Any, where: str = "links file") -> Mapping[str, Any]:
    """Check a parsed links document's format and version (strict: an old file is one error
    naming the command that rewrites it)."""
    if not isinstance(data, Mapping) or data.get("format") != LINKS_FORMAT:
        raise LinkSetFormatError(f"{where} is not a {LINKS_FORMAT} document (missing or wrong 'format'): "
                                 f"run `dbt-schema-link link` again")
    version = data.get("format_version")
    if version not in READABLE_LINKS_VERSIONS:
        readable = ", ".join(str(v) for v in sorted(READABLE_LINKS_VERSIONS))
        raise LinkSetFormatError(
            f"{where} has {LINKS_FORMAT} format_version {version!r}, this package reads versions "
            f"{readable}: run `dbt-schema-link link` again"
        )
    return data


def load_links_json(text: str | bytes, where: str = "links file") -> Mapping[str, Any]:
    """links.json text -> the checked document mapping."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        detail = f"{err.msg} at line {err.lineno}" if isinstance(err, json.JSONDecodeError) else str(err)
        raise LinkSetFormatError(f"{where} is not valid JSON ({detail}): run `dbt-schema-link link` again") from None
    return parse_links_document(data, where)


def links_of(document: Mapping[str, Any], where: str = "links file") -> list[Link]:
    """The Link records of a checked document."""
    try:
        return [Link.from_json(x) for x in document.get("links", ())]
    except (KeyError, TypeError, ValueError) as err:
        raise LinkSetFormatError(f"{where} is malformed ({err!r}): run `dbt-schema-link link` again") from None


def read_links_file(path: Path) -> list[Link] | None:
    """The links of ``target/schema_link/links.json``; None when the file does not exist (no
    ``link`` run yet). A file of another format or version is a :class:`LinkSetFormatError`."""
    path = Path(path)
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise LinkSetFormatError(f"cannot read {path} ({err.strerror}): run `dbt-schema-link link` again") from None
    return links_of(load_links_json(text, str(path)), str(path))
