"""`write --docs inherit,draft`: descriptions for undocumented columns and relations, planned into
the same workspace as the link write-back (round trip, atomic, idempotent).

Order inside one plan: inherit (before links, so a copied foreign key gets its upstream's words
rather than "Joins to ...") -> links -> drafts (after links, so a foreign key keeps its join
description). Text a person wrote is never touched; text we wrote carries a marker with its hash
(doc_marker.py), so an inherited description whose upstream changed is updated (and reported by
`--check`) only while nobody has edited it. A generated description that a person deleted is
remembered in the state file and not written again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from dbt_schema_link.artifacts.records import ColumnRef, Project, Relation
from dbt_schema_link.writers import doc_drafts
from dbt_schema_link.writers.column_docs import column_label
from dbt_schema_link.writers.doc_lineage import Ambiguous, Ancestor, LineageGraph
from dbt_schema_link.writers.doc_marker import (
    META_KEY,
    Marker,
    description,
    marker_value,
    origin,
    set_marker,
)
from dbt_schema_link.writers.doc_records import DocOrigin, DocsInput, DocsMode, Generated, WordingRequest
from dbt_schema_link.writers.entries import (
    EntryFile,
    ensure_column,
    ensure_entry,
    entry_file,
    find_column,
    find_entry,
)
from dbt_schema_link.writers.options import WriteOptions
from dbt_schema_link.writers.records import WritePlan
from dbt_schema_link.writers.relationships import safe_text
from dbt_schema_link.writers.state import WriteState, column_key
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.workspace import Workspace
from dbt_schema_link.writers.yaml_io import YamlFile, YamlRefused, map_add, plain

#: State-file kind: generated descriptions written (column keys, relation unique_ids).
STATE_KIND = "generated_docs"


@dataclass
class DocsRun:
    """One planning run's context, shared by the inherit and draft passes."""

    ws: Workspace
    project: Project
    project_dir: Path
    syntax: DbtSyntax
    options: WriteOptions
    state: WriteState
    given: DocsInput
    plan: WritePlan
    joins: tuple = ()  # accepted and declared links (child, parent): the joins relation drafts name
    lineage: LineageGraph = field(init=False)
    own: set[str] = field(init=False)
    ambiguous: list[str] = field(default_factory=list)
    unprofiled: int = 0
    rejected: int = 0
    unworded: int = 0  # drafts the wording hook did not improve (failed, or dropped a fact)

    def __post_init__(self) -> None:
        self.lineage = LineageGraph(self.given.lineage)
        self.own = {r.unique_id for r in self.relations()}

    # -- reading ---------------------------------------------------------------------------

    def relations(self) -> list[Relation]:
        """The root project's enabled relations, in a stable order."""
        name = self.project.project_name
        return [r for _, r in sorted(self.project.relations.items())
                if r.enabled and (not name or not r.package_name or r.package_name == name)]

    def target(self, rel: Relation) -> EntryFile | None:
        found = entry_file(rel, self.project_dir, self.options.new_file_pattern)
        return found if isinstance(found, EntryFile) else None

    def yaml_column(self, ref: ColumnRef) -> CommentedMap | None:
        """The column's YAML mapping as edited so far (None without one)."""
        rel = self.project.relations.get(ref.relation)
        target = self.target(rel) if rel is not None else None
        if target is None or not target.has_entry:
            return None
        try:
            return find_column(find_entry(self.ws.open(target.path, may_create=False), rel), ref.column)
        except YamlRefused:
            return None

    def person_text(self, ref: ColumnRef) -> str | None:
        rel = self.project.relations.get(ref.relation)
        if rel is None:
            return None
        if rel.unique_id in self.own:
            column = self.yaml_column(ref)
            return str(description(column)) if origin(column) is DocOrigin.PERSON else None
        manifest = rel.column(ref.column)  # another package: its parsed description
        return manifest.description if manifest is not None and manifest.description.strip() else None

    # -- passes ----------------------------------------------------------------------------

    def each_column(self, work) -> None:
        """Call ``work(yfile, target, rel, column name, yaml column or None)`` for every column of
        every relation; a refused file is left whole."""
        for rel in self.relations():
            target = self.target(rel)
            if target is None or not rel.columns:
                continue
            try:
                yfile = self.ws.open(target.path, may_create=not target.has_entry)
                if find_entry(yfile, rel) is None and target.has_entry:
                    raise YamlRefused(f"no entry for {rel.name} in this file although the manifest says so: run `dbt parse`")
                for col in sorted(rel.columns.values(), key=lambda c: (c.index, c.name.lower())):
                    # looked up each time: an earlier column may have created the entry
                    work(yfile, target, rel, col.name, find_column(find_entry(yfile, rel), col.name))
            except YamlRefused as exc:
                self.ws.refuse(target.path, str(exc))

    def inherit(self) -> None:
        self.each_column(self._inherit_column)
        if self.ambiguous:
            shown = ", ".join(self.ambiguous[:3]) + (" ..." if len(self.ambiguous) > 3 else "")
            self.plan.notes.append(f"not inherited ({len(self.ambiguous)}): several documented upstream columns "
                                   f"with different descriptions: {shown}")

    def draft(self) -> None:
        if self.options.draft_columns:
            self.each_column(self._draft_column)
        if self.options.draft_relations:
            for rel in self.relations():
                self._draft_relation(rel)
        if self.unprofiled:
            self.plan.notes.append(f"{self.unprofiled} column(s) not drafted: no profile "
                                   f"(run `dbt-schema-link profile` or `link`)")

    def finish_notes(self) -> None:
        if self.unworded:
            self.plan.notes.append(f"{self.unworded} draft(s) kept as measured: the LLM wording failed or "
                                   f"dropped a value")
        if self.rejected:
            self.plan.notes.append(f"{self.rejected} generated description(s) not written again: removed by hand "
                                   f"(see the state file)")

    # -- one column / relation -------------------------------------------------------------

    def _inherit_column(self, yfile: YamlFile, target: EntryFile, rel: Relation, name: str,
                        column: CommentedMap | None) -> None:
        ref = ColumnRef(rel.unique_id, name)
        now = origin(column)
        if now is DocOrigin.PERSON:
            return
        if now is DocOrigin.NONE and self.state.has(STATE_KIND, column_key(ref)):
            self.rejected += 1
            return
        found = self.lineage.nearest_documented(ref, self.person_text)
        if isinstance(found, Ambiguous):
            self.ambiguous.append(column_label(rel, name))
            return
        if not isinstance(found, Ancestor):
            return
        source = self.project.relations[found.ref.relation]
        label = column_label(source, found.ref.column)
        text = found.text
        if now is DocOrigin.INHERITED:
            marker = Marker.of(column)
            if marker.inherited_from == label and description(column) == text:
                return
            self.plan.notes.append(f"stale inherited description: {column_label(rel, name)} "
                                   f"(from {marker.inherited_from}; now {label})")
        column = self._column(yfile, rel, name)
        _set_description(yfile, column, text)
        if self.options.inherit_meta:
            _copy_meta_and_tags(yfile, column, self.yaml_column(found.ref), self.syntax)
        set_marker(yfile, column, marker_value(Generated.INHERITED, text, label), self.syntax)
        yfile.actions.append(f"inherit {column_label(rel, name)} <- {label}")
        self.ws.record(target.path, STATE_KIND, column_key(ref))

    def _draft_column(self, yfile: YamlFile, target: EntryFile, rel: Relation, name: str,
                      column: CommentedMap | None) -> None:
        if origin(column) is not DocOrigin.NONE:
            return
        ref = ColumnRef(rel.unique_id, name)
        if self.state.has(STATE_KIND, column_key(ref)):
            self.rejected += 1
            return
        profiles = self.given.profiles
        profile = profiles.relations.get(rel.unique_id) if profiles is not None else None
        text = doc_drafts.column_draft(name, profile, self.options.draft_max_values, self.parents_of(ref))
        if text is None:
            self.unprofiled += 1
            return
        text = self._worded(column_label(rel, name), safe_text(text))
        column = self._column(yfile, rel, name)
        _set_description(yfile, column, text)
        set_marker(yfile, column, marker_value(Generated.DRAFT, text), self.syntax)
        yfile.actions.append(f"draft {column_label(rel, name)}")
        self.ws.record(target.path, STATE_KIND, column_key(ref))

    def parents_of(self, ref: ColumnRef) -> list[str]:
        """``relation.column`` of each parent the column's accepted (or declared) links name."""
        out: list[str] = []
        for link in self.joins:
            parent = self.project.relations.get(link.parent.relation)
            if link.child.relation == ref.relation and link.child.column.lower() == ref.column.lower() and parent:
                label = column_label(parent, link.parent.column)
                if label not in out:
                    out.append(label)
        return out

    def _draft_relation(self, rel: Relation) -> None:
        target = self.target(rel)
        if target is None:
            return
        try:
            yfile = self.ws.open(target.path, may_create=not target.has_entry)
            entry = find_entry(yfile, rel)
            if origin(entry) is not DocOrigin.NONE or (entry is None and rel.description.strip()):
                return
            if self.state.has(STATE_KIND, rel.unique_id):
                self.rejected += 1
                return
            profiles = self.given.profiles
            profile = profiles.relations.get(rel.unique_id) if profiles is not None else None
            joins = [j for j in self.joins if j.child.relation == rel.unique_id]
            text = doc_drafts.relation_draft(rel, profile, joins, self.project.relations)
            if text is None:
                return
            text = self._worded(rel.name, safe_text(text))
            entry = ensure_entry(yfile, rel)
            _set_description(yfile, entry, text)
            set_marker(yfile, entry, marker_value(Generated.DRAFT, text), self.syntax)
            yfile.actions.append(f"draft {rel.name}")
            self.ws.record(target.path, STATE_KIND, rel.unique_id)
        except YamlRefused as exc:
            self.ws.refuse(target.path, str(exc))

    def _worded(self, subject: str, draft: str) -> str:
        """The draft, reworded by the optional wording hook when its text keeps every fact."""
        if self.given.wording is None:
            return draft
        facts = doc_drafts.facts_of(draft)
        reworded = doc_drafts.accept_wording(self.given.wording(WordingRequest(subject, draft, facts)), facts)
        if reworded is None:
            self.unworded += 1
            return draft
        return safe_text(reworded)

    def _column(self, yfile: YamlFile, rel: Relation, name: str) -> CommentedMap:
        entry = ensure_entry(yfile, rel)
        return ensure_column(yfile, entry, name)


def _set_description(yfile: YamlFile, node: CommentedMap, text: str) -> None:
    yfile.editable(node)
    if "description" in node:  # present but empty/null, or our own text: replace in place
        node["description"] = plain(text)
    else:
        map_add(node, "description", plain(text), after="name")


def _plain_copy(value):
    """A comment-free copy of a YAML value (so no comment of the upstream file travels)."""
    data = json.loads(json.dumps(value, default=str))

    def build(item):
        if isinstance(item, dict):
            return CommentedMap((k, build(v)) for k, v in item.items())
        if isinstance(item, list):
            return CommentedSeq(build(v) for v in item)
        return plain(item) if isinstance(item, str) else item

    return build(data)


def _copy_meta_and_tags(yfile: YamlFile, column: CommentedMap, upstream: CommentedMap | None,
                        syntax: DbtSyntax) -> None:
    """The upstream column's meta (ours left out) and tags, where the column has none of its own."""
    if upstream is None:
        return
    meta: dict = {}
    tags: list = []
    for holder in (upstream.get("config"), upstream):
        if isinstance(holder, dict):
            if isinstance(holder.get("meta"), dict):
                meta.update({k: v for k, v in holder["meta"].items() if k != META_KEY and k not in meta})
            if isinstance(holder.get("tags"), list):
                tags += [t for t in holder["tags"] if t not in tags]
    own_meta = any(isinstance(h, dict) and isinstance(h.get("meta"), dict) and set(h["meta"]) - {META_KEY}
                   for h in (column.get("config"), column))
    own_tags = any(isinstance(h, dict) and h.get("tags") for h in (column.get("config"), column))
    meta = {} if own_meta else meta
    tags = [] if own_tags else tags
    if not meta and not tags:
        return
    yfile.editable(column)
    holder = column
    if syntax.column_meta_in_config:  # column meta and tags live under config from dbt 1.10
        if not isinstance(column.get("config"), CommentedMap):
            map_add(column, "config", CommentedMap())
        holder = column["config"]
        yfile.editable(holder)
    if meta:
        if isinstance(holder.get("meta"), CommentedMap):
            yfile.editable(holder["meta"])
            for key, value in meta.items():
                map_add(holder["meta"], key, _plain_copy(value))
        else:
            map_add(holder, "meta", _plain_copy(meta))
    if tags:
        map_add(holder, "tags", _plain_copy(tags))


def plan_docs_before_links(run: DocsRun) -> None:
    if DocsMode.INHERIT in run.options.docs:
        run.inherit()


def plan_docs_after_links(run: DocsRun) -> None:
    if DocsMode.DRAFT in run.options.docs:
        run.draft()
    run.finish_notes()
