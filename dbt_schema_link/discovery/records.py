"""Typed results of join discovery: value domains, rejections, the LinkSet and its JSON. The link
record and its evidence are :mod:`dbt_schema_link.links` (re-exported here).

The JSON form is versioned (``{"format": "dbt_schema_link/links", "format_version": 3}``) and
deterministic: links, evidence and domains are sorted, floats rounded, so golden files are stable.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.collector import collector_paused
from dbt_schema_link.discovery.settings import DiscoverySettings
# The link record itself lives in the bottom layer (every stage reads it); re-exported here.
from dbt_schema_link.links import (  # noqa: F401
    LINKS_FORMAT, LINKS_FORMAT_VERSION, NAME_SIGNALS, Cardinality, Evidence, Link, LinkKind, LinkSetFormatError,
    Orphans, Provenance, Signal, links_of, load_links_json, parse_links_document, ref_from, ref_json, round4,
)


class Trap(str, Enum):
    """Why a candidate that would otherwise have scored as a link was rejected."""

    FLAG_PAIR = "flag_pair"  # boolean/flag columns: every flag 'contains' every other
    FREE_TEXT = "free_text"  # near-unique long text is not a key
    SHARED_ENUM = "shared_enum"  # a tiny status/type enum repeated in unrelated tables
    SMALL_SUBSET = "small_subset"  # few values inside a dense key range, no name evidence
    AMBIGUOUS = "ambiguous"  # the values fit the keys of several relations, no name evidence
    KEY_TO_KEY = "key_to_key"  # two tables' own keys overlapping by numbering; no names, or a shared word only
    MEASURE = "measure"  # a quantity/amount column inside an id range, no names
    VALUE_TYPE = "value_type"  # nameless value link on dates/decimals/booleans, or across type families
    CROSS_SOURCE = "cross_source"  # two unrelated sources, and chance or names alone explain it
    #: no name links the pair, and the child's name names another relation: values never overrule it
    NAMED_ELSEWHERE = "named_elsewhere"
    #: an all-NULL child whose name does not designate the parent's key (nothing to check)
    EMPTY_CHILD = "empty_child"
    #: a parent of a few rows (each column unique) that the child's name does not designate
    TINY_PARENT = "tiny_parent"
    #: a period or flag column: values that are never a key (a calendar's days aside)
    NOT_A_KEY = "not_a_key"
    #: the parent is a report or aggregate model (its query groups rows) that the child's name
    #: does not designate: grouping makes its columns unique, not an entity's key
    REPORT_PARENT = "report_parent"
    CONTRADICTED = "contradicted"  # names say the pair joins, the exact check finds (almost) no value
    #: names or a SQL join say the pair joins; only its containment (verified, or estimated when
    #: unchecked, or text/number values that do not agree) is short of what a link needs
    CONTAINMENT_FAILED = "containment_failed"


@dataclass(frozen=True)
class Rejection:
    """A candidate pair rejected by a trap rule, with the confidence it would have had.

    For the containment reasons (``CONTRADICTED``, ``CONTAINMENT_FAILED``) ``would_be_confidence``
    is what the names (and SQL) alone score, and ``containment`` the share of child values found
    in the parent, ``verified`` saying whether the exact check measured it (else the MinHash
    estimate did); both are ``None`` for the other traps."""

    child: ColumnRef
    parent: ColumnRef
    trap: Trap
    detail: str
    would_be_confidence: float
    containment: float | None = None
    verified: bool | None = None

    def sort_key(self) -> tuple:
        return (self.trap.value, self.child.relation, self.child.column.lower(),
                self.parent.relation, self.parent.column.lower())

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "child": ref_json(self.child),
            "parent": ref_json(self.parent),
            "trap": self.trap.value,
            "detail": self.detail,
            "would_be_confidence": round4(self.would_be_confidence),
        }
        if self.containment is not None:  # only the containment reasons carry them
            out["containment"] = round4(self.containment)
            out["verified"] = bool(self.verified)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rejection:
        return cls(
            child=ref_from(data["child"]),
            parent=ref_from(data["parent"]),
            trap=Trap(data["trap"]),
            detail=str(data.get("detail", "")),
            would_be_confidence=float(data.get("would_be_confidence", 0.0)),
            containment=None if data.get("containment") is None else float(data["containment"]),
            verified=None if data.get("verified") is None else bool(data["verified"]),
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
            "anchor": ref_json(self.anchor),
            "members": [ref_json(m) for m in self.members],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Domain:
        return cls(
            id=str(data["id"]),
            anchor=ref_from(data["anchor"]),
            members=tuple(ref_from(m) for m in data.get("members", ())),
        )


def document_text(document: Mapping[str, Any]) -> str:
    """``document`` as indented JSON text whose lists hold one item per line. ``json.dumps`` with
    an indent runs the pure-Python encoder (a third of a second for 10,000 links); each item here
    is one call of the C encoder, and a changed link is a one-line diff."""
    parts = []
    for key, value in document.items():
        name = json.dumps(key, ensure_ascii=False)
        if isinstance(value, list) and value:
            items = ",\n    ".join(json.dumps(item, ensure_ascii=False) for item in value)
            parts.append(f"  {name}: [\n    {items}\n  ]")
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            parts.append(f"  {name}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


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
        """Deterministic JSON text (``links.json``): sorted, newline-terminated, one link (domain,
        rejection) per line."""
        with collector_paused():  # a document of 100,000s of small objects, freed right after
            return document_text(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "links file") -> LinkSet:
        data = parse_links_document(data, where)
        try:
            return cls(
                links=links_of(data, where),
                domains=[Domain.from_json(x) for x in data.get("domains", ())],
                rejected=[Rejection.from_json(x) for x in data.get("rejected", ())],
                settings=_settings_from(data.get("settings") or {}),
                counts={str(k): int(v) for k, v in (data.get("counts") or {}).items()},
                notes=[str(n) for n in data.get("notes", ())],
                project_name=data.get("project_name"),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise LinkSetFormatError(f"{where} is malformed ({err!r}): run `dbt-schema-link link` again") from None

    @classmethod
    def from_json(cls, data: str | bytes | Mapping[str, Any], where: str = "links file") -> LinkSet:
        """Read ``links.json`` text (or an already parsed mapping)."""
        if isinstance(data, (str, bytes)):
            data = load_links_json(data, where)
        return cls.from_dict(data, where)


def _settings_from(data: Mapping[str, Any]) -> DiscoverySettings:
    """Settings recorded in a links file; keys this version does not know are ignored (reading
    is tolerant, ``DiscoverySettings.from_mapping`` on user input is strict)."""
    known = {f.name for f in dataclasses.fields(DiscoverySettings)}
    return DiscoverySettings.from_mapping({k: v for k, v in data.items() if k in known})


