"""One relation, one node: nodes that name the same database object are folded into one.

A package's source declared over a root-project seed (its `identifier` set by a var), or a
source over another package's model, is that object: profiled once, linked once, one node of the
join graph and the index. Folding keeps one node per object — a modelled or loaded node (model,
seed, snapshot) before a source, the root project's before a package's, then by unique_id — and
keeps the others' names as its `aliases` (name lookup, rendering), their people-written
descriptions where it has none, and points every dependency, declared link and map entry at it.
`Project.folded` maps each folded unique_id to the one kept. Pure: the input is not changed.
"""

from __future__ import annotations

from dataclasses import replace

from dbt_schema_link.artifacts.records import ColumnRef, Column, DeclaredLink, Project, Relation, ResourceType

_QUOTES = str.maketrans("", "", '"`[]')


def object_key(rel: Relation) -> str:
    """The database object a node names: its rendered relation name, else
    database.schema.identifier, without quotes and case-insensitively."""
    if rel.relation_name:
        return rel.relation_name.translate(_QUOTES).lower()
    return ".".join(p for p in (rel.database, rel.schema, rel.identifier) if p).lower()


def _rank(rel: Relation, root: str) -> tuple:
    return (rel.resource_type is ResourceType.SOURCE, rel.package_name != root, rel.unique_id)


def one_node_per_object(project: Project) -> Project:
    """The project with every group of nodes over one database object folded into one node."""
    groups: dict[str, list[Relation]] = {}
    for rel in project.relations.values():
        groups.setdefault(object_key(rel), []).append(rel)
    folded: dict[str, str] = dict(project.folded)
    kept: dict[str, Relation] = {}
    for members in groups.values():
        members.sort(key=lambda r: _rank(r, project.project_name))
        survivor, others = members[0], members[1:]
        if others:
            survivor = _merged(survivor, others)
            folded.update({o.unique_id: survivor.unique_id for o in others})
        kept[survivor.unique_id] = survivor
    if len(kept) == len(project.relations):
        return project

    def to(uid: str) -> str:
        return folded.get(uid, uid)

    relations = {uid: replace(rel, depends_on=tuple(u for u in dict.fromkeys(map(to, rel.depends_on)) if u != uid))
                 for uid, rel in kept.items()}
    return replace(
        project,
        relations=relations,
        declared_links=_declared(project.declared_links, relations, to),
        parent_map=_folded_map(project.parent_map, to),
        child_map=_folded_map(project.child_map, to),
        folded=folded,
    )


def _merged(survivor: Relation, others: list[Relation]) -> Relation:
    """The kept node with the folded ones' names and the descriptions people wrote on them."""
    columns = dict(survivor.columns)
    for other in others:
        for key, col in other.columns.items():
            mine = columns.get(key)
            if mine is not None and not mine.description.strip() and col.description.strip():
                columns[key] = Column(mine.name, mine.data_type, col.description, {**col.meta, **mine.meta},
                                      mine.tags or col.tags, mine.index)
    description = survivor.description or next((o.description for o in others if o.description.strip()), "")
    aliases = tuple(dict.fromkeys([*survivor.aliases, *(o.name for o in others)]))
    primary_key = survivor.primary_key or next((o.primary_key for o in others if o.primary_key), ())
    unique = tuple(sorted({c for r in (survivor, *others) for c in r.unique_columns}))
    return replace(survivor, columns=columns, description=description, aliases=aliases, primary_key=primary_key,
                   unique_columns=unique)


def _folded_map(mapping: dict[str, list[str]], to) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, values in mapping.items():
        merged = out.setdefault(to(key), [])
        for value in values:
            if to(value) != to(key) and to(value) not in merged:
                merged.append(to(value))
    return out


def _declared(links: list[DeclaredLink], relations: dict[str, Relation], to) -> list[DeclaredLink]:
    out: dict[tuple, DeclaredLink] = {}
    for link in links:
        child, parent = _ref(link.child, relations, to), _ref(link.parent, relations, to)
        if child.key() == parent.key():
            continue  # a test between a source and the seed it names: the object against itself
        moved = replace(link, child=child, parent=parent)
        out.setdefault((child.key(), parent.key(), link.origin, link.source_id), moved)
    return sorted(out.values(), key=lambda d: (d.child, d.parent, d.origin.value))


def _ref(ref: ColumnRef, relations: dict[str, Relation], to) -> ColumnRef:
    uid = to(ref.relation)
    if uid == ref.relation:
        return ref
    col = relations[uid].column(ref.column)
    return ColumnRef(uid, col.name if col else ref.column)
