"""Read `target/schema_link/links.json` (written by `dbt-schema-link link`) tolerantly.

The linker only needs child/parent column pairs with a kind and a confidence, so it reads the file
on its own terms instead of importing the discovery engine: unknown fields are ignored, entries it
cannot use are skipped, and a missing or damaged file simply means "no inferred links".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbt_schema_link.artifacts.records import ColumnRef, Project

LINKS_FORMAT = "dbt_schema_link/links"


@dataclass(frozen=True)
class GraphLink:
    """One join edge of the graph: child.column references parent.column."""

    child: ColumnRef
    parent: ColumnRef
    kind: str  # "declared" | "inferred" | "lineage"
    confidence: float


def _ref(raw: Any, project: Project) -> ColumnRef | None:
    if not isinstance(raw, dict):
        return None
    relation, column = raw.get("relation") or raw.get("unique_id"), raw.get("column")
    if not isinstance(relation, str) or not isinstance(column, str):
        return None
    return project.column_ref(relation, column)


def read_links_file(path: Path, project: Project) -> tuple[list[GraphLink], str | None]:
    """Links from links.json that point at columns of `project`, and a notice when unusable."""
    if not path.exists():
        return [], None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return [], f"{path} is not readable JSON: ignored (run `dbt-schema-link link` again)"
    if not isinstance(data, dict) or not isinstance(data.get("links"), list):
        return [], f"{path} has no `links` list: ignored"
    if data.get("format") not in (None, LINKS_FORMAT):
        return [], f"{path} has format {data.get('format')!r}, not {LINKS_FORMAT!r}: ignored"
    out: list[GraphLink] = []
    for raw in data["links"]:
        if not isinstance(raw, dict):
            continue
        kind = raw.get("kind") if isinstance(raw.get("kind"), str) else "inferred"
        if raw.get("status") in ("rejected", "refuted"):
            continue
        try:
            confidence = float(raw.get("confidence", 1.0 if kind == "declared" else 0.5))
        except (TypeError, ValueError):
            confidence = 0.5
        confidence = max(0.0, min(1.0, confidence))
        # The same join seen through lineage copies (e.g. marts joining marts) is a join too.
        pairs = [(raw.get("child"), raw.get("parent"))]
        if kind != "lineage":
            pairs += [(c.get("child"), c.get("parent")) for c in raw.get("collapsed") or [] if isinstance(c, dict)]
        for raw_child, raw_parent in pairs:
            child, parent = _ref(raw_child, project), _ref(raw_parent, project)
            if child is None or parent is None or child.relation == parent.relation:
                continue
            out.append(GraphLink(child, parent, kind, confidence))
    return out, None


def declared_links(project: Project) -> list[GraphLink]:
    """The project's own declared links (relationships tests, FK constraints, entities)."""
    return [GraphLink(d.child, d.parent, "declared", 1.0) for d in project.declared_links
            if d.child.relation != d.parent.relation]
