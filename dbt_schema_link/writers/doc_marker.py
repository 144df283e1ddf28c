"""The marker on descriptions this package wrote, and who wrote a description.

A generated description carries ``meta.schema_link`` (under ``config:`` from dbt 1.10)::

    generated: inherited          # or: draft
    inherited_from: stg_orders.status
    doc_hash: 3f2a9c1be04d        # of the text as written

The hash tells our text from a person's: once someone edits a generated description it no longer
matches, and from then on it is theirs (never rewritten, counted as written by a person).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Mapping

from ruamel.yaml.comments import CommentedMap

from dbt_schema_link.writers.column_docs import META_KEY, attach_meta
from dbt_schema_link.writers.doc_records import DocOrigin, Generated
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.yaml_io import YamlFile, map_add, plain

GENERATED = "generated"
INHERITED_FROM = "inherited_from"
DOC_HASH = "doc_hash"
#: What `write` (join docs) puts under ``meta.schema_link`` of a foreign-key column.
LINK_PARENT = "parent"
LINK_TYPE = "relationship_type"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def description(node: Mapping | None) -> str:
    text = node.get("description") if isinstance(node, Mapping) else None
    return text if isinstance(text, str) else ""


def meta_of(node: Mapping | None) -> Mapping:
    """``meta.schema_link`` of a column / entry, wherever it keeps its meta ({} if none)."""
    if not isinstance(node, Mapping):
        return {}
    for holder in (node.get("config"), node):
        meta = holder.get("meta") if isinstance(holder, Mapping) else None
        if isinstance(meta, Mapping) and isinstance(meta.get(META_KEY), Mapping):
            return meta[META_KEY]
    return {}


@dataclass(frozen=True)
class Marker:
    generated: Generated | None
    inherited_from: str | None
    doc_hash: str | None

    @classmethod
    def of(cls, node: Mapping | None) -> Marker:
        meta = meta_of(node)
        try:
            generated = Generated(str(meta.get(GENERATED))) if meta.get(GENERATED) is not None else None
        except ValueError:
            generated = None
        source = meta.get(INHERITED_FROM)
        digest = meta.get(DOC_HASH)
        return cls(generated, str(source) if source else None, str(digest) if digest else None)

    def ours(self, text: str) -> bool:
        """The description is still the text we wrote."""
        return self.generated is not None and self.doc_hash == text_hash(text)


def join_description(meta: Mapping) -> str | None:
    """The "Joins to ..." text `write` gives a foreign-key column, rebuilt from its meta."""
    parent, rtype = meta.get(LINK_PARENT), meta.get(LINK_TYPE)
    if not parent or not rtype:
        return None
    return f"Joins to `{parent}` ({rtype})."


def origin(node: Mapping | None) -> DocOrigin:
    """Who wrote the description of this column / entry."""
    text = description(node)
    if not text.strip():
        return DocOrigin.NONE
    marker = Marker.of(node)
    if marker.ours(text):
        return DocOrigin.INHERITED if marker.generated is Generated.INHERITED else DocOrigin.DRAFTED
    if text == join_description(meta_of(node)):
        return DocOrigin.DRAFTED
    return DocOrigin.PERSON


def marker_value(generated: Generated, text: str, inherited_from: str | None = None) -> dict[str, Any]:
    value: dict[str, Any] = {GENERATED: generated.value}
    if inherited_from:
        value[INHERITED_FROM] = plain(inherited_from)
    value[DOC_HASH] = text_hash(text)
    return value


def set_marker(yfile: YamlFile, node: CommentedMap, value: Mapping[str, Any], syntax: DbtSyntax) -> None:
    """Merge ``value`` into the node's ``meta.schema_link`` (made where this dbt version wants
    meta when the node has none). Keys already there are replaced, others kept."""
    yfile.editable(node)
    current = _schema_link_map(node)
    if current is not None:
        yfile.editable(current)
        for key, item in value.items():
            if key in current:
                current[key] = item
            else:
                map_add(current, key, item)
        for key in [k for k in (INHERITED_FROM,) if k in current and k not in value]:
            del current[key]
        return
    attach_meta(yfile, node, CommentedMap(value), syntax)


def _schema_link_map(node: CommentedMap) -> CommentedMap | None:
    for holder in (node.get("config"), node):
        meta = holder.get("meta") if isinstance(holder, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get(META_KEY), CommentedMap):
            return meta[META_KEY]
    return None
