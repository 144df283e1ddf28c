"""Build Project / ProfileSet records in code for discovery tests (no dbt, no warehouse).

``Warehouse.table(...)`` takes the column values themselves and computes the profile the way the
``link_schemas`` macro does (canonical text, distinct counts, lengths, K minima of a 64-bit hash,
top values, flags); ``Warehouse.verifier()`` answers exact containment from the same values.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from dbt_schema_link.artifacts.records import (
    Column, ColumnRef, DeclaredLink, LinkOrigin, Project, Relation, ResourceType,
)
from dbt_schema_link.profiling.records import (
    ColumnProfile, ContainmentResult, ProfileSet, RelationProfile, TupleContainmentResult,
)

K = 64
_SEEDS = np.random.default_rng(7).integers(0, 2**63, size=256, dtype=np.uint64) | np.uint64(1)
_FLAGS = {"0", "1", "true", "false", "t", "f", "y", "n", "yes", "no"}


def _fmix64(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xC4CEB9FE1A85EC53)
    return h ^ (h >> np.uint64(33))


def minhash(values: Iterable[str], k: int = K) -> tuple[int, ...] | None:
    values = list(values)
    if not values:
        return None
    base = np.array([int.from_bytes(hashlib.blake2b(v.encode(), digest_size=8).digest(), "little")
                     for v in values], dtype=np.uint64)
    with np.errstate(over="ignore"):
        mixed = _fmix64(base[:, None] ^ _SEEDS[None, :k])
    return tuple(int(x) for x in mixed.min(axis=0))


#: ``schema_link__padded_number_pattern``: number text with another canonical form.
PADDED_NUMBER = re.compile(r"-?(0[0-9]{1,14}|[0-9]{1,15}[.]0+)")


def canonical(value) -> str:
    """``schema_link_canonical_text``: trimmed text, '00017' and '17.0' written as '17'."""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value).strip()
    return str(int(float(text))) if PADDED_NUMBER.fullmatch(text) else text


class Warehouse:
    """A little project: relations with their values; sources by default."""

    def __init__(self, name: str = "shop", adapter: str = "duckdb") -> None:
        self.name = name
        self.adapter = adapter
        self.relations: dict[str, Relation] = {}
        self.values: dict[tuple[str, str], list] = {}
        self.declared: list[DeclaredLink] = []
        self.unprofiled: set[str] = set()

    def table(self, name: str, columns: dict[str, tuple[str, Sequence]] | None = None, *,
              kind: ResourceType = ResourceType.SOURCE, sql: str | None = None, raw_sql: str | None = None,
              depends_on: Sequence[str] = (), primary_key: Sequence[str] = (), profiled: bool = True,
              types: dict[str, str] | None = None, source: str = "raw", unique: Sequence[str] = ()) -> str:
        """Add a relation. ``columns``: name -> (warehouse type, values); a source relation lives
        in schema ``source`` of the dbt source of that name; ``unique``: columns a `unique` test
        declares. Returns its unique_id."""
        columns = columns or {}
        if kind is ResourceType.SOURCE:
            uid, node_name = f"source.{self.name}.{source}.{name}", f"{source}.{name}"
        else:
            uid, node_name = f"{kind.value}.{self.name}.{name}", name
        cols = {}
        for i, (col, (dtype, vals)) in enumerate(columns.items()):
            cols[col.lower()] = Column(name=col, data_type=dtype, index=i)
            self.values[(uid, col.lower())] = list(vals)
        for i, (col, dtype) in enumerate((types or {}).items(), start=len(cols)):
            cols.setdefault(col.lower(), Column(name=col, data_type=dtype, index=i))
        self.relations[uid] = Relation(
            unique_id=uid, resource_type=kind, name=node_name, package_name=self.name,
            database="db", schema=source if kind is ResourceType.SOURCE else "main", identifier=name,
            relation_name=f'"db"."{"raw" if kind is ResourceType.SOURCE else "main"}"."{name}"',
            columns=cols, compiled_sql=sql, raw_sql=raw_sql, depends_on=tuple(depends_on),
            primary_key=tuple(primary_key), unique_columns=tuple(unique),
        )
        if not profiled:
            self.unprofiled.add(uid)
        return uid

    def model(self, name: str, columns: dict[str, tuple[str, Sequence]] | None = None, **kw) -> str:
        return self.table(name, columns, kind=ResourceType.MODEL, **kw)

    def declare(self, child: str, parent: str, origin: LinkOrigin = LinkOrigin.RELATIONSHIPS_TEST) -> None:
        """``child``/``parent``: "uid.column"."""
        self.declared.append(DeclaredLink(self.ref(child), self.ref(parent), origin, source_id=f"test.{self.name}.x"))

    def ref(self, dotted: str) -> ColumnRef:
        uid, col = dotted.rsplit(".", 1)
        return ColumnRef(uid, self.relations[uid].column(col).name)

    def project(self) -> Project:
        parent_map = {uid: list(rel.depends_on) for uid, rel in self.relations.items()}
        return Project(project_name=self.name, dbt_version="1.11.0", adapter_type=self.adapter,
                       relations=dict(self.relations), declared_links=list(self.declared),
                       parent_map=parent_map, has_catalog=True)

    def profiles(self) -> ProfileSet:
        out: dict[str, RelationProfile] = {}
        for uid, rel in self.relations.items():
            if uid in self.unprofiled:
                continue
            cols: dict[str, ColumnProfile] = {}
            rows = 0
            for col in rel.columns.values():
                vals = self.values.get((uid, col.name.lower()))
                if vals is None:
                    continue
                rows = max(rows, len(vals))
                texts = [canonical(v) for v in vals if v is not None]
                distinct = set(texts)
                counts = Counter(texts)
                cols[col.name.lower()] = ColumnProfile(
                    name=col.name, data_type=col.data_type, non_null=len(texts), distinct=len(distinct),
                    distinct_approx=False, min_len=min((len(t) for t in texts), default=None),
                    max_len=max((len(t) for t in texts), default=None), minhash=minhash(distinct),
                    # as the profiler's defaults (top_max_distinct, top_n): a small column's whole domain
                    top_values=tuple(v for v, _ in counts.most_common(500)) if 0 < len(distinct) <= 500 else None,
                    flag_words=bool(texts) and all(t.lower() in _FLAGS for t in distinct),
                    min_value=min(numbers) if (numbers := _numbers(vals)) else None,
                    max_value=max(numbers) if numbers else None,
                )
            out[uid] = RelationProfile(uid, rel.relation_name or uid, rows, False, None, cols)
        return ProfileSet(adapter=self.adapter, k=K, package_version="0.1.0", relations=out)

    def verifier(self, calls: list | None = None):
        def verify(pairs):
            pairs = list(pairs)
            if calls is not None:
                calls.append(pairs)
            out = {}
            for c, p in pairs:
                rows = [canonical(v) for v in self.values.get((c.relation, c.column.lower()), []) if v is not None]
                a = set(rows)
                b = {canonical(v) for v in self.values.get((p.relation, p.column.lower()), []) if v is not None}
                out[(c, p)] = ContainmentResult(c.relation, c.column, p.relation, p.column, len(a), len(a & b),
                                                orphan_rows=sum(1 for v in rows if v not in b))
            return out
        return verify


    def tuple_verifier(self):
        """What ``schema_link_tuple_containment`` measures, computed from the rows."""
        def rows_of(refs) -> list[tuple]:
            columns = [self.values[(r.relation, r.column.lower())] for r in refs]
            return [tuple(None if v is None else canonical(v) for v in row) for row in zip(*columns)]

        def verify(pairs):
            out = {}
            for child, parent in pairs:
                child_rows = [t for t in rows_of(child) if None not in t]
                parent_rows = rows_of(parent)
                held = {t for t in parent_rows if None not in t}
                distinct = set(child_rows)
                out[(child, parent)] = TupleContainmentResult(
                    child[0].relation, tuple(r.column for r in child), parent[0].relation,
                    tuple(r.column for r in parent), len(distinct), len(distinct & held),
                    sum(1 for t in child_rows if t not in held), len(parent_rows), len(held))
            return out
        return verify


def _numbers(values: Sequence) -> list[float]:
    """The values as numbers when every non-null one is a number (the profile's min/max), else []."""
    present = [v for v in values if v is not None]
    if not present or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return []
    return [float(v) for v in present]


def pairs(links) -> set[tuple[str, str]]:
    """``{("orders.customer_id", "customers.id"), ...}`` by relation identifier."""
    def short(ref: ColumnRef) -> str:
        return f"{ref.relation.split('.')[-1]}.{ref.column}"
    return {(short(link.child), short(link.parent)) for link in links}
