"""Column docs for FK columns: a one-line description naming the parent (only where none exists)
and ``meta.schema_link`` evidence (under ``config:`` from dbt 1.10). Human text is never replaced."""

from __future__ import annotations

from ruamel.yaml.comments import CommentedMap

from dbt_schema_link.artifacts.records import Relation, ResourceType
from dbt_schema_link.confidence import confidence_value
from dbt_schema_link.writers.records import AcceptedLink
from dbt_schema_link.writers.relationships import safe_text
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.yaml_io import YamlFile, map_add, plain

META_KEY = "schema_link"


def column_label(rel: Relation, column: str) -> str:
    """``customers.customer_id``; source tables as ``source.table.column``."""
    name = rel.name if rel.resource_type is ResourceType.SOURCE else rel.short_name
    return f"{name}.{column}"


def description_for(link: AcceptedLink, parent: Relation) -> str:
    return f"Joins to `{column_label(parent, link.parent.column)}` ({link.relationship_type.phrase})."


def has_description(column: CommentedMap | None) -> bool:
    text = column.get("description") if column is not None else None
    return isinstance(text, str) and bool(text.strip())


def has_meta(column: CommentedMap | None) -> bool:
    """The column already has link meta (``meta.schema_link`` naming a parent); a documentation
    marker alone (`write --docs`, doc_marker.py) does not count."""
    if column is None:
        return False
    for holder in (column.get("config"), column):
        meta = holder.get("meta") if isinstance(holder, dict) else None
        if isinstance(meta, dict) and META_KEY in meta:
            ours = meta[META_KEY]
            if not isinstance(ours, dict) or "parent" in ours or not ours.keys() & _DOC_MARKER_KEYS:
                return True
    return False


#: Keys of the documentation marker (doc_marker.py) that may share ``meta.schema_link``.
_DOC_MARKER_KEYS = frozenset({"generated", "inherited_from", "doc_hash"})


def meta_value(link: AcceptedLink, parent: Relation) -> CommentedMap:
    value = CommentedMap()
    value["parent"] = plain(column_label(parent, link.parent.column))
    value["relationship_type"] = link.relationship_type.meta_value
    value["confidence"] = confidence_value(link.confidence)
    if link.evidence_summary:
        value["evidence"] = plain(safe_text(link.evidence_summary))
    return value


def add_description(yfile: YamlFile, column: CommentedMap, text: str) -> None:
    yfile.editable(column)
    if "description" in column:  # present but empty/null: fill it in place
        column["description"] = plain(safe_text(text))
    else:
        map_add(column, "description", plain(safe_text(text)), after="name")


def add_meta(yfile: YamlFile, column: CommentedMap, value: CommentedMap, syntax: DbtSyntax) -> None:
    """Under the column's existing ``config.meta``/``meta`` if it has one, else where this dbt
    version wants it. New mappings are built whole before they are attached (comments stay put)."""
    yfile.editable(column)
    config = column.get("config")
    for existing in (config, column):  # a documentation marker is there: add the link keys to it
        meta = existing.get("meta") if isinstance(existing, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get(META_KEY), CommentedMap):
            yfile.editable(meta[META_KEY])
            for key, item in value.items():
                map_add(meta[META_KEY], key, item)
            return
    attach_meta(yfile, column, value, syntax)


def attach_meta(yfile: YamlFile, node: CommentedMap, value: CommentedMap, syntax: DbtSyntax) -> None:
    """Put ``value`` at ``meta.schema_link`` of a node that has none: under its existing
    ``config.meta``/``meta``, else where this dbt version wants meta."""
    config = node.get("config")
    if isinstance(config, dict) and isinstance(config.get("meta"), dict):
        holder, key, new = config["meta"], META_KEY, value
    elif isinstance(node.get("meta"), dict):
        holder, key, new = node["meta"], META_KEY, value
    elif syntax.column_meta_in_config and isinstance(config, dict):
        holder, key, new = config, "meta", CommentedMap({META_KEY: value})
    elif syntax.column_meta_in_config:
        holder, key, new = node, "config", CommentedMap(meta=CommentedMap({META_KEY: value}))
    else:
        holder, key, new = node, "meta", CommentedMap({META_KEY: value})
    yfile.editable(holder)
    if key in holder:  # present but empty (`meta:`): fill it where it is
        holder[key] = new
    else:
        map_add(holder, key, new)
