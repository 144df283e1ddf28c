"""Do two warehouse column types compare without a cast? A `relationships` test (or a join on
an entity) between text and a number fails on strict warehouses (PostgreSQL: `operator does not
exist: character varying = integer`), so such links get docs only."""

from __future__ import annotations

import re

from dbt_schema_link.artifacts.records import Project
from dbt_schema_link.writers.records import AcceptedLink

_FAMILIES = (
    ("interval", re.compile(r"interval")),
    ("number", re.compile(r"int|numeric|decimal|number|double|float|real|serial|money")),
    ("text", re.compile(r"char|text|string|clob")),
    ("timestamp", re.compile(r"timestamp|datetime")),
    ("date", re.compile(r"^date$")),
    ("boolean", re.compile(r"bool")),
    ("uuid", re.compile(r"uuid")),
)


def family(data_type: str | None) -> str | None:
    """A coarse type family, or None when unknown (then nothing is assumed)."""
    if not data_type:
        return None
    base = data_type.strip().lower().split("(")[0].strip()
    for name, pattern in _FAMILIES:
        if pattern.search(base):
            return name
    return None


def type_clash(project: Project, link: AcceptedLink) -> str | None:
    """Why the child and parent columns cannot be compared directly, or None."""
    child = project.relations[link.child.relation].column(link.child.column)
    parent = project.relations[link.parent.relation].column(link.parent.column)
    a, b = family(child.data_type if child else None), family(parent.data_type if parent else None)
    if a is None or b is None or a == b:
        return None
    return (f"the column types differ ({child.data_type} vs {parent.data_type}): a relationships test "
            "would fail on strict warehouses; cast one side in the model first")
