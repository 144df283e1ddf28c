"""`relationships` data tests on the child column, in the spelling the dbt version wants."""

from __future__ import annotations

from typing import Any, Iterator

from ruamel.yaml.comments import CommentedMap

from dbt_schema_link import __version__
from dbt_schema_link.artifacts.manifest import resolve_target
from dbt_schema_link.artifacts.records import Project, Relation
from dbt_schema_link.writers.entries import add_item
from dbt_schema_link.writers.options import WriteOptions
from dbt_schema_link.writers.records import AcceptedLink
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.yaml_io import YamlFile, flow_seq, plain

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


def has_relationship_test(column: CommentedMap | None, parent: Relation, parent_column: str, project: Project) -> bool:
    """Is there already a relationships test to this parent column on this YAML column?"""
    for name, inputs in column_tests(column):
        if name.split(".")[-1] not in {n.split(".")[-1] for n in RELATIONSHIP_TEST_NAMES}:
            continue
        to, field = inputs.get("to"), inputs.get("field")
        if not isinstance(to, str) or not isinstance(field, str):
            continue
        target = resolve_target(to, project.relations, project.project_name)
        if target == parent.unique_id and field.strip('"').lower() == parent_column.lower():
            return True
    return False


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


def build_test(link: AcceptedLink, parent: Relation, syntax: DbtSyntax, options: WriteOptions) -> CommentedMap:
    """``{relationships: {arguments: {to, field}, config: {severity, tags, meta}}}``."""
    inputs = CommentedMap()
    inputs["to"] = plain(parent.ref_expression())
    inputs["field"] = plain(link.parent.column)
    schema_link = CommentedMap()
    schema_link["confidence"] = round(float(link.confidence), 3)
    if link.evidence_summary:
        schema_link["evidence"] = plain(safe_text(link.evidence_summary))
    if link.declared_elsewhere:
        schema_link["declared_elsewhere"] = True
    schema_link["version"] = plain(__version__)
    meta = CommentedMap()
    meta["relationship_type"] = link.relationship_type.meta_value
    meta["schema_link"] = schema_link
    config = CommentedMap()
    config["severity"] = options.declared_severity if link.declared_elsewhere else options.severity
    config["tags"] = flow_seq([options.tag])
    config["meta"] = meta
    body = CommentedMap()
    if syntax.test_arguments:
        body["arguments"] = inputs
    else:
        body.update(inputs)
    body["config"] = config
    return CommentedMap(relationships=body)


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
