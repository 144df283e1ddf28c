"""What models' SQL says about columns: the joins already written (``JOIN ... ON a.x = b.y``,
``USING (x)``, ``WHERE a.x = b.y``) and column lineage (an output column that is a plain copy,
``x`` or ``x AS y`` or ``CAST(x AS ...)``, of an upstream column).

Table names in the SQL are matched to the project's relations (rendered relation name, schema +
identifier, identifier, node name), aliases and CTEs/subqueries are resolved with sqlglot's scopes
down to physical relations, so ``o.cust`` inside ``with o as (select customer_id as cust from
stg_orders)`` is ``stg_orders.customer_id``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, build_scope

from dbt_schema_link.artifacts.records import ColumnRef, Project, Relation, ResourceType
from dbt_schema_link.discovery.render import RenderedSql, SqlPath, SqlRenderer


class JoinClause(str, Enum):
    ON = "on"
    USING = "using"
    WHERE = "where"
    #: a key selected from a relation the model joins to, at another grain (``lineage.lookups``)
    LOOKUP = "lookup"


@dataclass(frozen=True)
class SqlJoin:
    """Two physical columns equated in a model's SQL (order as written: left = right)."""

    left: ColumnRef
    right: ColumnRef
    model: str
    clause: JoinClause
    path: SqlPath


@dataclass(frozen=True)
class SqlCopy:
    """``column`` (a model's output column) is a plain copy of ``source`` (an upstream column)."""

    column: ColumnRef
    source: ColumnRef
    model: str
    path: SqlPath
    renamed: bool


@dataclass
class SqlFacts:
    joins: list[SqlJoin] = field(default_factory=list)
    copies: list[SqlCopy] = field(default_factory=list)
    #: model output columns computed by count/sum/avg (``count(order_id) as number_of_orders``):
    #: measures, whatever their names say
    aggregates: list[ColumnRef] = field(default_factory=list)
    #: models whose outer query selects ``*`` alone (``select * from source``: a package's
    #: ``_tmp`` view), read before qualification expands the star
    star_views: set[str] = field(default_factory=set)
    #: models whose outer query groups its rows (``group by``): a report or aggregate, whose
    #: grouping columns are unique by construction, not the keys of the entities they name
    grouped: set[str] = field(default_factory=set)
    paths: Counter = field(default_factory=Counter)  # SqlPath -> models analysed that way
    failures: list[tuple[str, str]] = field(default_factory=list)  # (model, message)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (model, a library's logged warning)


_DIALECTS = {
    "duckdb": "duckdb", "postgres": "postgres", "redshift": "redshift", "snowflake": "snowflake",
    "bigquery": "bigquery", "databricks": "databricks", "spark": "spark", "trino": "trino",
    "athena": "athena", "sqlserver": "tsql", "fabric": "tsql", "synapse": "tsql", "mysql": "mysql",
    "sqlite": "sqlite", "oracle": "oracle", "clickhouse": "clickhouse", "materialize": "postgres",
}
_SQL_TYPES = (ResourceType.MODEL, ResourceType.SNAPSHOT)
_PLACEHOLDER = "__slr_{}"
# sqlglot < 25 called set operations Union and their scopes union_scopes
_SET_OPERATION = getattr(exp, "SetOperation", exp.Union)


#: Aggregates that make a measure (a count, a sum, a mean). min/max are left out: the latest
#: order id of a customer is still an order id.
_AGGREGATES = (exp.Count, exp.Sum, exp.Avg)


def _set_scopes(scope: Scope) -> list[Scope]:
    return list(getattr(scope, "set_operation_scopes", None) or getattr(scope, "union_scopes", None) or ())


class RelationLookup:
    """Finds the relation a table reference in SQL means."""

    def __init__(self, project: Project) -> None:
        self._keys: dict[str, set[str]] = {}
        for uid, rel in project.relations.items():
            for key in _relation_keys(rel):
                self._keys.setdefault(key, set()).add(uid)

    def resolve(self, parts: list[str], prefer: Iterable[str] = ()) -> str | None:
        """``parts``: catalog/db/name as written (any may be empty)."""
        parts = [p.lower() for p in parts if p]
        preferred = set(prefer)
        for size in range(len(parts), 0, -1):
            found = self._keys.get(".".join(parts[-size:]))
            if not found:
                continue
            if len(found) == 1:
                return next(iter(found))
            narrowed = found & preferred
            if len(narrowed) == 1:
                return next(iter(narrowed))
            return None  # ambiguous
        return None


def _relation_keys(rel: Relation) -> set[str]:
    keys: set[str] = set()
    if rel.relation_name:
        parts = [p for p in _strip_quotes(rel.relation_name).split(".") if p]
        for size in range(1, len(parts) + 1):
            keys.add(".".join(parts[-size:]).lower())
    fields = [rel.database, rel.schema, rel.identifier]
    present = [f for f in fields if f]
    for size in range(1, len(present) + 1):
        keys.add(".".join(present[-size:]).lower())
    keys.add(rel.name.lower())
    sources = [rel.name] if rel.resource_type is ResourceType.SOURCE else []
    # a source folded into this node (artifacts/identity.py): raw SQL still names it
    for alias in (*sources, *rel.aliases):
        keys.add(alias.lower())
        if "." in alias:
            source_name, table = alias.split(".", 1)
            keys.add(f"{source_name}_{table}".lower())  # sqlfluff renders source('s','t') as s_t
    return keys


def _strip_quotes(name: str) -> str:
    for ch in ('"', "`", "[", "]"):
        name = name.replace(ch, "")
    return name


#: Libraries that log warnings while reading SQL (sqlglot's optimizer: "Cannot traverse scope ...").
_LIBRARY_LOGGERS = ("sqlglot", "sqlfluff")


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(" ".join(record.getMessage().split())[:200])


@contextmanager
def _library_warnings() -> Iterator[_Collect]:
    """Collect what the SQL libraries log instead of letting Python's last-resort handler print
    it on stderr (the library never prints; the facts carry the messages to the run's notes)."""
    handler = _Collect()
    saved = []
    for name in _LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, logger.propagate))
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield handler
    finally:
        for logger, propagate in saved:
            logger.removeHandler(handler)
            logger.propagate = propagate


def extract_sql_facts(project: Project, renderer: SqlRenderer | None = None) -> SqlFacts:
    """Joins and column copies from every enabled model/snapshot with SQL; what the SQL libraries
    log on the way is kept per model in ``warnings``."""
    renderer = renderer or SqlRenderer()
    lookup = RelationLookup(project)
    dialect = _DIALECTS.get((project.adapter_type or "").lower())
    facts = SqlFacts()
    with _library_warnings() as logged:
        for uid in sorted(project.relations):
            rel = project.relations[uid]
            if rel.enabled and rel.resource_type in _SQL_TYPES:
                _extract_one(rel, project, renderer, lookup, dialect, facts)
                facts.warnings.extend((uid, message) for message in dict.fromkeys(logged.messages))
                logged.messages.clear()
    return facts


def _extract_one(rel: Relation, project: Project, renderer: SqlRenderer, lookup: RelationLookup,
                 dialect: str | None, facts: SqlFacts) -> None:
    """The first of the model's SQL texts that parses gives its joins, copies and aggregates."""
    attempts = renderer.attempts(rel)
    if not attempts:
        return
    last_error = ""
    for attempt in attempts:
        try:
            joins, copies, aggregates, star, grouped = analyse_sql(attempt, rel, project, lookup, dialect)
        except (sqlglot.errors.SqlglotError, ValueError, RecursionError) as err:
            last_error = f"{attempt.path.value}: {str(err).splitlines()[0][:200] if str(err) else type(err).__name__}"
            continue
        facts.joins.extend(joins)
        facts.copies.extend(copies)
        facts.aggregates.extend(aggregates)
        if star:
            facts.star_views.add(rel.unique_id)
        if grouped:
            facts.grouped.add(rel.unique_id)
        facts.paths[attempt.path] += 1
        return
    facts.failures.append((rel.unique_id, last_error))


def analyse_sql(rendered: RenderedSql, rel: Relation, project: Project, lookup: RelationLookup,
                dialect: str | None) -> tuple[list[SqlJoin], list[SqlCopy], list[ColumnRef], bool, bool]:
    """Joins, copies and aggregate columns in one model's SQL, whether its outer query selects
    ``*`` alone, and whether it groups its rows. Raises sqlglot errors when it does not parse."""
    statements = [s for s in sqlglot.parse(rendered.sql, read=dialect) if s is not None]
    joins: list[SqlJoin] = []
    copies: list[SqlCopy] = []
    aggregates: list[ColumnRef] = []
    star = grouped = False
    for statement in statements:
        query = statement.expression if isinstance(statement, exp.Create) else statement
        if not isinstance(query, exp.Query):
            continue
        star = star or _selects_one_relation_whole(query)
        grouped = grouped or _groups_rows(query)
        resolver = _Resolver(query, rel, project, lookup, dialect)
        joins.extend(
            SqlJoin(a, b, rel.unique_id, clause, rendered.path) for a, b, clause in resolver.joins()
        )
        copies.extend(
            SqlCopy(col, src, rel.unique_id, rendered.path, renamed)
            for col, src, renamed in resolver.copies()
        )
        aggregates.extend(resolver.aggregates())
    return _dedupe(joins), _dedupe(copies), _dedupe(aggregates), star, grouped


def _groups_rows(query: exp.Query) -> bool:
    """The outer select groups its rows, directly or by selecting from a CTE or subquery that
    does (``select * from final`` over an aggregate): each output row is a group, not an entity.
    Window functions keep the rows, so they do not count."""
    seen: set[int] = set()
    ctes = {cte.alias_or_name.lower(): cte.this for cte in (query.ctes if isinstance(query, exp.Select) else [])}

    def groups(select: exp.Expr | None, depth: int) -> bool:
        if not isinstance(select, exp.Select) or depth > 8 or id(select) in seen:
            return False
        seen.add(id(select))
        if select.args.get("group") is not None:
            return True
        if select.args.get("joins"):
            return False  # a join onto the groups makes rows of the driving relation again
        source = select.args.get("from_", select.args.get("from"))
        inner = source.this if source is not None else None
        if isinstance(inner, exp.Subquery):
            return groups(inner.this, depth + 1)
        if isinstance(inner, exp.Table) and not inner.db:
            return groups(ctes.get(inner.name.lower()), depth + 1)
        return False

    return groups(query, 0)


def _selects_one_relation_whole(query: exp.Query) -> bool:
    """``select * from <relation>``: no CTE, no join, the star over one physical relation (a
    package's ``_tmp`` view). ``select * from final`` closing a staging model's CTEs is not."""
    if not isinstance(query, exp.Select) or query.ctes or query.args.get("joins"):
        return False
    source = query.args.get("from_", query.args.get("from"))  # sqlglot renamed the key ("from_" in 30)
    return (len(query.expressions) == 1 and isinstance(query.expressions[0], exp.Star)
            and source is not None and isinstance(source.this, exp.Table))


def _dedupe(items: list) -> list:
    seen: dict = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


class _Resolver:
    """Scope walk over one query whose physical tables were renamed to placeholders."""

    def __init__(self, query: exp.Query, rel: Relation, project: Project, lookup: RelationLookup,
                 dialect: str | None) -> None:
        self.project = project
        self.rel = rel
        self.placeholders: dict[str, str] = {}  # placeholder table name -> relation uid
        schema: dict[str, dict[str, str]] = {}
        prefer = set(rel.depends_on) | set(project.parent_map.get(rel.unique_id, ()))
        by_uid: dict[str, str] = {}
        cte_names = {cte.alias.lower() for cte in query.find_all(exp.CTE) if cte.alias}
        for table in list(query.find_all(exp.Table)):
            if not table.name or _is_cte_reference(table, cte_names):
                continue
            uid = lookup.resolve([table.catalog, table.db, table.name], prefer)
            if uid is None or uid == rel.unique_id:
                continue
            ph = by_uid.setdefault(uid, _PLACEHOLDER.format(len(by_uid)))
            self.placeholders[ph] = uid
            target = project.relations[uid]
            schema[ph] = {c.name: "TEXT" for c in target.columns.values()}
            alias = table.alias or table.name
            table.set("this", exp.to_identifier(ph))
            table.set("db", None)
            table.set("catalog", None)
            table.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        self.query = query
        try:
            self.query = qualify(
                query.copy(), dialect=dialect, schema={k: v for k, v in schema.items() if v} or None,
                validate_qualify_columns=False, quote_identifiers=False, identify=False,
                expand_alias_refs=False,
            )
        except Exception:  # noqa: BLE001 - fall back to the unqualified tree
            self.query = query
        self.root = build_scope(self.query)

    # -- joins ---------------------------------------------------------------------------
    def joins(self) -> list[tuple[ColumnRef, ColumnRef, JoinClause]]:
        out: list[tuple[ColumnRef, ColumnRef, JoinClause]] = []
        if self.root is None:
            return out
        for scope in self.root.traverse():
            select = scope.expression
            if not isinstance(select, exp.Select):
                continue
            for join in select.args.get("joins") or ():
                on = join.args.get("on")
                if on is not None:
                    out.extend(self._equalities(scope, on, JoinClause.ON))
                for ident in join.args.get("using") or ():
                    out.extend(self._using(scope, join, ident.name))
            where = select.args.get("where")
            if where is not None:
                out.extend(self._equalities(scope, where.this, JoinClause.WHERE))
        return out

    def _equalities(self, scope: Scope, condition: exp.Expr, clause: JoinClause):
        for eq in _conjuncts(condition):
            if not isinstance(eq, exp.EQ):
                continue
            left, right = _unwrap(eq.left), _unwrap(eq.right)
            if not isinstance(left, exp.Column) or not isinstance(right, exp.Column):
                continue
            if left.table and left.table == right.table:
                continue
            for a in self.resolve(scope, left):
                for b in self.resolve(scope, right):
                    if a.relation != b.relation:
                        yield a, b, clause

    def _using(self, scope: Scope, join: exp.Join, name: str):
        right_alias = join.this.alias_or_name
        for left_alias in scope.sources:
            if left_alias == right_alias:
                continue
            for a in self._resolve_in(scope, left_alias, name):
                for b in self._resolve_in(scope, right_alias, name):
                    if a.relation != b.relation:
                        yield a, b, JoinClause.USING
            break  # the first source is the left side of a USING chain

    # -- lineage -------------------------------------------------------------------------
    def _outputs(self) -> Iterator[tuple[Scope, exp.Expr, str]]:
        """(branch, projection, output name) of every named, non-star output column of the query."""
        if self.root is None:
            return
        for branch in _branches(self.root):
            select = branch.expression
            if not isinstance(select, exp.Select):
                continue
            for projection in select.selects:
                name = projection.alias_or_name
                if name and not isinstance(projection, exp.Star):
                    yield branch, projection, name

    def _output_ref(self, name: str) -> ColumnRef:
        return self.project.column_ref(self.rel.unique_id, name) or ColumnRef(self.rel.unique_id, name)

    def copies(self) -> list[tuple[ColumnRef, ColumnRef, bool]]:
        out: list[tuple[ColumnRef, ColumnRef, bool]] = []
        for branch, projection, name in self._outputs():
            inner = _unwrap(projection)
            if not isinstance(inner, exp.Column) or isinstance(inner.this, exp.Star):
                continue
            target = self._output_ref(name)
            for src in self.resolve(branch, inner):
                if src.relation != self.rel.unique_id:
                    out.append((target, src, src.column.lower() != name.lower()))
        return out

    def aggregates(self) -> list[ColumnRef]:
        """Output columns whose expression counts or sums (through CTEs and subqueries)."""
        return [self._output_ref(name) for branch, projection, name in self._outputs()
                if self._aggregated(branch, projection, 0)]

    def _aggregated(self, scope: Scope, projection: exp.Expr, depth: int) -> bool:
        """The projection counts or sums, or is computed from a CTE's / subquery's output that
        does (``coalesce(per.n, 0)`` where ``per.n`` is ``count(id)``)."""
        inner = _unwrap(projection)
        if any(isinstance(node, _AGGREGATES) for node in inner.walk()):
            return True
        if depth > 32:
            return False
        columns = [inner] if isinstance(inner, exp.Column) else list(inner.find_all(exp.Column))
        for column in columns:
            if isinstance(column.this, exp.Star):
                continue
            sources = [scope.sources.get(column.table)] if column.table else list(scope.sources.values())
            for source in sources:
                if isinstance(source, Scope) and isinstance(source.expression, exp.Select):
                    for proj in source.expression.selects:
                        if proj.alias_or_name.lower() == column.name.lower() and self._aggregated(source, proj, depth + 1):
                            return True
        return False

    # -- resolution ----------------------------------------------------------------------
    def resolve(self, scope: Scope, column: exp.Column, depth: int = 0) -> list[ColumnRef]:
        if depth > 32:
            return []
        name = column.name
        if column.table:
            return self._resolve_in(scope, column.table, name, depth)
        sources = list(scope.sources)
        if len(sources) == 1:
            return self._resolve_in(scope, sources[0], name, depth)
        found: list[ColumnRef] = []
        for alias in sources:  # unqualified: the sources that have such a column
            src = scope.sources[alias]
            if isinstance(src, exp.Table) and self._has_column(src, name):
                found.extend(self._resolve_in(scope, alias, name, depth))
        return found if len(found) == 1 else []

    def _resolve_in(self, scope: Scope, alias: str, name: str, depth: int = 0) -> list[ColumnRef]:
        source = scope.sources.get(alias)
        if source is None:
            return []
        if isinstance(source, exp.Table):
            uid = self._placeholder_uid(source)
            if uid is None:
                return []
            ref = self.project.column_ref(uid, name)
            if ref is None and self.project.relations[uid].columns:
                return []  # not a column of that relation
            return [ref or ColumnRef(uid, name)]
        if isinstance(source, Scope):
            return self._resolve_output(source, name, depth + 1)
        return []

    def _resolve_output(self, scope: Scope, name: str, depth: int) -> list[ColumnRef]:
        if depth > 32:
            return []
        expression = scope.expression
        if isinstance(expression, _SET_OPERATION):
            out: list[ColumnRef] = []
            for branch in _set_scopes(scope):
                out.extend(self._resolve_output(branch, name, depth + 1))
            return out
        if not isinstance(expression, exp.Select):
            return []
        lowered = name.lower()
        star_sources: list[str] = []
        for projection in expression.selects:
            if isinstance(projection, exp.Star):
                star_sources.extend(scope.sources)
                continue
            if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
                star_sources.append(projection.table)
                continue
            if projection.alias_or_name.lower() == lowered:
                inner = _unwrap(projection)
                if isinstance(inner, exp.Column):
                    return self.resolve(scope, inner, depth + 1)
                return []
        found: list[ColumnRef] = []
        for alias in star_sources:  # select * / t.* that qualify could not expand
            found.extend(self._resolve_in(scope, alias, name, depth + 1))
        return found if len(found) == 1 else []

    def _placeholder_uid(self, table: exp.Table) -> str | None:
        # qualify normalises unquoted names the dialect's way: Snowflake's upper-cases them
        return self.placeholders.get(table.name.lower())

    def _has_column(self, table: exp.Table, name: str) -> bool:
        uid = self._placeholder_uid(table)
        return uid is not None and self.project.column_ref(uid, name) is not None


def _is_cte_reference(table: exp.Table, cte_names: set[str]) -> bool:
    """``from orders`` means the CTE ``orders`` unless it sits inside that CTE's own body
    (``with orders as (select * from orders)`` reads the relation)."""
    name = table.name.lower()
    if table.args.get("db") or table.args.get("catalog") or name not in cte_names:
        return False
    node = table.parent
    while node is not None:
        if isinstance(node, exp.CTE) and node.alias.lower() == name:
            return False
        node = node.parent
    return True


def _branches(scope: Scope) -> list[Scope]:
    if isinstance(scope.expression, _SET_OPERATION):
        out: list[Scope] = []
        for branch in _set_scopes(scope):
            out.extend(_branches(branch))
        return out
    return [scope]


def _conjuncts(condition: exp.Expr) -> list[exp.Expr]:
    condition = _strip_parens(condition)
    if isinstance(condition, exp.And):
        return _conjuncts(condition.left) + _conjuncts(condition.right)
    return [condition]


def _strip_parens(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _unwrap(node: exp.Expr) -> exp.Expr:
    """Alias, parentheses and casts do not change which values a column holds."""
    while isinstance(node, (exp.Alias, exp.Paren, exp.Cast)):
        node = node.this
    return node

