"""Typed inputs and outputs of write-back: accepted links in, a plan of file changes out."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.links import Cardinality, Link, LinkKind


#: Cardinality of child -> parent: the link record's one enum (dbterd's spellings are its
#: ``code`` and ``meta_value``); the writers' historical name for it.
RelationshipType = Cardinality


@dataclass(frozen=True, order=True)
class AcceptedLink:
    """A link the user (or the confidence threshold) accepted: ``child`` references ``parent``."""

    child: ColumnRef
    parent: ColumnRef
    confidence: float
    relationship_type: RelationshipType = RelationshipType.MANY_TO_ONE
    evidence_summary: str = ""
    declared_elsewhere: bool = False  # e.g. a warehouse FK or another tool: materialise it
    #: a partial link's orphan child rows today: its test passes at this count, fails above it
    tolerated_orphan_rows: int | None = None
    #: a composite key's further (child column, parent column) pairs (``Link.extra_pairs``)
    extra_pairs: tuple[tuple[ColumnRef, ColumnRef], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.relationship_type, RelationshipType):
            object.__setattr__(self, "relationship_type", RelationshipType.parse(self.relationship_type))
        if not 0.0 <= float(self.confidence) <= 1.0:
            raise ValueError(f"confidence of {self.child} -> {self.parent} must be in [0, 1], got {self.confidence}")

    def key(self) -> tuple:
        """The pair's identity; a composite key's adds its further pairs."""
        if self.extra_pairs:
            return (self.child.key(), self.parent.key(), tuple((c.key(), p.key()) for c, p in self.extra_pairs))
        return (self.child.key(), self.parent.key())

    def column_pairs(self) -> tuple[tuple[ColumnRef, ColumnRef], ...]:
        return ((self.child, self.parent),) + self.extra_pairs

    def __str__(self) -> str:
        if self.extra_pairs:
            pairs = self.column_pairs()
            return (f"{self.child.relation}({', '.join(c.column for c, _ in pairs)}) -> "
                    f"{self.parent.relation}({', '.join(p.column for _, p in pairs)})")
        return f"{self.child} -> {self.parent}"

    @classmethod
    def of(cls, link: Link) -> "AcceptedLink":
        """The writer's view of one link record: a declared one is materialised as declared
        elsewhere (a warehouse FK, a semantic entity); the summary names its strongest signals."""
        top = sorted(link.evidence, key=lambda e: -e.contribution)[:3]
        orphans = link.orphans.rows if link.orphans is not None and link.kind is not LinkKind.DECLARED else None
        return cls(link.child, link.parent, link.confidence, link.cardinality,
                   "; ".join(e.signal.value for e in top), declared_elsewhere=link.kind is LinkKind.DECLARED,
                   tolerated_orphan_rows=orphans or None, extra_pairs=link.extra_pairs)

    def threshold_config(self) -> dict[str, str]:
        """dbt's ``warn_if``/``error_if`` for a partial link (empty otherwise): the test counts
        orphan child rows, so it passes on today's count and reports growth at its severity
        (both keys are test configs on dbt 1.8-1.12)."""
        if not self.tolerated_orphan_rows:
            return {}
        bar = f"> {self.tolerated_orphan_rows}"
        return {"warn_if": bar, "error_if": bar}


class ChangeKind(str, Enum):
    YAML = "yaml"  # a dbt property file (edited in place or new)
    SQL = "sql"  # a new model file (the time spine)
    STATE = "state"  # our own state file


@dataclass(frozen=True)
class FileChange:
    """One file whose bytes would change. ``old`` is None for a new file."""

    path: Path  # absolute
    display: str  # relative to the project, for messages and diffs
    old: bytes | None
    new: bytes
    kind: ChangeKind = ChangeKind.YAML
    old_mtime_ns: int | None = None
    actions: tuple[str, ...] = ()

    @property
    def old_sha256(self) -> str | None:
        return hashlib.sha256(self.old).hexdigest() if self.old is not None else None

    @property
    def is_new(self) -> bool:
        return self.old is None


@dataclass(frozen=True)
class Refusal:
    """A file the writer would not touch, with the one-line reason (nothing is written to it)."""

    display: str
    reason: str
    links: tuple[AcceptedLink, ...] = ()

    def __str__(self) -> str:
        return f"{self.display}: {self.reason}"


#: Why a link on an installed package's relation is not written (dbt 1.11: a second YAML entry for
#: a node the package describes is a parse error; only the root project's files are edited).
PACKAGE_REASON = ("only the root project's files are edited: the package's own YAML is replaced by `dbt deps`, "
                  "and dbt refuses a second entry for a node the package already describes")


@dataclass(frozen=True)
class Skipped:
    """A link (or one part of it) deliberately not written, and why."""

    link: AcceptedLink
    what: str  # "test", "docs", "entity", "constraint", "link"
    reason: str
    package: str | None = None  # set when the child belongs to this installed package (not writable)

    def __str__(self) -> str:
        return f"{self.link} ({self.what}): {self.reason}"


@dataclass
class WritePlan:
    """Everything `apply` would write, computed without writing anything."""

    project_dir: Path
    dbt_version: str
    changes: list[FileChange] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def would_change(self) -> bool:
        """True when the project's own files would change (what `--check` fails on).

        Our state file alone does not count: it may be missing from a fresh checkout.
        """
        return any(c.kind is not ChangeKind.STATE for c in self.changes)

    @property
    def project_changes(self) -> list[FileChange]:
        return [c for c in self.changes if c.kind is not ChangeKind.STATE]

    def summary(self) -> list[str]:
        """One line per changed file / refusal, for the CLI's stderr."""
        lines = []
        for change in self.changes:
            verb = "create" if change.is_new else "update"
            what = "; ".join(change.actions) if change.actions else change.kind.value
            lines.append(f"{verb} {change.display}: {what}")
        lines += [f"refused {r}" for r in self.refusals]
        lines += self.package_lines()
        lines += self.notes
        return lines

    def package_lines(self) -> list[str]:
        """One line per installed package whose models' links were not written, and why."""
        counts: dict[str, int] = {}
        for skipped in self.skipped:
            if skipped.package:
                counts[skipped.package] = counts.get(skipped.package, 0) + 1
        return [f"not writable: {n} link(s) on relations of package {package}: {PACKAGE_REASON}"
                for package, n in sorted(counts.items())]
