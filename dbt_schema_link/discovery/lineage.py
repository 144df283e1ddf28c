"""Lineage: pass-through copies as lineage links, joins carried to every layer's copies, and
value domains over the final links."""

from __future__ import annotations

from dataclasses import replace

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.discovery.domains import AnchorRank, UnionFind, choose_anchor
from dbt_schema_link.discovery.features import Features
from dbt_schema_link.discovery.materialise import cardinality
from dbt_schema_link.discovery.policy import NAMES
from dbt_schema_link.discovery.records import Cardinality, Domain, Evidence, Link, LinkKind, Provenance, Signal
from dbt_schema_link.discovery.sqlfacts import JoinClause, SqlCopy, SqlFacts, SqlJoin


def lookups_as_joins(facts: SqlFacts, features: Features) -> SqlFacts:
    """A model column selected unchanged from a relation whose column is unique, while the copy
    is not (measured), is a reference, not a copy: the model looked the key up at another grain
    (``fct_sales.client_key`` from ``dim_client.client_key``, one row per sale). A pass-through
    copy keeps its source's grain, so a key stays unique in it. Each such copy becomes a SQL join
    of the two columns (``JoinClause.LOOKUP``), weighed as any join the SQL makes, and leaves the
    lineage classes, so the pair is a candidate and never folded as "two copies of one column"."""
    copies: list[SqlCopy] = []
    lookups: list[SqlJoin] = []
    for copy in facts.copies:
        col, source = features.col(copy.column), features.col(copy.source)
        if (col is not None and source is not None and source.unique is True and col.unique is False
                and source.is_table_key() and source.parts.keyness >= NAMES.key_name_min):
            lookups.append(SqlJoin(copy.column, copy.source, copy.model, JoinClause.LOOKUP, copy.path))
        else:
            copies.append(copy)
    if not lookups:
        return facts
    return replace(facts, copies=copies, joins=facts.joins + lookups)


def mark_pass_through(facts: SqlFacts, features: Features) -> None:
    """Flag each model that is ``select *`` of one upstream relation (``RelInfo.pass_through``;
    a staging model that lists its columns is modelled): a join found on it is reported on a
    modelled copy instead."""
    upstream: dict[str, set[str]] = {}
    for copy in facts.copies:
        upstream.setdefault(copy.column.relation, set()).add(copy.source.relation)
    for uid in facts.star_views:
        rel = features.relations.get(uid)
        if rel is not None and len(upstream.get(uid, ())) == 1:
            rel.pass_through = True


def mark_grouped(facts: SqlFacts, features: Features) -> None:
    """Flag each model whose query groups its rows (``RelInfo.grouped``)."""
    for uid in facts.grouped:
        rel = features.relations.get(uid)
        if rel is not None:
            rel.grouped = True


def mark_entity_copies(features: Features, lineage_uf: UnionFind) -> None:
    """Give each column that is a lineage copy of an entity's key (``stg_repository.repository_id``
    selected from ``repository_data.id``) the heads that name that entity (``entity_heads``):
    a reference named for the entity may point at any layer of the same key."""
    heads_of: dict[object, set[str]] = {}
    for info in features.relations.values():
        strong = info.names.strong_keys()
        if not strong:
            continue
        for key in info.key_columns:
            heads_of.setdefault(lineage_uf.find(key.key), set()).update(strong)
    if not heads_of:
        return
    for col in features.columns:
        heads = heads_of.get(lineage_uf.find(col.key))
        if heads:
            col.entity_heads = frozenset(heads)


def links_from_lineage(facts: SqlFacts, features: Features) -> list[Link]:
    merged: dict[tuple, list] = {}
    for copy in facts.copies:
        merged.setdefault((copy.column.key(), copy.source.key()), []).append(copy)
    out: list[Link] = []
    for key in sorted(merged):
        items = merged[key]
        first = items[0]
        child = features.col(first.column)
        renamed = f" as {first.column.column!r}" if first.renamed else ""
        detail = (f"{first.model} selects {first.source.relation}.{first.source.column}{renamed} unchanged "
                  f"(SQL from {first.path.value})")
        out.append(Link(
            child=first.column, parent=first.source, provenance=Provenance.LINEAGE, confidence=1.0,
            cardinality=cardinality(child) if child else Cardinality.MANY_TO_ONE,
            evidence=(Evidence(Signal.LINEAGE, 1.0, detail),),
        ))
    return out


def lineage_members(facts: SqlFacts, lineage_uf: UnionFind) -> dict[object, list[ColumnRef]]:
    """The columns of each lineage class (a column and its pass-through copies), by class."""
    refs: dict[tuple, ColumnRef] = {}
    for copy in facts.copies:
        refs.setdefault(copy.column.key(), copy.column)
        refs.setdefault(copy.source.key(), copy.source)
    out: dict[object, list[ColumnRef]] = {}
    for key in sorted(refs):
        out.setdefault(lineage_uf.find(key), []).append(refs[key])
    return out


def carry_along_lineage(link: Link, members: dict[object, list[ColumnRef]], lineage_uf: UnionFind,
                         features: Features, cap: int) -> Link:
    """A join holds between the lineage copies of its two columns at every layer: staging copies
    of a join declared on marts, marts copies of a staging join. Adds those pairs to ``collapsed``
    (at most ``cap`` per link). A parent copy must still be a key where it was measured (unique
    values): a key copied into a fact table by a join is not a parent there."""
    cls = lineage_uf.find
    child_class, parent_class = cls(link.child.key()), cls(link.parent.key())
    if child_class == parent_class:
        return link
    children = members.get(child_class) or [link.child]
    parents = members.get(parent_class) or [link.parent]
    have = {(c.key(), p.key()) for c, p in link.pairs()}
    extra: list[tuple[ColumnRef, ColumnRef]] = []
    for p in sorted(parents):
        col = features.col(p)
        if col is None or col.unique is False:
            continue
        for c in sorted(children):
            if c.relation != p.relation and (c.key(), p.key()) not in have:
                extra.append((c, p))
    room = max(0, cap - len(link.collapsed))
    if not extra or not room:
        return link
    return replace(link, collapsed=tuple(sorted(link.collapsed + tuple(extra[:room]))))


def assign_domains(links: list[Link], features: Features, lineage_uf: UnionFind) -> tuple[list[Link], list[Domain]]:
    uf = UnionFind()
    refs: dict[tuple, ColumnRef] = {}
    for link in links:
        refs.setdefault(link.child.key(), link.child)
        refs.setdefault(link.parent.key(), link.parent)
        uf.union(link.child.key(), link.parent.key())
        for c, p in link.collapsed:
            refs.setdefault(c.key(), c)
            refs.setdefault(p.key(), p)
            uf.union(c.key(), link.child.key())
            uf.union(p.key(), link.parent.key())
    parents_of_joins: dict[tuple, int] = {}
    children_of_joins: set[tuple] = set()
    for link in links:
        if link.kind is LinkKind.LINEAGE:
            continue
        parents_of_joins[link.parent.key()] = parents_of_joins.get(link.parent.key(), 0) + 1
        children_of_joins.add(link.child.key())
    join_members = set(parents_of_joins) | children_of_joins
    domain_of: dict[tuple, str] = {}
    domains: list[Domain] = []
    for members in uf.groups():
        if len(members) < 2 or not join_members.intersection(members):
            continue  # lineage-only groups (copies of non-key columns) are not key domains
        ranks = []
        for m in members:
            col = features.col(refs[m])
            ranks.append(AnchorRank(
                member=m, declared_pk=bool(col and col.declared_pk), is_parent=m in parents_of_joins,
                is_child=m in children_of_joins, pk_score=col.pk_score if col else 0.0,
                in_degree=parents_of_joins.get(m, 0), depth=col.rel.depth if col else 0,
                name=str(refs[m]),
            ))
        anchor = refs[choose_anchor(ranks)]
        domain_id = str(anchor)
        domains.append(Domain(
            id=domain_id, anchor=anchor,
            members=tuple(sorted((refs[m] for m in members), key=lambda r: (r.relation, r.column.lower()))),
        ))
        for m in members:
            domain_of[m] = domain_id
    out = [
        replace(link, domain=domain_of.get(link.child.key()))
        for link in links
    ]
    return out, domains
