"""`relationships` data tests on the child column, in the spelling the dbt version wants."""

from __future__ import annotations

import re
from typing import Any, Iterator

from ruamel.yaml.comments import CommentedMap

from dbt_schema_link import __version__
from dbt_schema_link.artifacts.manifest import resolve_target
from dbt_schema_link.artifacts.records import Project, Relation
from dbt_schema_link.confidence import confidence_value
from dbt_schema_link.writers.entries import add_item
from dbt_schema_link.writers.options import WriteOptions
from dbt_schema_link.writers.records import AcceptedLink
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.yaml_io import YamlFile, flow_seq, plain

#: Words that cannot be a bare column name in some warehouse's SQL (PostgreSQL, DuckDB, Snowflake,
#: BigQuery, Redshift reserved keywords). Quoting a name needlessly is harmless: it is always the
#: warehouse's own spelling.
RESERVED_WORDS = frozenset("""
all analyse analyze and any array as asc asymmetric authorization between binary both by case cast check
collate collation column concurrently constraint create cross current current_catalog current_date
current_role current_schema current_time current_timestamp current_user default deferrable desc distinct
do else end except exclude exists false fetch for foreign freeze from full grant group groups having ilike
in increment initially inner intersect interval into is isnull join lateral leading left like limit
localtime localtimestamp minus natural not notnull null of offset on only or order outer over overlaps
partition pivot placing primary qualify range references regexp returning right rlike row rows sample
select session_user set similar some start symmetric system_user table tablesample then to trailing
trigger true try_cast union unique unnest unpivot user using values variadic verbose view when whenever
where window with within
""".split())
#: Adapters whose identifiers are quoted with backticks (the rest use double quotes).
_BACKTICK_ADAPTERS = frozenset({"bigquery", "databricks", "spark", "mysql"})
#: Adapters that match unquoted column names case-insensitively without folding them.
_CASE_INSENSITIVE_ADAPTERS = frozenset({"duckdb", "bigquery", "databricks", "spark"})
_PLAIN = re.compile(r"^[a-z_][a-z0-9_]*$")
_PLAIN_UPPER = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def quote_char(adapter: str) -> str:
    return "`" if adapter in _BACKTICK_ADAPTERS else '"'


def needs_quoting(name: str, adapter: str) -> bool:
    """Must this column be quoted in SQL to mean exactly this (warehouse-spelled) name? Spaces,
    dots, quotes, unicode and reserved words always; case where the warehouse folds unquoted
    names (to lower case; to upper case on Snowflake)."""
    if name.lower() in RESERVED_WORDS:
        return True
    if adapter in _CASE_INSENSITIVE_ADAPTERS:
        return not _PLAIN.match(name.lower())
    if adapter == "snowflake":
        return not _PLAIN_UPPER.match(name)
    return not _PLAIN.match(name)


def quote_identifier(name: str, adapter: str) -> str:
    """The name quoted for the adapter, an embedded quote character escaped."""
    q = quote_char(adapter)
    if q == "`":
        return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
    return q + name.replace(q, q + q) + q


def unquote_identifier(text: str) -> str:
    """``"Customer ID"`` -> ``Customer ID`` (inverse of quote_identifier; plain text unchanged)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('""', '"')
    if len(text) >= 2 and text[0] == text[-1] == "`":
        return text[1:-1].replace("\\`", "`").replace("\\\\", "\\")
    return text


#: Test names that already declare a child -> parent link.
RELATIONSHIP_TEST_NAMES = frozenset({"relationships", "dbt_utils.relationships_where", "relationships_where"})
TEST_LIST_KEYS = ("tests", "data_tests")


def _test_parts(item: Any) -> tuple[str, dict] | None:
    """(test name, its inputs merged from top level and ``arguments:``) for one list item."""
    if not isinstance(item, dict):
        return None
    if "test_name" in item:
        name, body = str(item.get("test_name")), item
    elif len(item) == 1:
        name, body = next(iter(item.items()))
        name = str(name)
        body = body if isinstance(body, dict) else {}
    else:
        return None
    inputs = {k: v for k, v in body.items() if k not in ("arguments", "config")}
    arguments = body.get("arguments")
    if isinstance(arguments, dict):
        inputs.update(arguments)
    return name, inputs


def column_tests(column: CommentedMap | None) -> Iterator[tuple[str, dict]]:
    if column is None:
        return
    for key in TEST_LIST_KEYS:
        items = column.get(key)
        if isinstance(items, list):
            for item in items:
                parts = _test_parts(item)
                if parts:
                    yield parts


def has_relationship_test(column: CommentedMap | None, parent: Relation, parent_column: str, project: Project,
                          tag: str | None = None) -> bool:
    """Is there already a relationships test to this parent column on this YAML column?
    With ``tag``: one carrying that tag in its ``config.tags`` (one we wrote)."""
    for name, inputs, config in _column_tests_with_config(column):
        if name.split(".")[-1] not in {n.split(".")[-1] for n in RELATIONSHIP_TEST_NAMES}:
            continue
        if tag is not None:
            tags = config.get("tags") if isinstance(config, dict) else None
            if not (tags == tag or (isinstance(tags, list) and tag in tags)):
                continue
        to, field = inputs.get("to"), inputs.get("field")
        if not isinstance(to, str) or not isinstance(field, str):
            continue
        target = resolve_target(to, project.relations, project.project_name)
        if target == parent.unique_id and unquote_identifier(field).lower() == parent_column.lower():
            return True
    return False


def _column_tests_with_config(column: CommentedMap | None) -> Iterator[tuple[str, dict, Any]]:
    """(name, inputs, the test's ``config:``) for each test of the column."""
    if column is None:
        return
    for key in TEST_LIST_KEYS:
        items = column.get(key)
        for item in items if isinstance(items, list) else ():
            parts = _test_parts(item)
            if parts:
                body = item if "test_name" in item else next(iter(item.values()))
                yield parts[0], parts[1], body.get("config") if isinstance(body, dict) else None


def has_tagged_relationship_test(column: CommentedMap | None, tag: str) -> bool:
    """A relationships test carrying our tag (one we wrote)."""
    for key in TEST_LIST_KEYS:
        items = column.get(key) if column is not None else None
        for item in items if isinstance(items, list) else ():
            parts = _test_parts(item)
            if not parts or parts[0].split(".")[-1] != "relationships":
                continue
            body = item.get("relationships") if "relationships" in item else item
            tags = (body.get("config") or {}).get("tags") if isinstance(body, dict) else None
            if tags == tag or (isinstance(tags, list) and tag in tags):
                return True
    return False


def build_test(link: AcceptedLink, parent: Relation, syntax: DbtSyntax, options: WriteOptions,
               adapter: str = "") -> CommentedMap:
    """``{relationships: {arguments: {to, field}, config: {severity, tags, meta}}}``. ``field`` is
    SQL in dbt's test: quoted (for ``adapter``) when the name needs it."""
    inputs = CommentedMap()
    inputs["to"] = plain(parent.ref_expression())
    inputs["field"] = plain(sql_name(link.parent.column, adapter))
    return CommentedMap(relationships=test_body(inputs, link, syntax, options))


def sql_name(name: str, adapter: str) -> str:
    """A column name as dbt puts it into a test's SQL: quoted only when it needs it."""
    return quote_identifier(name, adapter) if needs_quoting(name, adapter) else name


def test_body(inputs: CommentedMap, link: AcceptedLink, syntax: DbtSyntax, options: WriteOptions) -> CommentedMap:
    """A generic test's inputs (under ``arguments:`` where the dbt version wants them) and its
    ``config:`` (severity, orphan thresholds, our tag, ``meta``)."""
    schema_link = CommentedMap()
    schema_link["confidence"] = confidence_value(link.confidence)
    if link.evidence_summary:
        schema_link["evidence"] = plain(safe_text(link.evidence_summary))
    if link.declared_elsewhere:
        schema_link["declared_elsewhere"] = True
    if link.tolerated_orphan_rows:
        schema_link["orphan_rows"] = link.tolerated_orphan_rows
    schema_link["version"] = plain(__version__)
    meta = CommentedMap()
    meta["relationship_type"] = link.relationship_type.meta_value
    meta["schema_link"] = schema_link
    config = CommentedMap()
    config["severity"] = options.declared_severity if link.declared_elsewhere else options.severity
    for key, value in link.threshold_config().items():
        config[key] = plain(value)
    config["tags"] = flow_seq([options.tag])
    config["meta"] = meta
    body = CommentedMap()
    if syntax.test_arguments:
        body["arguments"] = inputs
    else:
        body.update(inputs)
    body["config"] = config
    return body


def add_test(yfile: YamlFile, column: CommentedMap, test: CommentedMap) -> None:
    """Append to the column's existing ``tests:`` list, else to ``data_tests:`` (never both)."""
    key = "tests" if "tests" in column and "data_tests" not in column else "data_tests"
    add_item(yfile, column, key, test)


def safe_text(text: str) -> str:
    """One line, no Jinja delimiters (dbt renders descriptions and test configs)."""
    flat = " ".join(str(text).split())
    for token in ("{{", "}}", "{%", "%}", "{#", "#}"):
        flat = flat.replace(token, token[0] + " " + token[1])
    return flat
