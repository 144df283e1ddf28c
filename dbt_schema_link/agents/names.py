"""Relations by the names an agent uses: the dbt model name, the warehouse table name, the
unique_id or the quoted relation name, case-insensitive (a shard of a relation family: the
family); the closest names when none matches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from rapidfuzz import fuzz, process

from dbt_schema_link.linker.documents import RelationDoc
from dbt_schema_link.linker.families import shard_stem

#: How many close names an unknown-name error offers.
CLOSEST = 3


@dataclass(frozen=True)
class Lookup:
    """The outcome of one name: the relations it names (one, several when ambiguous, or none)
    and, when none, the closest known names."""

    matches: tuple[int, ...]
    closest: tuple[str, ...] = ()


def _names(rel: RelationDoc) -> set[str]:
    return {n.lower() for n in (rel.unique_id, rel.name, rel.short_name, rel.identifier, rel.relation_name,
                                rel.relation_name.replace('"', "").replace("`", ""), *rel.aliases) if n}


class RelationNames:
    def __init__(self, relations: Sequence[RelationDoc]):
        self.relations = relations
        self._by_name: dict[str, list[int]] = {}
        for i, rel in enumerate(relations):
            for name in _names(rel):
                self._by_name.setdefault(name, []).append(i)
        # A shard folded into a relation family (linker/families.py) is found as its family.
        self._families: dict[str, list[int]] = {}
        for i, rel in enumerate(relations):
            if rel.shards:
                self._families.setdefault(rel.short_name.lower(), []).append(i)
        # What a person calls a relation: its dbt name (and table name when it differs).
        self._display = sorted({n for r in relations for n in (r.name, r.identifier) if n})

    def find(self, name: str) -> Lookup:
        wanted = name.strip().lower()
        hits = list(dict.fromkeys(self._by_name.get(wanted, [])))
        if len(hits) > 1:  # a unique_id or dbt name says more than a table name that several share
            exact = [i for i in hits if wanted in (self.relations[i].unique_id.lower(), self.relations[i].name.lower())]
            hits = exact or hits
        if not hits:
            stem = shard_stem(wanted.rsplit(".", 1)[-1].strip('"`'))
            hits = self._families.get(stem, []) if stem else []
        if hits:
            return Lookup(tuple(hits))
        return Lookup((), self.closest(name))

    def closest(self, name: str, limit: int = CLOSEST) -> tuple[str, ...]:
        if not self._display:
            return ()
        found = process.extract(name.strip().lower(), self._display, scorer=fuzz.WRatio, limit=limit,
                                processor=str.lower)
        return tuple(choice for choice, _score, _ in found)
