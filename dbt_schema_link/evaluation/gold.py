"""Gold tables and columns from gold SQL, with sqlglot.

The query is qualified against the database schema (stars are *not* expanded: `*` needs the table
only), then every column reference of every scope is resolved to its base table through the
scope's sources; references to derived tables (subqueries, CTEs) are skipped because the columns
they read are counted inside those scopes. Join keys count on both sides, as the ON clause names
them. Double-quoted strings that SQLite reads as text literals (`WHERE name = "Bob"`) are not
columns. A reference that cannot be resolved is reported, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope


@dataclass
class Gold:
    tables: set[str] = field(default_factory=set)  # lower-case table names
    columns: set[tuple[str, str]] = field(default_factory=set)  # (table, column), lower-case
    unresolved: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _literalize_unknown_quoted(tree: exp.Expression, known_columns: set[str]) -> None:
    """SQLite treats "x" as a string when no column x exists; sqlglot reads an identifier."""
    for col in list(tree.find_all(exp.Column)):
        ident = col.this
        if isinstance(ident, exp.Identifier) and ident.quoted and not col.table and ident.name.lower() not in known_columns:
            col.replace(exp.Literal.string(ident.name))


def gold_columns(sql: str, schema: dict[str, dict[str, str]], dialect: str = "sqlite") -> Gold:
    gold = Gold()
    lower_schema = {t.lower(): {c.lower(): ty for c, ty in cols.items()} for t, cols in schema.items()}
    known_columns = {c for cols in lower_schema.values() for c in cols}
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except Exception as exc:  # noqa: BLE001 - any parse failure is reported
        gold.error = f"parse: {str(exc).splitlines()[0][:120]}"
        return gold
    if not isinstance(tree, exp.Query):
        gold.error = f"parse: not a query ({type(tree).__name__})"
        return gold
    _literalize_unknown_quoted(tree, known_columns)
    for node in tree.find_all(exp.Identifier):
        node.set("this", node.name.lower())  # case-insensitive like SQLite
    try:
        tree = qualify(tree, schema=lower_schema, dialect=dialect, expand_stars=False,
                       validate_qualify_columns=False, quote_identifiers=False, identify=False)
    except Exception as exc:  # noqa: BLE001
        gold.error = f"qualify: {str(exc).splitlines()[0][:120]}"
        return gold
    try:
        scopes = traverse_scope(tree)
    except Exception as exc:  # noqa: BLE001
        gold.error = f"scope: {str(exc).splitlines()[0][:120]}"
        return gold
    for scope in scopes:
        for name, source in scope.sources.items():
            if isinstance(source, exp.Table):
                gold.tables.add(source.name.lower())
        for col in scope.columns:
            if isinstance(col.this, exp.Star):
                continue
            table_alias = col.table
            source = None
            outer = scope
            while table_alias and outer is not None and source is None:  # correlated subqueries
                source = outer.sources.get(table_alias)
                outer = outer.parent
            if source is None and not table_alias:
                # unqualified: a projection alias (ORDER BY alias) or an unknown name
                owner = col.find_ancestor(exp.Alias)
                in_projection = owner is not None and owner.parent is scope.expression
                if not in_projection and isinstance(scope.expression, exp.Select) and col.name.lower() in {
                        s.alias.lower() for s in scope.expression.expressions if isinstance(s, exp.Alias)}:
                    continue
                owners = [t for t in (s.name.lower() for s in scope.sources.values() if isinstance(s, exp.Table))
                          if col.name.lower() in lower_schema.get(t, {})]
                if len(owners) == 1:
                    gold.columns.add((owners[0], col.name.lower()))
                else:
                    gold.unresolved.append(col.sql())
                continue
            if isinstance(source, exp.Table):
                table = source.name.lower()
                if col.name.lower() in lower_schema.get(table, {}):
                    gold.columns.add((table, col.name.lower()))
                else:
                    gold.unresolved.append(col.sql())
            elif source is None:
                gold.unresolved.append(col.sql())
            # else: a derived table (subquery / CTE): resolved inside its own scope
    return gold
