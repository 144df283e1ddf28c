"""Index documents: one record per relation and per column, the localization units (one per
schema, or per project), and the join edges (within and across units), built from one or more projects (with optional profiles and links.json).

Columns of one relation are stored contiguously (relation `i` owns columns
``col_start[i]:col_end[i]``) so per-relation aggregates are vectorised slices at question time.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from dbt_schema_link.artifacts.dag import relation_depths
from dbt_schema_link.artifacts.records import Column, Project, Relation, ResourceType
from dbt_schema_link.links import Link, Provenance
from dbt_schema_link.discovery.records import Rejection
from dbt_schema_link.linker.answer import FamilyRange
from dbt_schema_link.linker.families import DEFAULT_MIN_SHARDS, Family, find_families
from dbt_schema_link.linker.text import identifier_words
from dbt_schema_link.profiling.records import ProfileSet
from dbt_schema_link.writers.doc_marker import origin as description_origin
from dbt_schema_link.writers.doc_records import DocOrigin

#: How many profiled values per column are kept (value index, embedding and rendering samples).
MAX_VALUES = 500
#: A column's values describe it (its embedding text, its BM25 document) only when they are this
#: few: its categories. An alphabetical cut of hundreds of names says nothing of the column, though
#: the value index still grounds a question's literals in every one of them.
DESCRIBING_VALUES = 50
#: How many values go into a column's embedding text.
EMBED_VALUES = 5
#: Grouping modes for localization.
GROUP_MODES = ("auto", "schema", "project")
#: How much a description counts as evidence, by who wrote it (the marker `write --docs` leaves):
#: a person's words fully, an inherited copy of a person's upstream words a little less, a profile
#: draft (kind, counts, values, "Joins to ...": facts the index holds already) little, so drafted
#: seed descriptions never outweigh a mart's own documented columns.
DESCRIPTION_WEIGHT = {DocOrigin.PERSON: 1.0, DocOrigin.INHERITED: 0.7, DocOrigin.DRAFTED: 0.25, DocOrigin.NONE: 0.0}

#: What one document embeds: (text, weight) parts whose weighted vectors are summed. A generated
#: description weighing w gives (text without it, 1 - w) + (text with it, w), so its cosine with a
#: question is that blend of the two cosines; a person's description (w = 1) is one text.
EmbedParts = tuple[tuple[str, float], ...]


def _parts(weight: float, plain: str, described: str) -> EmbedParts:
    if weight >= 1.0 or plain == described:
        return ((described, 1.0),)
    return ((plain, 1.0 - weight), (described, weight))


def _origin(value: DocOrigin | str) -> DocOrigin:
    return value if isinstance(value, DocOrigin) else DocOrigin(value)


def described_by(description: str, meta: dict) -> DocOrigin:
    """Who wrote a manifest description: a person, or `write --docs` (inherited / drafted)."""
    return description_origin({"description": description, "meta": meta})


class _Described:
    """A document with a description and who wrote it (methods only; the dataclasses hold the fields)."""

    description: str
    origin: DocOrigin

    def __post_init__(self) -> None:
        self.origin = _origin(self.origin)

    @property
    def description_weight(self) -> float:
        return DESCRIPTION_WEIGHT[self.origin] if self.description else 0.0


@dataclass
class ColumnDoc(_Described):
    relation: int  # index into Corpus.relations
    name: str
    data_type: str
    description: str
    tags: list[str]
    values: list[str]
    is_pk: bool
    origin: DocOrigin = DocOrigin.PERSON  # who wrote the description

    def embed_text(self, relation: "RelationDoc", described: bool = True) -> str:
        text = f"{identifier_words(relation.short_name)} {identifier_words(self.name)}"
        if self.description and described:
            text += f": {self.description}"
        if self.values and len(self.values) <= DESCRIBING_VALUES:
            text += " (e.g. " + ", ".join(v[:40] for v in self.values[:EMBED_VALUES]) + ")"
        return text


#: A relation whose columns are at least this share copied into one downstream model is superseded.
SUPERSEDED_SHARE = 0.6


@dataclass
class RelationDoc(_Described):
    unique_id: str
    project: str
    name: str  # dbt node name ("source.table" for sources)
    short_name: str
    identifier: str  # the warehouse identifier
    relation_name: str
    resource_type: str
    database: str
    schema: str
    description: str
    tags: list[str]
    primary_key: list[str]
    group: int = 0
    # True when a downstream model passes most of this relation's columns through (lineage):
    # the question should be answered from that model, not from every layer of one table.
    superseded: bool = False
    layer: int = 0  # depth in the DAG: sources and seeds 0, models one more than their deepest parent
    col_start: int = 0
    col_end: int = 0
    #: names of nodes over the same table folded into this one (a package's source over a seed)
    aliases: list[str] = field(default_factory=list)
    origin: DocOrigin = DocOrigin.PERSON  # who wrote the description
    #: a relation family (linker/families.py): how many shards this relation stands for (0: not
    #: a family), the first and last shard's identifiers, whether the shards are dated
    shards: int = 0
    shard_first: str = ""
    shard_last: str = ""
    shard_dated: bool = False

    def family(self) -> FamilyRange | None:
        """The relation family it stands for (None: not a family)."""
        if not self.shards:
            return None
        return FamilyRange(self.short_name, self.shards, self.shard_first, self.shard_last, self.shard_dated)

    def embed_text(self, columns: list[ColumnDoc], described: bool = True) -> str:
        text = identifier_words(self.short_name)
        if self.description and described:
            text += f": {self.description}"
        names = ", ".join(identifier_words(c.name) for c in columns[:30])
        return f"{text}. Columns: {names}"


@dataclass
class GroupDoc:
    key: str  # "project:database.schema" or "project"
    project: str
    database: str
    schema: str  # one schema ("" in project mode)


@dataclass
class EdgeDoc:
    """One join edge of the index: a view of one link record's (child, parent) pair, by column
    index (a link holds for its lineage copies too, so one link gives one edge per pair)."""

    child: int  # column index
    parent: int
    provenance: Provenance
    confidence: float
    written_confidence: float | None = None
    #: Not a link: the names (or SQL) join these columns and the data refutes it (links.json's
    #: containment rejections: "named, contradicted by data", "values fall short"). Join completion takes such an edge only when no
    #: link connects the relations, and the answer says so; `confidence` is the names-only score.
    contradicted: str | None = None
    #: a composite key's further (child column, parent column) index pairs (``Link.extra_pairs``)
    extra: tuple[tuple[int, int], ...] = ()

    def column_pairs(self) -> tuple[tuple[int, int], ...]:
        """Every column pair the join compares: one, or each part of a composite key."""
        return ((self.child, self.parent),) + self.extra


#: Of two links on one column pair, the index keeps the surer kind first: a person's declaration,
#: then the project's SQL, then a written or inferred link.
_PROVENANCE_RANK = {Provenance.DECLARED: 3, Provenance.SQL: 1, Provenance.WRITTEN: 1, Provenance.INFERRED: 1,
                    Provenance.LINEAGE: 0}


@dataclass
class ProjectInput:
    """What one project contributes to an index."""

    project: Project
    profiles: ProfileSet | None = None
    links: list[Link] = field(default_factory=list)
    contradicted: list[Rejection] = field(default_factory=list)  # joins the values refute (linkfile.contradicted_pairs)


@dataclass
class Corpus:
    relations: list[RelationDoc]
    columns: list[ColumnDoc]
    groups: list[GroupDoc]
    edges: list[EdgeDoc]

    def column_parts(self) -> list[EmbedParts]:
        out = []
        for c in self.columns:
            rel = self.relations[c.relation]
            out.append(_parts(c.description_weight, c.embed_text(rel, described=False), c.embed_text(rel)))
        return out

    def relation_parts(self) -> list[EmbedParts]:
        out = []
        for r in self.relations:
            cols = self.columns[r.col_start:r.col_end]
            out.append(_parts(r.description_weight, r.embed_text(cols, described=False), r.embed_text(cols)))
        return out


def text_key(model: str, text: str | EmbedParts) -> str:
    """The embedding-cache key of one text (or one weighted blend of texts) under one model."""
    if not isinstance(text, str):
        text = text[0][0] if len(text) == 1 else "\x01".join(f"{w:.4f}\x00{t}" for t, w in text)
    return hashlib.blake2b(f"{model}\x00{text}".encode("utf-8"), digest_size=12).hexdigest()


def _values(profiles: ProfileSet | None, relation: Relation, column: str) -> list[str]:
    if profiles is None:
        return []
    prof = profiles.relations.get(relation.unique_id)
    col = prof.column(column) if prof else None
    if col is None or not col.top_values:
        return []
    out = []
    for v in col.top_values[:MAX_VALUES]:
        v = str(v).strip()
        if v and v.lower() not in ("none", "null") and len(v) <= 200:
            out.append(v)
    return out


def _project_name(inp: ProjectInput, position: int) -> str:
    return inp.project.project_name or f"project{position + 1}"


def build_corpus(inputs: list[ProjectInput], group_by: str = "auto", min_shards: int = DEFAULT_MIN_SHARDS) -> Corpus:
    """Documents for every enabled relation (models, seeds, snapshots, sources) of every project;
    a relation family (`min_shards` or more same-shaped shards, 0: never) is one document."""
    if group_by not in GROUP_MODES:
        raise ValueError(f"group_by must be one of {GROUP_MODES}")
    mode = group_by if group_by != "auto" else ("schema" if len(inputs) == 1 else "project")
    relations: list[RelationDoc] = []
    columns: list[ColumnDoc] = []
    col_index: dict[tuple[int, str, str], int] = {}  # (project position, uid, lower col) → column id
    rel_index: dict[tuple[int, str], int] = {}
    edges: list[EdgeDoc] = []
    names_seen: dict[str, int] = {}
    for pos, inp in enumerate(inputs):
        project = inp.project
        pname = _project_name(inp, pos)
        names_seen[pname] = names_seen.get(pname, 0) + 1
        if names_seen[pname] > 1:
            pname = f"{pname}#{names_seen[pname]}"
        layers = relation_depths(project)
        families = {f.representative: f for f in find_families(project.relations, min_shards)}
        folded = {uid: f.representative for f in families.values() for uid in f.folded}
        for uid in sorted(project.relations):
            rel = project.relations[uid]
            if not rel.columns or uid in folded:
                continue
            about, col_about = _family_descriptions(project, families[uid], rel) if uid in families else (rel, rel.columns)
            pk = {c.lower() for c in rel.primary_key}
            doc = RelationDoc(
                unique_id=uid,
                project=pname,
                name=rel.name,
                short_name=rel.short_name,
                identifier=rel.identifier,
                relation_name=rel.relation_name or rel.identifier,
                resource_type=rel.resource_type.value if isinstance(rel.resource_type, ResourceType) else str(rel.resource_type),
                database=rel.database or "",
                schema=rel.schema or "",
                description=about.description or "",
                tags=list(rel.tags),
                primary_key=list(rel.primary_key),
                layer=layers.get(uid, 0),
                col_start=len(columns),
                aliases=list(rel.aliases),
                origin=described_by(about.description or "", about.meta),
            )
            if uid in families:
                _as_family(doc, families[uid])
            rel_index[(pos, uid)] = len(relations)
            for col in sorted(rel.columns.values(), key=lambda c: c.index):
                col_index[(pos, uid, col.name.lower())] = len(columns)
                described = col_about[col.name.lower()]
                columns.append(ColumnDoc(
                    relation=len(relations),
                    name=col.name,
                    data_type=col.data_type or "",
                    description=described.description or "",
                    tags=list(col.tags),
                    values=_values(inp.profiles, rel, col.name),
                    is_pk=col.name.lower() in pk,
                    origin=described_by(described.description or "", described.meta),
                ))
            doc.col_end = len(columns)
            relations.append(doc)
        for uid, rep in folded.items():  # a shard's links and lineage are its family's
            rel_index[(pos, uid)] = rel_index[(pos, rep)]
            for name in project.relations[uid].columns:
                col_index[(pos, uid, name.lower())] = col_index[(pos, rep, name.lower())]
        best: dict[tuple[int, int], EdgeDoc] = {}
        copied: dict[tuple[int, int], set[int]] = {}  # (upstream rel, downstream rel) -> upstream columns
        for link in inp.links:
            if not link.is_join:  # a copy of the same column, not a join
                child = col_index.get((pos, link.child.relation, link.child.column.lower()))
                parent = col_index.get((pos, link.parent.relation, link.parent.column.lower()))
                up, down = rel_index.get((pos, link.parent.relation)), rel_index.get((pos, link.child.relation))
                if child is not None and parent is not None and up is not None and down is not None:
                    copied.setdefault((up, down), set()).add(parent)
                continue
            # the join holds between the lineage copies discovery carried it to (every layer)
            for c, p in link.pairs():
                child = col_index.get((pos, c.relation, c.column.lower()))
                parent = col_index.get((pos, p.relation, p.column.lower()))
                if child is None or parent is None or columns[child].relation == columns[parent].relation:
                    continue
                extra = tuple((col_index.get((pos, ec.relation, ec.column.lower())),
                               col_index.get((pos, ep.relation, ep.column.lower()))) for ec, ep in link.extra_pairs)
                if any(a is None or b is None for a, b in extra):
                    continue  # a composite key with a column the index does not hold: no edge
                old = best.get((child, parent))
                rank = (_PROVENANCE_RANK[link.provenance], link.confidence)
                if old is None or rank > (_PROVENANCE_RANK[old.provenance], old.confidence):
                    best[(child, parent)] = EdgeDoc(child, parent, link.provenance, link.confidence,
                                                    link.written_confidence, extra=extra)
        for r in inp.contradicted:
            child = col_index.get((pos, r.child.relation, r.child.column.lower()))
            parent = col_index.get((pos, r.parent.relation, r.parent.column.lower()))
            if child is None or parent is None or (child, parent) in best \
                    or columns[child].relation == columns[parent].relation:
                continue
            best[(child, parent)] = EdgeDoc(child, parent, Provenance.INFERRED, r.would_be_confidence,
                                            contradicted=r.detail)
        edges.extend(best[k] for k in sorted(best))
        for (up, _down), cols in copied.items():
            n_cols = relations[up].col_end - relations[up].col_start
            if n_cols and len(cols) >= SUPERSEDED_SHARE * n_cols:
                relations[up].superseded = True
    groups = _assign_groups(relations, mode)
    return Corpus(relations, columns, groups, edges)


def _family_descriptions(project: Project, family: Family, rel: Relation) -> tuple[Relation, dict[str, Column]]:
    """Where a family's descriptions come from: the relation standing for it, else the latest
    shard that has one (a person documents one shard, often not the newest)."""
    order = [project.relations[u] for u in (family.representative, *reversed(family.folded))]
    about = next((r for r in order if r.description), rel)
    cols = {name: next((r.columns[name] for r in order if name in r.columns and r.columns[name].description), col)
            for name, col in rel.columns.items()}
    return about, cols


def _as_family(doc: RelationDoc, family: Family) -> None:
    """The family's representative stands for it, named by the family's stem."""
    doc.short_name = family.stem
    doc.shards = len(family.shards)
    doc.shard_first, doc.shard_last, doc.shard_dated = family.first, family.last, family.dated


def _assign_groups(relations: list[RelationDoc], mode: str) -> list[GroupDoc]:
    """Localization units: one per schema (one per project in project mode). Links never merge
    units: a stray inferred link between two unrelated schemas (same-named small integer ids)
    would otherwise make them one place to answer from. Links across units stay join edges that
    the linker may use when a question's evidence spans both units."""
    if mode == "project":
        keys = [(r.project,) for r in relations]
    else:
        keys = [(r.project, r.database, r.schema) for r in relations]
    groups: list[GroupDoc] = []
    group_of: dict[tuple, int] = {}
    for k in sorted(set(keys)):
        group_of[k] = len(groups)
        if mode == "project":
            groups.append(GroupDoc(key=k[0], project=k[0], database="", schema=""))
        else:
            groups.append(GroupDoc(key=f"{k[0]}:{k[1]}.{k[2]}", project=k[0], database=k[1], schema=k[2]))
    for rel, k in zip(relations, keys):
        rel.group = group_of[k]
    return groups
