"""The tools an agent sees: names, descriptions an agent can follow, and JSON schemas for the
arguments and for the structured result (the readable text says the same in prose)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from dbt_schema_link.links import Provenance


class ToolName(str, Enum):
    FIND_SCHEMA = "find_schema"
    JOIN_PATH = "join_path"
    DESCRIBE_RELATION = "describe_relation"
    LIST_LINKS = "list_links"


@dataclass(frozen=True)
class ToolSpec:
    name: ToolName
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]


_STR = {"type": "string"}
_NUM = {"type": "number"}
_OPT_STR = {"type": ["string", "null"]}
_STRINGS = {"type": "array", "items": _STR}


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required if required is not None else list(properties)}


_COLUMN_REF = _object({"unique_id": _STR, "name": _STR, "column": _STR})
_EVIDENCE = _object({"signal": _STR, "strength": _NUM, "contribution": _NUM, "detail": _STR})
_LINK_PROPS = {
    "child": _COLUMN_REF, "parent": _COLUMN_REF,
    "on": {"type": "string", "description": "SQL join condition, child.column = parent.column (a composite "
                                            "key: one comparison per column, joined with `and`)"},
    "composite": {"type": "array", "items": {"type": "object", "properties": {
        "child_column": {"type": "string"}, "parent_column": {"type": "string"}}},
        "description": "a composite key's further column pairs after child/parent (empty for one column)"},
    "kind": {"type": "string", "description": "declared, inferred or lineage (coarse)"},
    "provenance": {"type": "string", "enum": [p.value for p in Provenance],
                   "description": "declared (a person's test, constraint or entity), written (a test dbt-schema-link "
                                  "generated), inferred, sql (inferred and joined in the project's SQL) or lineage"},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "written_confidence": {"type": ["number", "null"], "description": "written: the confidence it was written at"},
    "note": {"type": "string", "description": "provenance and confidence in words"},
    "cardinality": {"type": ["string", "null"], "description": "many_to_one or one_to_one (child to parent)"},
    "evidence": {"type": "array", "items": _EVIDENCE},
}
_LINK = _object(_LINK_PROPS)
_HOP = _object({"from": _STR, "to": _STR, **_LINK_PROPS})
_RELATION_REF = _object({"unique_id": _STR, "name": _STR, "model": _STR})
_CANDIDATE = _object({"group": _STR, "project": _STR, "database": _STR, "schema": _STR, "score": _NUM,
                      "confidence": _NUM, "support": {"type": "integer"}})
_PICKED_COLUMN = _object({"name": _STR, "data_type": _OPT_STR, "score": _NUM, "reasons": _STRINGS})
_PICKED_RELATION = _object({"unique_id": _STR, "name": _STR, "model": _STR, "relation_name": _STR, "score": _NUM,
                            "reasons": _STRINGS, "bridge": {"type": "boolean"},
                            "columns": {"type": "array", "items": _PICKED_COLUMN}})
#: a composite key's further column pairs (empty for one column); `on` compares every pair
_COMPOSITE = {"type": "array", "items": _object({"child_column": _STR, "parent_column": _STR})}
_JOIN = _object({"child": _COLUMN_REF, "parent": _COLUMN_REF, "on": _STR, "kind": _STR, "provenance": _STR,
                 "composite": _COMPOSITE, "confidence": _NUM, "written_confidence": {"type": ["number", "null"]},
                 "note": _STR})

FIND_SCHEMA = ToolSpec(
    ToolName.FIND_SCHEMA, "Find the schema a question needs",
    "Given a natural-language question about the data, return the few models (tables), columns and "
    "join conditions needed to write its SQL, as ready-to-use DDL-like context. Call this first for "
    "any question you will answer with SQL; `relations[].name` is the table to query and `joins[].on` "
    "the exact ON conditions. Set `database` when the answer names several candidate schemas and you "
    "know which one is meant.",
    _object({
        "question": {"type": "string", "minLength": 1, "description": "The question, in the user's words."},
        "hint": {"type": "string", "description": "Optional extra evidence, e.g. 'revenue = quantity * unit_price'."},
        "budget": {"type": "integer", "minimum": 1,
                   "description": "Token budget for the rendered context (default: the server's --budget)."},
        "database": {"type": "string",
                     "description": "Restrict to one database.schema, schema, database or project name."},
    }, ["question"]),
    _object({
        "id": {}, "question": _STR, "hint": _OPT_STR, "project": _OPT_STR, "database": _OPT_STR,
        "schema": _OPT_STR, "group": _OPT_STR,
        "spans": {"type": "array", "items": _CANDIDATE},
        "unsure": {"type": "boolean", "description": "the first candidate's confidence is low: the text names "
                                                    "the top three databases; pass `database` to choose"},
        "candidates": {"type": "array", "items": _CANDIDATE,
                       "description": "databases best first, each with a calibrated confidence (they sum to 1)"},
        "relations": {"type": "array", "items": _PICKED_RELATION},
        "joins": {"type": "array", "items": _JOIN},
        "unjoined": _STRINGS,
        "context": {"type": "string", "description": "the rendered schema context for the prompt"},
        "render": _STR, "tokens": {"type": "integer"}, "budget": {"type": ["integer", "null"]},
        "retrieval": _STR, "latency_ms": _NUM,
    }, ["question", "candidates", "relations", "joins", "context", "tokens"]),
)

JOIN_PATH = ToolSpec(
    ToolName.JOIN_PATH, "Join path between two relations",
    "The cheapest chain of joins between two models or tables (names case-insensitive: the dbt model "
    "name, the table name or the unique_id), over every declared and inferred link. Each hop gives its "
    "SQL ON condition, its confidence (0-1) and the evidence for it. `found` is false when no chain of "
    "links connects them.",
    _object({
        "from": {"type": "string", "minLength": 1, "description": "Where the join starts, e.g. stg_orders."},
        "to": {"type": "string", "minLength": 1, "description": "Where it ends, e.g. stg_customers."},
    }),
    _object({"from": _RELATION_REF, "to": _RELATION_REF, "found": {"type": "boolean"},
             "hops": {"type": "array", "items": _HOP}, "cost": {"type": ["number", "null"]}}),
)

DESCRIBE_RELATION = ToolSpec(
    ToolName.DESCRIBE_RELATION, "Describe one relation",
    "Everything known about one model, seed, snapshot or source table: its columns with types, "
    "descriptions and frequent values, its primary key, and its links out (columns that reference "
    "other relations) and in (relations whose columns reference it), each with its ON condition.",
    _object({"name": {"type": "string", "minLength": 1,
                      "description": "Model or table name (case-insensitive), or unique_id."}}),
    _object({
        "unique_id": _STR, "name": _STR, "model": _STR, "relation_name": _STR, "resource_type": _STR,
        "project": _STR, "database": _STR, "schema": _STR, "description": _STR, "tags": _STRINGS,
        "primary_key": _STRINGS,
        "columns": {"type": "array", "items": _object({
            "name": _STR, "data_type": _OPT_STR, "description": _STR, "primary_key": {"type": "boolean"},
            "references": _STRINGS, "frequent_values": _STRINGS})},
        "links_out": {"type": "array", "items": _LINK},
        "links_in": {"type": "array", "items": _LINK},
    }),
)

LIST_LINKS = ToolSpec(
    ToolName.LIST_LINKS, "List the project's links",
    "The join links `dbt-schema-link link` found or read from the project (links.json entries: child and "
    "parent columns, kind, confidence, cardinality, typed evidence), optionally only those touching one "
    "relation or at or above a confidence.",
    _object({
        "relation": {"type": "string", "description": "Only links whose child or parent is this relation."},
        "min_confidence": {"type": "number", "minimum": 0, "maximum": 1, "description": "Default 0."},
        "include_lineage": {"type": "boolean",
                            "description": "Also pass-through copies of one column (not joins). Default false."},
    }, []),
    _object({
        "links": {"type": "array", "items": {
            "type": "object", "required": ["child", "parent", "kind", "provenance", "confidence"],
            "properties": {"child": {"type": "object"}, "parent": {"type": "object"}, "kind": _STR,
                           "provenance": _STR,
                           "confidence": _NUM, "evidence": {"type": "array", "items": {"type": "object"}}}}},
        "count": {"type": "integer"},
    }),
)

TOOL_SPECS: tuple[ToolSpec, ...] = (FIND_SCHEMA, JOIN_PATH, DESCRIBE_RELATION, LIST_LINKS)
