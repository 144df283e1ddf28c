"""Typed records for documenting the warehouse (`write --docs`, `docs-coverage`): what the writer
is given (lineage copies, profiles, joins) and how each description came about."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Iterable

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.profiling.records import ProfileSet


class DocsMode(str, Enum):
    """What `write --docs` adds to undocumented columns (and relations)."""

    INHERIT = "inherit"  # the description of the documented upstream column it copies
    DRAFT = "draft"  # a short factual draft from the profile


class DocOrigin(str, Enum):
    """Who wrote a description, as `docs-coverage` counts it."""

    PERSON = "person"
    INHERITED = "inherited"
    DRAFTED = "drafted"  # a profile draft, or a join description ("Joins to ...")
    NONE = "none"


class Generated(str, Enum):
    """``meta.schema_link.generated``: the marker on text this package wrote."""

    INHERITED = "inherited"
    DRAFT = "draft"


def parse_modes(values: Iterable[str | DocsMode] | str | None) -> tuple[DocsMode, ...]:
    """``["inherit", "draft"]`` (or one comma-separated string) -> modes, in a fixed order."""
    if values is None:
        return ()
    if isinstance(values, (str, DocsMode)):
        values = [values]
    modes: set[DocsMode] = set()
    for value in values:
        for part in ([value] if isinstance(value, DocsMode) else str(value).split(",")):
            if isinstance(part, DocsMode):
                modes.add(part)
                continue
            if not part.strip():
                continue
            try:
                modes.add(DocsMode(part.strip().lower()))
            except ValueError:
                valid = ", ".join(m.value for m in DocsMode)
                raise SchemaLinkError(f"unknown docs mode {part.strip()!r}: use {valid}", option="docs") from None
    return tuple(m for m in DocsMode if m in modes)


@dataclass(frozen=True)
class LineageCopy:
    """``column`` is a pass-through copy (or a rename) of the upstream ``source`` column."""

    column: ColumnRef
    source: ColumnRef


@dataclass(frozen=True)
class WordingRequest:
    """A factual draft to be reworded (optional LLM wording, llm/wording.py). ``facts`` are the
    values, numbers and names the wording must keep verbatim, or the draft stays as it is."""

    subject: str  # ``fct_orders.status`` or ``fct_orders``
    draft: str
    facts: tuple[str, ...]


#: Rewords a draft; None (or text that drops a fact) keeps the factual draft.
Wording = Callable[[WordingRequest], "str | None"]


@dataclass(frozen=True)
class DocsInput:
    """What the documentation writer reads besides the YAML: measured lineage (links.json),
    profiles (profiles.json; None when `profile` never ran) and, optionally, a wording hook."""

    lineage: tuple[LineageCopy, ...] = ()
    profiles: ProfileSet | None = None
    wording: Wording | None = None


@dataclass(frozen=True)
class ColumnCoverage:
    name: str
    origin: DocOrigin
    inherited_from: str | None = None


@dataclass(frozen=True)
class RelationCoverage:
    """One model / seed / snapshot / source table: how its columns are documented."""

    unique_id: str
    name: str
    resource_type: str
    description: DocOrigin
    columns: tuple[ColumnCoverage, ...]
    package: str = ""  # the dbt project (root or installed package) the relation belongs to

    def count(self, origin: DocOrigin) -> int:
        return sum(1 for c in self.columns if c.origin is origin)

    @property
    def documented(self) -> int:
        return len(self.columns) - self.count(DocOrigin.NONE)

    @property
    def share(self) -> float:
        """Share of columns with any description (1.0 for a relation without columns)."""
        return self.documented / len(self.columns) if self.columns else 1.0


@dataclass
class CoverageReport:
    relations: list[RelationCoverage] = field(default_factory=list)

    def by_package(self) -> dict[str, CoverageReport]:
        """The report of each package's relations, by package name (the root project's too)."""
        out: dict[str, CoverageReport] = {}
        for rel in self.relations:
            out.setdefault(rel.package, CoverageReport()).relations.append(rel)
        return dict(sorted(out.items()))

    def count(self, origin: DocOrigin) -> int:
        return sum(r.count(origin) for r in self.relations)

    @property
    def columns(self) -> int:
        return sum(len(r.columns) for r in self.relations)

    @property
    def documented(self) -> int:
        return self.columns - self.count(DocOrigin.NONE)

    @property
    def share(self) -> float:
        return self.documented / self.columns if self.columns else 1.0
