"""Semantic-layer entities: a primary entity on each parent key, a foreign entity (same name) on
each child column, so MetricFlow can join them.

Two spellings (docs/dbt_facts.md, "Semantic models"): the legacy top-level ``semantic_models:`` list (dbt 1.6-1.12, may
live in its own file), or the dbt 1.12 in-model spec (``semantic_model: {enabled: true}`` on the
model entry and ``entity:`` on its columns; 1.11 silently ignores it, so it needs 1.12). Entities
that already exist (in either spelling) are reused, never duplicated. Any semantic model needs a
time spine; one is created only when asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml as pyyaml
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dbt_schema_link.artifacts.manifest import resolve_target
from dbt_schema_link.artifacts.records import Project, Relation, ResourceType
from dbt_schema_link.writers.column_types import type_clash
from dbt_schema_link.writers.entries import (
    add_item,
    ensure_column,
    ensure_entry,
    entry_file,
    find_entry,
)
from dbt_schema_link.writers.options import SemanticSpec, WriteOptions
from dbt_schema_link.writers.records import AcceptedLink, Skipped, WritePlan
from dbt_schema_link.writers.state import WriteState
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.time_spine import (
    TIME_SPINE_MODEL,
    create_time_spine,
    model_paths,
)
from dbt_schema_link.writers.workspace import Workspace
from dbt_schema_link.writers.yaml_io import YamlRefused, map_add, plain, py_load

_PRIMARY_TYPES = frozenset({"primary", "unique", "natural"})
_NAME_SUFFIXES = ("_id", "_key", "_sk", "_pk", "_code", "id")
_PREFIXES = ("stg_", "dim_", "fct_", "fact_", "int_", "raw_", "src_", "base_")


@dataclass
class _Model:
    """One semantic model as far as entities go (existing or being created)."""

    uid: str
    name: str
    path: Path | None  # legacy: its file; None for the in-model spec
    entities: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (type, column lower)

    @property
    def columns(self) -> set[str]:
        return {col for _, col in self.entities.values()}

    @property
    def has_primary(self) -> bool:
        return any(kind == "primary" for kind, _ in self.entities.values())


@dataclass
class SemanticScan:
    """What the project's YAML already says about semantic models and time spines."""

    models: dict[str, _Model] = field(default_factory=dict)  # by relation uid (first one wins)
    names: set[str] = field(default_factory=set)  # every semantic model name
    disabled: set[str] = field(default_factory=set)  # models with `semantic_model: {enabled: false}`
    time_spine: str | None = None  # where one was found


def scan(project: Project, project_dir: Path) -> SemanticScan:
    found = SemanticScan()
    spine = next((r for r in project.relations.values() if r.name == TIME_SPINE_MODEL
                  and r.resource_type is ResourceType.MODEL), None)
    if spine is not None:
        found.time_spine = f"model {spine.name}"
    for root in model_paths(project_dir):
        for path in sorted((project_dir / root).rglob("*.y*ml")) if (project_dir / root).is_dir() else ():
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "semantic_model" not in text and "time_spine" not in text:
                continue
            try:
                data = py_load(text)
            except pyyaml.YAMLError:
                continue
            if isinstance(data, dict):
                _scan_doc(found, data, path.resolve(), project)
    return found


def _scan_doc(found: SemanticScan, data: dict, path: Path, project: Project) -> None:
    for sm in data.get("semantic_models") or []:
        if not isinstance(sm, dict) or not isinstance(sm.get("name"), str):
            continue
        found.names.add(sm["name"])
        uid = resolve_target(str(sm.get("model") or ""), project.relations, project.project_name)
        if uid is None or uid in found.models:
            continue
        model = _Model(uid, sm["name"], path)
        for entity in sm.get("entities") or []:
            if isinstance(entity, dict) and isinstance(entity.get("name"), str):
                column = str(entity.get("expr") or entity["name"]).strip().lower()
                model.entities[entity["name"]] = (str(entity.get("type", "")), column)
        found.models[uid] = model
    for entry in data.get("models") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        if entry.get("time_spine") and found.time_spine is None:
            found.time_spine = f"model {entry['name']} (time_spine: in {path.name})"
        spec = entry.get("semantic_model")
        rel = next((r for r in project.relations.values() if r.resource_type is ResourceType.MODEL
                    and r.name == entry["name"]), None)
        if rel is not None and isinstance(spec, dict) and spec.get("enabled") is False:
            found.disabled.add(rel.unique_id)
            continue
        if rel is None or not spec or rel.unique_id in found.models:
            continue
        name = spec.get("name") if isinstance(spec, dict) and isinstance(spec.get("name"), str) else entry["name"]
        found.names.add(name)
        model = _Model(rel.unique_id, name, None)
        for column in entry.get("columns") or []:
            entity = column.get("entity") if isinstance(column, dict) else None
            if not entity or not isinstance(column.get("name"), str):
                continue
            kind = entity if isinstance(entity, str) else str(entity.get("type", ""))
            ename = entity.get("name") if isinstance(entity, dict) and entity.get("name") else column["name"]
            model.entities[str(ename)] = (kind, column["name"].lower())
        found.models[rel.unique_id] = model


def entity_name(rel: Relation, column: str) -> str:
    """``customer_id`` -> ``customer``; a bare ``id`` takes the (singular) relation name."""
    base = column.lower()
    for suffix in _NAME_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    base = base.strip("_")
    if base in ("", "id", "key", "pk", "sk"):
        base = rel.short_name.lower()
        for prefix in _PREFIXES:
            if base.startswith(prefix) and len(base) > len(prefix):
                base = base[len(prefix):]
                break
        base = _singular(base)
    return sanitize(base)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def sanitize(name: str) -> str:
    """MetricFlow names: lower snake case, starts with a letter, no double underscores."""
    out = re.sub(r"[^a-z0-9_]", "_", name.lower())
    out = re.sub(r"_+", "_", out).strip("_")
    if not out or not out[0].isalpha():
        out = f"e_{out}".rstrip("_")
    return out


class _Writer:
    """Adds entities through the workspace, in either spelling."""

    def __init__(self, ws: Workspace, project: Project, project_dir: Path, syntax: DbtSyntax,
                 options: WriteOptions, state: WriteState, plan: WritePlan, found: SemanticScan) -> None:
        self.ws, self.project, self.project_dir = ws, project, project_dir
        self.syntax, self.options, self.state, self.plan, self.found = syntax, options, state, plan, found
        self.names = set(found.names)
        self.keys: dict[tuple[str, str], str] = {}  # (uid, column lower) -> primary/unique entity name
        self.owner: dict[str, tuple[str, str]] = {}  # primary/unique entity name -> (uid, column)
        for model in found.models.values():
            for name, (kind, column) in model.entities.items():
                if kind in _PRIMARY_TYPES:
                    self.keys.setdefault((model.uid, column), name)
                    self.owner.setdefault(name, (model.uid, column))

    def model(self, rel: Relation) -> _Model:
        existing = self.found.models.get(rel.unique_id)
        if existing is not None:
            return existing
        name = rel.name
        while name in self.names:
            name = f"{name}_sl"
        self.names.add(name)
        path = None
        if self.options.semantic_models is SemanticSpec.LEGACY:
            directory = PurePosixPath((rel.original_file_path or "models/x").replace("\\", "/")).parent
            path = (self.project_dir / self.options.new_file_pattern.format(dir=str(directory), name=rel.name)).resolve()
        model = _Model(rel.unique_id, name, path)
        self.found.models[rel.unique_id] = model
        return model

    def add(self, rel: Relation, column: str, kind: str, name: str, link: AcceptedLink) -> bool:
        """Write one entity; False (and the file refused) when it cannot be written."""
        model = self.model(rel)
        try:
            if model.path is not None:
                self._add_legacy(rel, model, column, kind, name)
            else:
                self._add_in_model(rel, model, column, kind, name)
        except _Refused as exc:
            self.ws.refuse(exc.path, exc.reason, link)
            return False
        model.entities[name] = (kind, column.lower())
        return True

    def _add_legacy(self, rel: Relation, model: _Model, column: str, kind: str, name: str) -> None:
        assert model.path is not None
        try:
            yfile = self.ws.open(model.path)
            if yfile.is_new and "version" not in yfile.doc:
                map_add(yfile.doc, "version", 2)
            entity = CommentedMap()
            entity["name"] = plain(name)
            entity["type"] = kind
            if column.lower() != name:
                entity["expr"] = plain(column)
            sms = yfile.doc.get("semantic_models")
            entry = next((s for s in sms or [] if isinstance(s, CommentedMap) and s.get("name") == model.name), None)
            if entry is None:
                entry = CommentedMap()
                entry["name"] = plain(model.name)
                entry["model"] = plain(rel.ref_expression())
                entry["entities"] = CommentedSeq([entity])
                add_item(yfile, yfile.doc, "semantic_models", entry)
                yfile.actions.append(f"add semantic model {model.name}")
            else:
                add_item(yfile, entry, "entities", entity)
        except YamlRefused as exc:
            raise _Refused(model.path, str(exc)) from None
        yfile.actions.append(f"{kind} entity {name} on {rel.short_name}.{column}")
        self.ws.record(model.path, "entities", _key(rel, column, kind))

    def _add_in_model(self, rel: Relation, model: _Model, column: str, kind: str, name: str) -> None:
        target = entry_file(rel, self.project_dir, self.options.new_file_pattern)
        if isinstance(target, str):
            raise _Refused(self.project_dir / "dbt_project.yml", target)
        try:
            yfile = self.ws.open(target.path, may_create=not target.has_entry)
            if find_entry(yfile, rel) is None and target.has_entry:
                raise YamlRefused(f"no entry for {rel.name} in this file although the manifest says so: run `dbt parse`")
            entry = ensure_entry(yfile, rel)
            if "semantic_model" not in entry:
                spec = CommentedMap()
                spec["enabled"] = True
                map_add(entry, "semantic_model", spec, after="description" if "description" in entry else "name")
                yfile.actions.append(f"enable semantic model {rel.name}")
            col = ensure_column(yfile, entry, column)
            entity = CommentedMap()
            entity["type"] = kind
            entity["name"] = plain(name)
            map_add(col, "entity", entity)
        except YamlRefused as exc:
            raise _Refused(target.path, str(exc)) from None
        yfile.actions.append(f"{kind} entity {name} on {rel.short_name}.{column}")
        self.ws.record(target.path, "entities", _key(rel, column, kind))


class _Refused(Exception):
    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(reason)
        self.path, self.reason = path, reason


def _key(rel: Relation, column: str, kind: str) -> str:
    return f"{rel.unique_id}.{column.lower()}:{'foreign' if kind == 'foreign' else 'key'}"


def _semantic_capable(rel: Relation, spec: SemanticSpec) -> bool:
    if spec is SemanticSpec.MODEL:
        return rel.resource_type is ResourceType.MODEL
    return rel.resource_type in (ResourceType.MODEL, ResourceType.SEED, ResourceType.SNAPSHOT)


def write_entities(ws: Workspace, project: Project, project_dir: Path, links: list[AcceptedLink],
                   syntax: DbtSyntax, options: WriteOptions, state: WriteState, plan: WritePlan) -> None:
    spec = options.semantic_models
    if spec is SemanticSpec.MODEL and not syntax.model_semantic_spec:
        plan.notes.append(
            f"semantic entities not written: the in-model semantic spec needs dbt >= 1.12 (project is on "
            f"{syntax.label}, which ignores it); use the legacy spec (semantic_models: legacy)"
        )
        return
    found = scan(project, project_dir)
    eligible = []
    for link in links:
        child, parent = project.relations[link.child.relation], project.relations[link.parent.relation]
        if {child.unique_id, parent.unique_id} & found.disabled:
            plan.skipped.append(Skipped(link, "entity", "its model's semantic model is disabled (enabled: false)"))
            continue
        if not (_semantic_capable(child, spec) and _semantic_capable(parent, spec)):
            plan.skipped.append(Skipped(link, "entity", "semantic models can only be built on "
                                        + ("models" if spec is SemanticSpec.MODEL else "models, seeds and snapshots")))
            continue
        clash = type_clash(project, link)
        if clash:
            plan.skipped.append(Skipped(link, "entity", clash))
            continue
        eligible.append((link, child, parent))
    if not eligible:
        return
    if found.time_spine is None and not found.models:
        if not options.create_time_spine:
            plan.notes.append(
                "semantic entities not written: the project has no time spine (a model named "
                f"{TIME_SPINE_MODEL} or one with `time_spine:`), and dbt fails to parse semantic models "
                "without one; add one, or pass --create-time-spine to write a minimal daily spine"
            )
            return
        if not create_time_spine(ws, project, project_dir, syntax, options, plan):
            return
    writer = _Writer(ws, project, project_dir, syntax, options, state, plan, found)
    names = {}  # parent keys first, so new semantic models list their primary entity first
    for link, _, parent in eligible:
        names[link] = _parent_entity(writer, link, parent)
    for link, child, _ in eligible:
        if names[link] is not None:
            _child_entity(writer, link, child, names[link])


def _parent_entity(w: _Writer, link: AcceptedLink, parent: Relation) -> str | None:
    """The primary (or unique) entity name on the parent key, written when missing."""
    parent_col = link.parent.column.lower()
    name = w.keys.get((parent.unique_id, parent_col))
    if name is not None:
        return name
    if w.state.has("entities", _key(parent, link.parent.column, "primary")):
        w.plan.skipped.append(Skipped(link, "entity", "rejected: the parent entity was removed after it was written"))
        return None
    parent_model = w.model(parent)
    name = entity_name(parent, link.parent.column)
    if name in w.owner and w.owner[name] != (parent.unique_id, parent_col):
        name = sanitize(f"{entity_name(parent, 'id')}_{link.parent.column}")
    if name in w.owner or name in parent_model.entities:
        w.plan.skipped.append(Skipped(link, "entity", f"entity name {name} is already taken"))
        return None
    kind = "unique" if parent_model.has_primary else "primary"
    if not w.add(parent, link.parent.column, kind, name, link):
        return None
    w.keys[(parent.unique_id, parent_col)] = name
    w.owner[name] = (parent.unique_id, parent_col)
    return name


def _child_entity(w: _Writer, link: AcceptedLink, child: Relation, name: str) -> None:
    child_model = w.model(child)
    if link.child.column.lower() in child_model.columns:
        return  # the child column already is an entity
    if w.state.has("entities", _key(child, link.child.column, "foreign")):
        w.plan.skipped.append(Skipped(link, "entity", "rejected: the foreign entity was removed after it was written"))
        return
    if name in child_model.entities:
        w.plan.skipped.append(Skipped(
            link, "entity", f"semantic model {child_model.name} already has an entity named {name} on another column"
        ))
        return
    w.add(child, link.child.column, "foreign", name, link)
