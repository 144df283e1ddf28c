"""Find (or create) the one YAML entry that describes a model, seed, snapshot or source table.

dbt allows one entry per node across all files, so an existing entry is always edited in the
file the manifest names (``patch_path`` for models/seeds/snapshots, ``original_file_path`` for
source tables); a new file is made only for nodes that have no entry at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dbt_schema_link.artifacts.records import Relation, ResourceType
from dbt_schema_link.writers.yaml_io import (
    YamlFile,
    YamlRefused,
    add_to_list,
    map_add,
    plain,
)

SECTION = {
    ResourceType.MODEL: "models",
    ResourceType.SEED: "seeds",
    ResourceType.SNAPSHOT: "snapshots",
}
_PATCH_PREFIX = re.compile(r"^[A-Za-z0-9_.\-]*://")


@dataclass(frozen=True)
class EntryFile:
    """Where a relation's entry lives (or will live)."""

    relation: Relation
    path: Path  # absolute
    display: str  # relative to the project directory, POSIX separators
    has_entry: bool  # the manifest says an entry exists in this file


def entry_file(rel: Relation, project_dir: Path, pattern: str) -> EntryFile | str:
    """The file holding ``rel``'s entry, or the new file to create; a str is why not."""
    if len(rel.unique_id.split(".")) > 3 and rel.resource_type is ResourceType.MODEL:
        return f"{rel.name} is a versioned model; add tests to its `versions:` entry by hand"
    if rel.resource_type is ResourceType.SOURCE:
        if not rel.original_file_path:
            return f"source {rel.name} has no original_file_path in the manifest: run `dbt parse`"
        return _entry(rel, project_dir, rel.original_file_path, True)
    if rel.patch_path:
        return _entry(rel, project_dir, _PATCH_PREFIX.sub("", rel.patch_path), True)
    ofp = rel.original_file_path or ""
    if ofp.endswith((".yml", ".yaml")):  # a snapshot defined in YAML (dbt >= 1.9)
        return _entry(rel, project_dir, ofp, True)
    directory = PurePosixPath(ofp.replace("\\", "/")).parent if ofp else PurePosixPath("models")
    rel_path = pattern.format(dir=str(directory), name=rel.name)
    return _entry(rel, project_dir, str(PurePosixPath(rel_path)), False)


def _entry(rel: Relation, project_dir: Path, relative: str, has_entry: bool) -> EntryFile | str:
    relative = relative.replace("\\", "/")
    while relative.startswith("./"):
        relative = relative[2:]
    path = (project_dir / relative).resolve()
    try:
        path.relative_to(project_dir.resolve())
    except ValueError:
        return f"{relative} is outside the project directory; dbt-schema-link edits only the project's own files"
    return EntryFile(rel, path, relative, has_entry)


def _name(value: Any) -> str:
    return str(value).strip().strip('"').strip("`") if value is not None else ""


def _items(parent: CommentedMap, key: str) -> CommentedSeq | None:
    value = parent.get(key)
    if value is None:
        return None
    if not isinstance(value, CommentedSeq):
        raise YamlRefused(f"`{key}:` is not a list")
    return value


def _find_named(seq: CommentedSeq | None, name: str) -> CommentedMap | None:
    if seq is None:
        return None
    exact = [i for i in seq if isinstance(i, CommentedMap) and _name(i.get("name")) == name]
    if exact:
        return exact[0]
    lowered = [i for i in seq if isinstance(i, CommentedMap) and _name(i.get("name")).lower() == name.lower()]
    return lowered[0] if lowered else None


def find_entry(yfile: YamlFile, rel: Relation) -> CommentedMap | None:
    doc = yfile.doc
    if rel.resource_type is ResourceType.SOURCE:
        source_name, table = rel.name.split(".", 1)
        source = _find_named(_items(doc, "sources"), source_name)
        return _find_named(_items(source, "tables"), table) if source is not None else None
    return _find_named(_items(doc, SECTION[rel.resource_type]), rel.name)


def add_item(yfile: YamlFile, parent: CommentedMap, key: str, item: Any) -> None:
    """Append to ``parent[key]`` (created when missing), refusing shared (anchored) nodes."""
    yfile.editable(parent)
    existing = parent.get(key)
    if existing is not None:
        yfile.editable(existing)
    add_to_list(parent, key, item)


def ensure_entry(yfile: YamlFile, rel: Relation) -> CommentedMap:
    found = find_entry(yfile, rel)
    if found is not None:
        yfile.editable(found)
        return found
    if rel.resource_type is ResourceType.SOURCE:
        raise YamlRefused(f"no entry for source table {rel.name} in this file: the manifest is stale, run `dbt parse`")
    if not yfile.doc and "version" not in yfile.doc:
        map_add(yfile.doc, "version", 2)
    entry = CommentedMap(name=plain(rel.name))
    add_item(yfile, yfile.doc, SECTION[rel.resource_type], entry)
    yfile.actions.append(f"add entry {rel.name}")
    return entry


def find_column(entry: CommentedMap | None, name: str) -> CommentedMap | None:
    if entry is None:
        return None
    return _find_named(_items(entry, "columns"), name)


def ensure_column(yfile: YamlFile, entry: CommentedMap, name: str) -> CommentedMap:
    found = find_column(entry, name)
    if found is not None:
        yfile.editable(found)
        return found
    column = CommentedMap(name=plain(name))
    add_item(yfile, entry, "columns", column)
    return column
