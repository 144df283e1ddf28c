"""Which documented upstream column a column copies, through measured lineage (pure).

Discovery records each pass-through copy and rename (``x``, ``x AS y``, ``CAST(x AS ...)``,
through CTEs and subqueries) as a lineage link in links.json; this walks those links upstream to
the nearest column whose description a person wrote. Undocumented, drafted and inherited columns
in between are walked through, so a description travels down every layer in one run and an
inherited description always names the person-written one it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.writers.doc_records import LineageCopy

#: (relation unique_id, lower-case column)
Key = tuple[str, str]


@dataclass(frozen=True)
class Ancestor:
    """The documented upstream column and its description."""

    ref: ColumnRef
    text: str
    hops: int


@dataclass(frozen=True)
class Ambiguous:
    """Several documented upstream columns at the same distance, with different descriptions
    (a union of differently documented inputs): nothing is inherited."""

    refs: tuple[ColumnRef, ...]


class LineageGraph:
    def __init__(self, copies: Iterable[LineageCopy]) -> None:
        self._up: dict[Key, list[ColumnRef]] = {}
        for copy in copies:
            sources = self._up.setdefault(copy.column.key(), [])
            if copy.source not in sources:
                sources.append(copy.source)
        for sources in self._up.values():
            sources.sort()

    def upstream(self, ref: ColumnRef) -> list[ColumnRef]:
        return list(self._up.get(ref.key(), ()))

    def nearest_documented(self, ref: ColumnRef,
                           person_text: Callable[[ColumnRef], str | None]) -> Ancestor | Ambiguous | None:
        """Breadth-first up the lineage; ``person_text`` is a column's person-written
        description (None when it has none)."""
        seen = {ref.key()}
        frontier = self.upstream(ref)
        hops = 1
        while frontier:
            found: dict[str, ColumnRef] = {}
            following: list[ColumnRef] = []
            for up in frontier:
                if up.key() in seen:
                    continue
                seen.add(up.key())
                text = person_text(up)
                if text:
                    found.setdefault(text, up)
                else:
                    following += self.upstream(up)
            if len(found) == 1:
                (text, up), = found.items()
                return Ancestor(up, text, hops)
            if found:
                return Ambiguous(tuple(sorted(found.values())))
            frontier, hops = following, hops + 1
        return None
