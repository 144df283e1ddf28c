"""links.json entries (written by `dbt-schema-link link`) by the column pair they join.

The index keeps only each join's kind and confidence; an agent asking *why* two relations join
wants the evidence, which lives in links.json. Entries are kept as they are in the file (the shape
`list_links` returns), read tolerantly like linker/linkfile.py: a missing or damaged file means no
evidence, never a failure. An entry also answers for the lineage copies folded into it
(`collapsed`), which is how the index reaches marts that join marts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from dbt_schema_link.linker.linkfile import LINKS_FORMAT

#: (child unique_id, child column, parent unique_id, parent column), columns lower-case.
PairKey = tuple[str, str, str, str]
JOIN_KINDS = ("inferred", "declared")


def _ref(raw: Any) -> tuple[str, str] | None:
    if not isinstance(raw, dict):
        return None
    relation, column = raw.get("relation") or raw.get("unique_id"), raw.get("column")
    if not isinstance(relation, str) or not isinstance(column, str):
        return None
    return relation, column.lower()


def pair_key(child_uid: str, child_column: str, parent_uid: str, parent_column: str) -> PairKey:
    return child_uid, child_column.lower(), parent_uid, parent_column.lower()


@dataclass
class LinkEvidence:
    """Every usable links.json entry, and the entry behind each joined column pair."""

    entries: list[dict] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    _by_pair: dict[PairKey, dict] = field(default_factory=dict, repr=False)

    @classmethod
    def read(cls, paths: Iterable[Path]) -> "LinkEvidence":
        out = cls()
        for path in paths:
            out._add_file(Path(path))
        return out

    def _add_file(self, path: Path) -> None:
        if not path.exists():
            return
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            self.notices.append(f"notice: {path} is not readable JSON: join evidence is missing "
                                f"(run `dbt-schema-link link` again)")
            return
        if not isinstance(data, dict) or not isinstance(data.get("links"), list) \
                or data.get("format") not in (None, LINKS_FORMAT):
            self.notices.append(f"notice: {path} is not a links file: join evidence is missing")
            return
        for raw in data["links"]:
            if not isinstance(raw, dict) or _ref(raw.get("child")) is None or _ref(raw.get("parent")) is None:
                continue
            if raw.get("status") in ("rejected", "refuted"):
                continue
            self.entries.append(raw)
            if raw.get("kind") not in JOIN_KINDS:
                continue
            pairs = [(raw["child"], raw["parent"])]
            pairs += [(c.get("child"), c.get("parent")) for c in raw.get("collapsed") or [] if isinstance(c, dict)]
            for child, parent in pairs:
                c, p = _ref(child), _ref(parent)
                if c and p:
                    # The entry itself wins over a copy folded into another entry.
                    self._by_pair.setdefault((c[0], c[1], p[0], p[1]), raw)

    def for_pair(self, key: PairKey) -> dict | None:
        """The entry whose join (or one of its folded copies) is this column pair."""
        return self._by_pair.get(key)

    def touching(self, unique_id: str) -> list[dict]:
        """Entries whose child or parent column belongs to the relation."""
        return [e for e in self.entries if unique_id in (_ref(e["child"])[0], _ref(e["parent"])[0])]
