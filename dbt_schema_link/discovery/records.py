"""Typed results of join discovery: evidence, links, value domains, the LinkSet and its JSON.

The JSON form is versioned (``{"format": "dbt_schema_link/links", "format_version": 1}``) and
deterministic: links, evidence and domains are sorted, floats rounded, so golden files are stable.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from dbt_schema_link.artifacts.records import ColumnRef, LinkOrigin
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.errors import SchemaLinkError

LINKS_FORMAT = "dbt_schema_link/links"
LINKS_FORMAT_VERSION = 1


class LinkSetFormatError(SchemaLinkError):
    """A links JSON document is not of a format/version this package reads."""


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
    DECLARED_TEST = "declared_test"
    DECLARED_CONSTRAINT = "declared_constraint"
    SEMANTIC_ENTITY = "semantic_entity"
    LINEAGE = "lineage"


#: Signals that say something about names (their log-odds are capped together).
NAME_SIGNALS = frozenset({Signal.NAME_EXACT, Signal.NAME_PATTERN, Signal.NAME_FUZZY, Signal.ROLE_NAME})


class LinkKind(str, Enum):
    INFERRED = "inferred"
    DECLARED = "declared"
    LINEAGE = "lineage"


class Cardinality(str, Enum):
    MANY_TO_ONE = "many_to_one"
    ONE_TO_ONE = "one_to_one"


class Trap(str, Enum):
    """Why a candidate that would otherwise have scored as a link was rejected."""

    FLAG_PAIR = "flag_pair"  # boolean/flag columns: every flag 'contains' every other
    FREE_TEXT = "free_text"  # near-unique long text is not a key
    SHARED_ENUM = "shared_enum"  # a tiny status/type enum repeated in unrelated tables
    SMALL_SUBSET = "small_subset"  # few values inside a dense key range, no name evidence
    AMBIGUOUS = "ambiguous"  # the values fit the keys of several relations, no name evidence
    KEY_TO_KEY = "key_to_key"  # two tables' own keys overlapping by numbering, no names
    MEASURE = "measure"  # a quantity/amount column inside an id range, no names
    VALUE_TYPE = "value_type"  # nameless value link on dates/decimals/booleans
    CROSS_SOURCE = "cross_source"  # two unrelated sources, and chance or names alone explain it


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Link:
    """child -> parent: the child column's values reference the parent column (FK -> key).

    For LINEAGE links the child is the downstream copy and the parent the upstream column.
    ``collapsed`` lists other (child, parent) pairs that are copies of this one through column
    lineage and were folded into it.
    """

    child: ColumnRef
    parent: ColumnRef
    kind: LinkKind
    confidence: float
    cardinality: Cardinality
    evidence: tuple[Evidence, ...] = ()
    domain: str | None = None
    origins: tuple[LinkOrigin, ...] = ()
    collapsed: tuple[tuple[ColumnRef, ColumnRef], ...] = ()

    def has(self, signal: Signal) -> bool:
        return any(e.signal is signal for e in self.evidence)

    def sort_key(self) -> tuple:
        return (_KIND_ORDER[self.kind], self.child.relation, self.child.column.lower(),
                self.parent.relation, self.parent.column.lower())

    def to_json(self) -> dict[str, Any]:
        return {
            "child": _ref_json(self.child),
            "parent": _ref_json(self.parent),
            "kind": self.kind.value,
            "confidence": round4(self.confidence),
            "cardinality": self.cardinality.value,
            "domain": self.domain,
            "origins": [o.value for o in self.origins],
            "evidence": [e.to_json() for e in self.evidence],
            "collapsed": [
                {"child": _ref_json(c), "parent": _ref_json(p)} for c, p in self.collapsed
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Link:
        return cls(
            child=_ref_from(data["child"]),
            parent=_ref_from(data["parent"]),
            kind=LinkKind(data["kind"]),
            confidence=float(data["confidence"]),
            cardinality=Cardinality(data["cardinality"]),
            evidence=tuple(Evidence.from_json(e) for e in data.get("evidence", ())),
            domain=data.get("domain"),
            origins=tuple(LinkOrigin(o) for o in data.get("origins", ())),
            collapsed=tuple(
                (_ref_from(c["child"]), _ref_from(c["parent"])) for c in data.get("collapsed", ())
            ),
        )


_KIND_ORDER = {LinkKind.DECLARED: 0, LinkKind.INFERRED: 1, LinkKind.LINEAGE: 2}


@dataclass(frozen=True)
class Rejection:
    """A candidate pair rejected by a trap rule, with the confidence it would have had."""

    child: ColumnRef
    parent: ColumnRef
    trap: Trap
    detail: str
    would_be_confidence: float

    def sort_key(self) -> tuple:
        return (self.trap.value, self.child.relation, self.child.column.lower(),
                self.parent.relation, self.parent.column.lower())

    def to_json(self) -> dict[str, Any]:
        return {
            "child": _ref_json(self.child),
            "parent": _ref_json(self.parent),
            "trap": self.trap.value,
            "detail": self.detail,
            "would_be_confidence": round4(self.would_be_confidence),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rejection:
        return cls(
            child=_ref_from(data["child"]),
            parent=_ref_from(data["parent"]),
            trap=Trap(data["trap"]),
            detail=str(data.get("detail", "")),
            would_be_confidence=float(data.get("would_be_confidence", 0.0)),
        )


@dataclass(frozen=True)
class Domain:
    """A value domain: columns sharing one set of key values, anchored on its primary key."""

    id: str
    anchor: ColumnRef
    members: tuple[ColumnRef, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "anchor": _ref_json(self.anchor),
            "members": [_ref_json(m) for m in self.members],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Domain:
        return cls(
            id=str(data["id"]),
            anchor=_ref_from(data["anchor"]),
            members=tuple(_ref_from(m) for m in data.get("members", ())),
        )


@dataclass
class StageTimings:
    """Wall-clock seconds per :func:`discover` stage, in the order they ran. Not part of
    links.json (timings differ from run to run); ``dbt-schema-link link --verbose`` prints them."""

    stages: list[tuple[str, float]] = field(default_factory=list)

    def add(self, stage: str, seconds: float) -> None:
        self.stages.append((stage, seconds))

    @property
    def total(self) -> float:
        return sum(s for _, s in self.stages)

    def to_dict(self) -> dict[str, float]:
        return {name: round(seconds, 4) for name, seconds in self.stages}

    def lines(self) -> list[str]:
        """One line per stage, slowest marked, then the total."""
        width = max((len(n) for n, _ in self.stages), default=5)
        slowest = max(self.stages, key=lambda s: s[1])[0] if self.stages else None
        total = self.total or 1e-9
        out = [f"{name:<{width}}  {seconds:8.3f}s  {100 * seconds / total:5.1f}%" + ("  <- slowest" if name == slowest else "")
               for name, seconds in self.stages]
        out.append(f"{'total':<{width}}  {self.total:8.3f}s")
        return out


@dataclass
class LinkSet:
    """Everything :func:`discover` found, plus the settings used and pipeline counts."""

    links: list[Link] = field(default_factory=list)
    domains: list[Domain] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    settings: DiscoverySettings = field(default_factory=DiscoverySettings)
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    project_name: str | None = None
    #: per-stage timings of the run that made this set (None when read from JSON)
    timings: StageTimings | None = field(default=None, compare=False, repr=False)

    def of_kind(self, kind: LinkKind) -> list[Link]:
        return [link for link in self.links if link.kind is kind]

    @property
    def inferred(self) -> list[Link]:
        return self.of_kind(LinkKind.INFERRED)

    @property
    def declared(self) -> list[Link]:
        return self.of_kind(LinkKind.DECLARED)

    @property
    def lineage(self) -> list[Link]:
        return self.of_kind(LinkKind.LINEAGE)

    def joins(self) -> list[Link]:
        """Declared and inferred links (the join graph), without lineage."""
        return [link for link in self.links if link.kind is not LinkKind.LINEAGE]

    def sort(self) -> None:
        self.links.sort(key=Link.sort_key)
        self.domains.sort(key=lambda d: d.id)
        self.rejected.sort(key=Rejection.sort_key)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document as a plain mapping (sorted, floats rounded)."""
        self.sort()
        return {
            "format": LINKS_FORMAT,
            "format_version": LINKS_FORMAT_VERSION,
            "project_name": self.project_name,
            "settings": self.settings.to_mapping(),
            "counts": {k: self.counts[k] for k in sorted(self.counts)},
            "notes": list(self.notes),
            "links": [link.to_json() for link in self.links],
            "domains": [d.to_json() for d in self.domains],
            "rejected": [r.to_json() for r in self.rejected],
        }

    def to_json(self) -> str:
        """Deterministic JSON text (``links.json``): sorted, indented, newline-terminated."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LinkSet:
        if not isinstance(data, Mapping) or data.get("format") != LINKS_FORMAT:
            raise LinkSetFormatError(f"not a {LINKS_FORMAT} document (missing or wrong 'format')")
        version = data.get("format_version")
        if version != LINKS_FORMAT_VERSION:
            raise LinkSetFormatError(
                f"{LINKS_FORMAT} format_version {version!r} is not supported "
                f"(this package reads version {LINKS_FORMAT_VERSION}); rerun discovery"
            )
        try:
            return cls(
                links=[Link.from_json(x) for x in data.get("links", ())],
                domains=[Domain.from_json(x) for x in data.get("domains", ())],
                rejected=[Rejection.from_json(x) for x in data.get("rejected", ())],
                settings=_settings_from(data.get("settings") or {}),
                counts={str(k): int(v) for k, v in (data.get("counts") or {}).items()},
                notes=[str(n) for n in data.get("notes", ())],
                project_name=data.get("project_name"),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise LinkSetFormatError(f"malformed {LINKS_FORMAT} document: {err!r}") from None

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any]) -> LinkSet:
        """Read ``links.json`` text (or an already parsed mapping)."""
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as err:
                raise LinkSetFormatError(
                    f"links file is not valid JSON: {err.msg} at line {err.lineno}"
                ) from None
        return cls.from_dict(data)


def _settings_from(data: Mapping[str, Any]) -> DiscoverySettings:
    """Settings recorded in a links file; keys this version does not know are ignored (reading
    is tolerant, ``DiscoverySettings.from_mapping`` on user input is strict)."""
    known = {f.name for f in dataclasses.fields(DiscoverySettings)}
    return DiscoverySettings.from_mapping({k: v for k, v in data.items() if k in known})


def round4(x: float) -> float:
    """The precision of numbers in links.json (so a LinkSet equals its JSON round trip)."""
    return round(float(x), 4) + 0.0  # + 0.0 turns -0.0 into 0.0


def _ref_json(ref: ColumnRef) -> dict[str, str]:
    return {"relation": ref.relation, "column": ref.column}


def _ref_from(data: Mapping[str, Any]) -> ColumnRef:
    return ColumnRef(str(data["relation"]), str(data["column"]))
