"""The package's composite relationships test (macro ``schema_link_composite_relationship``) on a
composite key's first child column: every child tuple with no NULL part is a parent tuple.

    - dbt_schema_link.schema_link_composite_relationship:
        arguments: {columns: [floor, code], to: "ref('bins')", fields: [floor, code]}
        config: {severity: warn, tags: [schema_link], meta: {...}}

dbt_utils is not needed: the test ships in this package (dispatched, so an adapter may override it).
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap

from dbt_schema_link.artifacts.manifest import resolve_target
from dbt_schema_link.artifacts.records import Project, Relation
from dbt_schema_link.writers.options import WriteOptions
from dbt_schema_link.writers.records import AcceptedLink
from dbt_schema_link.writers.relationships import column_tests, sql_name, test_body, unquote_identifier
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.yaml_io import flow_seq, plain

#: The test's name in YAML (the package's namespace, so a project's own test of that name never clashes).
TEST_NAME = "dbt_schema_link.schema_link_composite_relationship"


def build_composite_test(link: AcceptedLink, parent: Relation, syntax: DbtSyntax, options: WriteOptions,
                         adapter: str = "") -> CommentedMap:
    inputs = CommentedMap()
    inputs["columns"] = flow_seq([plain(sql_name(c.column, adapter)) for c, _ in link.column_pairs()])
    inputs["to"] = plain(parent.ref_expression())
    inputs["fields"] = flow_seq([plain(sql_name(p.column, adapter)) for _, p in link.column_pairs()])
    return CommentedMap({TEST_NAME: test_body(inputs, link, syntax, options)})


def _names(value: Any) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return [unquote_identifier(v).lower() for v in value]


def has_composite_test(column: CommentedMap | None, link: AcceptedLink, parent: Relation, project: Project) -> bool:
    """Is this composite key's test (to this parent tuple) already on the YAML column?"""
    want_columns = [c.column.lower() for c, _ in link.column_pairs()]
    want_fields = [p.column.lower() for _, p in link.column_pairs()]
    for name, inputs in column_tests(column):
        if name.split(".")[-1] != TEST_NAME.split(".")[-1]:
            continue
        to = inputs.get("to")
        target = resolve_target(to, project.relations, project.project_name) if isinstance(to, str) else None
        if (target == parent.unique_id and _names(inputs.get("columns")) == want_columns
                and _names(inputs.get("fields")) == want_fields):
            return True
    return False
