"""`link --check`: do the links inferred now agree with the ones `write` wrote into the YAML?

Pure: what `write` would write now (inferred links at its confidence bar) against the tests it
generated earlier (found in the manifest by their `meta.schema_link`). A link in the first and
not the second is a new join; one in the second and not the first no longer holds. Discovery
never takes a written test as declared (provenance `written`), so each has to be inferred from
the data again.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Mapping

from dbt_schema_link.artifacts.records import ColumnRef, DeclaredLink, Project
from dbt_schema_link.confidence import confidence_text

Key = tuple[tuple[str, str], tuple[str, str]]


class Difference(str, Enum):
    NEW = "new"  # inferred at the write bar, not written
    NO_LONGER_HOLDS = "no_longer_holds"  # written, not inferred at the write bar any more


@dataclass(frozen=True)
class LinkDifference:
    kind: Difference
    child: ColumnRef
    parent: ColumnRef
    confidence: float | None  # the link's confidence now; None when it is not inferred at all
    min_confidence: float
    #: why a written link that still scores at the bar is not one `write` would write now
    #: (its column types differ, ...); empty when the confidence says it
    reason: str = ""

    def line(self) -> str:
        """One line for the terminal / CI log."""
        pair = f"{self.child} -> {self.parent}"
        if self.kind is Difference.NEW:
            return f"new join: {pair} (confidence {confidence_text(self.confidence)}): run `dbt-schema-link write`"
        if self.confidence is None:
            now = "not inferred any more"
        elif self.confidence < self.min_confidence:
            now = f"confidence now {confidence_text(self.confidence)} < {self.min_confidence:g}"
        else:
            now = f"confidence {confidence_text(self.confidence)}, but {self.reason or 'write would not write it now'}"
        return f"written link no longer holds: {pair} ({now}): check the data, or remove the test"


def written_links(project: Project) -> list[DeclaredLink]:
    return [d for d in project.declared_links if d.written]


def compare(wanted: Iterable[tuple[ColumnRef, ColumnRef, float]], written: Iterable[DeclaredLink],
            confidences: Mapping[Key, float], handled: set[Key], min_confidence: float,
            reasons: Mapping[Key, str] | None = None) -> list[LinkDifference]:
    """`wanted`: (child, parent, confidence) that `write` would write now; `confidences`: every
    inferred link's confidence by key, for the message; `handled`: keys `write` has written once
    (its state file), so a test someone deleted on purpose is not a new join; `reasons`: why a
    link at the bar is not wanted (the message states it rather than a confidence it clears)."""
    reasons = reasons or {}
    written = list(written)
    written_keys = {(d.child.key(), d.parent.key()) for d in written}
    out: list[LinkDifference] = []
    wanted_keys: set[Key] = set()
    for child, parent, confidence in wanted:
        key = (child.key(), parent.key())
        wanted_keys.add(key)
        if key not in written_keys and key not in handled:
            out.append(LinkDifference(Difference.NEW, child, parent, confidence, min_confidence))
    seen: set[Key] = set()
    for d in written:
        key = (d.child.key(), d.parent.key())
        if key not in wanted_keys and key not in seen:
            seen.add(key)
            out.append(LinkDifference(Difference.NO_LONGER_HOLDS, d.child, d.parent, confidences.get(key),
                                      min_confidence, reasons.get(key, "")))
    return sorted(out, key=lambda x: (x.kind.value, str(x.child), str(x.parent)))
