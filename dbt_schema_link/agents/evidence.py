"""links.json's link records (read by the one reader, ``links.read_links_file``) by the column
pair they join.

The index keeps each join's provenance and confidence; an agent asking *why* two relations join
wants the evidence, which lives in links.json. A record also answers for the lineage copies its
join holds between (``collapsed``), which is how the index reaches every layer. A missing file
means no evidence; a file of another format version is a notice (run `link` again), never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from dbt_schema_link.links import Link, LinkSetFormatError, read_links_file

#: (child unique_id, child column, parent unique_id, parent column), columns lower-case.
PairKey = tuple[str, str, str, str]


def pair_key(child_uid: str, child_column: str, parent_uid: str, parent_column: str) -> PairKey:
    return child_uid, child_column.lower(), parent_uid, parent_column.lower()


@dataclass
class LinkEvidence:
    """Every link record of the files, and the record behind each joined column pair."""

    links: list[Link] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    _by_pair: dict[PairKey, Link] = field(default_factory=dict, repr=False)

    @classmethod
    def read(cls, paths: Iterable[Path]) -> "LinkEvidence":
        out = cls()
        for path in paths:
            try:
                links = read_links_file(Path(path)) or []
            except LinkSetFormatError as err:
                out.notices.append(f"notice: {err}: join evidence is missing")
                continue
            out.links.extend(links)
            for link in links:
                if not link.is_join:
                    continue
                for c, p in link.pairs():
                    # the record itself wins over a copy folded into another record
                    out._by_pair.setdefault(pair_key(c.relation, c.column, p.relation, p.column), link)
        return out

    def for_pair(self, key: PairKey) -> Link | None:
        """The record whose join (or one of its lineage copies) is this column pair."""
        return self._by_pair.get(key)

    def touching(self, unique_id: str) -> list[Link]:
        """Records whose child or parent column belongs to the relation."""
        return [link for link in self.links if unique_id in (link.child.relation, link.parent.relation)]
