"""Typed records for what dbt's artifacts tell us about a project.

Everything downstream (profiling plans, discovery, writers, the question-time index) works on
these records, never on raw manifest dictionaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property


class ResourceType(str, Enum):
    MODEL = "model"
    SEED = "seed"
    SNAPSHOT = "snapshot"
    SOURCE = "source"


#: Resource types that are physical relations we can profile and link.
RELATION_TYPES = frozenset(ResourceType)


@dataclass(frozen=True, order=True)
class ColumnRef:
    """One column of one relation. ``column`` keeps the warehouse spelling."""

    relation: str  # unique_id, e.g. "model.shop.stg_orders"
    column: str

    def key(self) -> tuple[str, str]:
        """Case-insensitive identity (warehouses and YAML disagree on case). Kept once made:
        discovery asks it of the same column hundreds of thousands of times."""
        key = self.__dict__.get("_key")
        if key is None:
            key = (self.relation, self.column.lower())
            object.__setattr__(self, "_key", key)
        return key

    def __str__(self) -> str:
        text = self.__dict__.get("_text")  # kept once made, as key() is (discovery sorts by it)
        if text is None:
            text = f"{self.relation}.{self.column}"
            object.__setattr__(self, "_text", text)
        return text


@dataclass
class Column:
    name: str
    data_type: str | None = None  # the warehouse type from catalog.json when present
    description: str = ""
    meta: dict = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    index: int = 0


@dataclass
class Relation:
    unique_id: str
    resource_type: ResourceType
    name: str  # node name; for sources "source_name.table_name"
    package_name: str
    database: str | None
    schema: str | None
    identifier: str
    relation_name: str | None  # rendered, quoted name as dbt would use it in SQL
    description: str = ""
    columns: dict[str, Column] = field(default_factory=dict)  # keyed by lower-case name
    tags: tuple[str, ...] = ()
    meta: dict = field(default_factory=dict)
    patch_path: str | None = None  # "project://models/x.yml" — the YAML file describing it
    original_file_path: str | None = None
    primary_key: tuple[str, ...] = ()
    #: columns a `unique` test or constraint declares unique on their own: alternate keys
    #: (``sku``, ``email``) a reference may point at though they are not the primary key
    unique_columns: tuple[str, ...] = ()
    compiled_sql: str | None = None
    raw_sql: str | None = None
    depends_on: tuple[str, ...] = ()
    materialized: str | None = None
    checksum: str | None = None
    enabled: bool = True
    #: names of other nodes over the same database object, folded into this one
    #: (artifacts/identity.py): e.g. ``github.repository``, a package's source over this seed
    aliases: tuple[str, ...] = ()

    @cached_property  # asked for every candidate pair discovery weighs; name and type never change
    def short_name(self) -> str:
        """The name people use: model/seed name, or the source table name."""
        return self.name.split(".")[-1] if self.resource_type is ResourceType.SOURCE else self.name

    def column(self, name: str) -> Column | None:
        return self.columns.get(name.lower())

    def ref_expression(self) -> str:
        """How a YAML test points at this relation: ``ref('x')`` or ``source('s', 't')``."""
        if self.resource_type is ResourceType.SOURCE:
            source_name, table = self.name.split(".", 1)
            return f"source('{source_name}', '{table}')"
        return f"ref('{self.name}')"


class LinkOrigin(str, Enum):
    """Where a declared link comes from."""

    RELATIONSHIPS_TEST = "relationships_test"
    RELATIONSHIPS_WHERE_TEST = "relationships_where_test"
    FK_CONSTRAINT = "foreign_key_constraint"
    SEMANTIC_ENTITY = "semantic_entity"


@dataclass(frozen=True)
class DeclaredLink:
    child: ColumnRef
    parent: ColumnRef
    origin: LinkOrigin
    source_id: str | None = None  # the test / semantic model unique_id that declares it
    written: bool = False  # a test `dbt-schema-link write` generated (its meta carries `schema_link`)
    written_confidence: float | None = None  # the confidence `write` recorded in that meta
    #: a composite key's further (child, parent) column pairs (the package's composite test)
    extra_pairs: tuple[tuple[ColumnRef, ColumnRef], ...] = ()


@dataclass
class Project:
    """A dbt project as its artifacts describe it."""

    project_name: str
    dbt_version: str
    adapter_type: str
    relations: dict[str, Relation]
    declared_links: list[DeclaredLink] = field(default_factory=list)
    parent_map: dict[str, list[str]] = field(default_factory=dict)
    child_map: dict[str, list[str]] = field(default_factory=dict)
    has_catalog: bool = False
    project_dir: str | None = None
    #: unique_id of a node folded into another over the same database object -> the one kept
    folded: dict[str, str] = field(default_factory=dict)

    def column_ref(self, relation_id: str, column: str) -> ColumnRef | None:
        uid = self.folded.get(relation_id, relation_id)
        rel = self.relations.get(uid)
        col = rel.column(column) if rel else None
        return ColumnRef(uid, col.name) if col else None

    def by_name(self, name: str) -> Relation | None:
        """Find a relation by unique_id, node name or identifier (case-insensitive)."""
        name = self.folded.get(name, name)
        if name in self.relations:
            return self.relations[name]
        lowered = name.lower()
        for rel in self.relations.values():
            if lowered in (rel.name.lower(), rel.short_name.lower(), rel.identifier.lower()):
                return rel
        for rel in self.relations.values():
            if any(lowered in (alias.lower(), alias.split(".")[-1].lower()) for alias in rel.aliases):
                return rel
        return None
