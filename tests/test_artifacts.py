"""Reading manifest.json / catalog.json: tolerant of shape drift, one-line errors for bad input."""

import json

import pytest

from dbt_schema_link.artifacts.manifest import read_project, resolve_target
from dbt_schema_link.artifacts.records import LinkOrigin, ResourceType
from dbt_schema_link.errors import ArtifactError


def _manifest(**extra):
    nodes = {
        "model.p.orders": {
            "unique_id": "model.p.orders", "resource_type": "model", "name": "orders", "package_name": "p",
            "database": "db", "schema": "s", "alias": "orders", "relation_name": '"db"."s"."orders"',
            "columns": {"customer_id": {"name": "customer_id", "description": "who", "config": {"meta": {"x": 1}}}},
            "config": {"materialized": "table"}, "depends_on": {"nodes": ["model.p.customers"]},
            "patch_path": "p://models/schema.yml", "raw_code": "select 1", "checksum": {"name": "sha256", "checksum": "abc"},
            "some_future_field": {"ignored": True},
        },
        "model.p.customers": {
            "unique_id": "model.p.customers", "resource_type": "model", "name": "customers", "package_name": "p",
            "database": "db", "schema": "s", "columns": {}, "config": {"materialized": "table"},
            "constraints": [{"type": "primary_key", "columns": ["id"]}],
        },
        "model.p.eph": {"unique_id": "model.p.eph", "resource_type": "model", "name": "eph", "package_name": "p",
                        "config": {"materialized": "ephemeral"}},
        "test.p.rel": {
            "unique_id": "test.p.rel", "resource_type": "test", "package_name": "p",
            "attached_node": "model.p.orders", "column_name": "customer_id",
            "test_metadata": {"name": "relationships", "kwargs": {"to": "ref('customers')", "field": "id", "column_name": "customer_id"}},
        },
        "test.p.u": {"unique_id": "test.p.u", "resource_type": "test", "attached_node": "model.p.orders",
                     "test_metadata": {"name": "unique", "kwargs": {"column_name": "customer_id"}}},
    }
    sources = {
        "source.p.raw.things": {"unique_id": "source.p.raw.things", "resource_type": "source", "name": "things",
                                "source_name": "raw", "identifier": "Things Table", "package_name": "p", "columns": {}}
    }
    m = {"metadata": {"dbt_version": "1.11.16", "project_name": "p", "adapter_type": "duckdb",
                      "dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"},
         "nodes": nodes, "sources": sources, "semantic_models": {}, "parent_map": {}, "child_map": {}}
    m.update(extra)
    return m


CATALOG = {"nodes": {"model.p.orders": {"columns": {
    "CUSTOMER_ID": {"name": "customer_id", "type": "INTEGER", "index": 1},
    "amount": {"name": "amount", "type": "DECIMAL(10,2)", "index": 2}}},
    "model.p.customers": {"columns": {"id": {"name": "id", "type": "INTEGER", "index": 1}}}}, "sources": {}}


def _write(tmp_path, manifest, catalog=CATALOG):
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    if catalog is not None:
        (tmp_path / "catalog.json").write_text(json.dumps(catalog))
    return tmp_path


def test_reads_relations_columns_types_and_declared_links(tmp_path):
    project = read_project(_write(tmp_path, _manifest()))
    assert set(project.relations) == {"model.p.orders", "model.p.customers", "source.p.raw.things"}
    orders = project.relations["model.p.orders"]
    assert orders.column("customer_id").data_type == "INTEGER"
    assert orders.column("customer_id").description == "who"
    assert orders.column("customer_id").meta == {"x": 1}
    assert orders.column("amount").description == ""
    assert orders.patch_path == "p://models/schema.yml"
    assert project.relations["model.p.customers"].primary_key == ("id",)
    assert project.relations["source.p.raw.things"].resource_type is ResourceType.SOURCE
    assert project.relations["source.p.raw.things"].ref_expression() == "source('raw', 'things')"
    [link] = project.declared_links
    assert (str(link.child), str(link.parent), link.origin) == (
        "model.p.orders.customer_id", "model.p.customers.id", LinkOrigin.RELATIONSHIPS_TEST)


def test_missing_manifest_names_the_command(tmp_path):
    with pytest.raises(ArtifactError, match="run `dbt parse`"):
        read_project(tmp_path)


def test_missing_catalog_names_the_command(tmp_path):
    with pytest.raises(ArtifactError, match="dbt docs generate"):
        read_project(_write(tmp_path, _manifest(), catalog=None))
    assert read_project(tmp_path, require_catalog=False).has_catalog is False


@pytest.mark.parametrize("content", [b"{trunc", b"\xff\xfe\x00", b"[1, 2]", b'{"nodes": {}}'])
def test_malformed_manifest_is_one_line_error(tmp_path, content):
    (tmp_path / "manifest.json").write_bytes(content)
    with pytest.raises(ArtifactError) as info:
        read_project(tmp_path, require_catalog=False)
    assert "\n" not in str(info.value) and "manifest.json" in str(info.value)


def test_old_manifest_version_is_refused(tmp_path):
    m = _manifest()
    m["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/manifest/v7.json"
    with pytest.raises(ArtifactError, match="dbt >= 1.8"):
        read_project(_write(tmp_path, m))


def test_wrong_types_are_tolerated(tmp_path):
    m = _manifest()
    m["nodes"]["model.p.orders"]["columns"] = ["not", "a", "dict"]
    m["nodes"]["model.p.orders"]["tags"] = "oops"
    m["nodes"]["test.p.rel"]["test_metadata"]["kwargs"]["to"] = 42
    project = read_project(_write(tmp_path, m))
    assert project.declared_links == []
    assert project.relations["model.p.orders"].tags == ()


@pytest.mark.parametrize("expr,expected", [
    ("ref('customers')", "model.p.customers"),
    ('ref("p", "customers")', "model.p.customers"),
    ("ref('customers', v=2)", "model.p.customers"),
    ("source('raw', 'things')", "source.p.raw.things"),
    ("ref('nope')", None),
    ("not a ref", None),
])
def test_resolve_target(tmp_path, expr, expected):
    project = read_project(_write(tmp_path, _manifest()))
    assert resolve_target(expr, project.relations, "p") == expected


def test_relationships_test_on_a_source_resolves_the_child(tmp_path):
    """dbt leaves attached_node empty for tests on sources: the child comes from kwargs.model."""
    m = _manifest()
    m["sources"]["source.p.raw.things"]["columns"] = {"customer_id": {"name": "customer_id"}}
    m["nodes"]["test.p.src_rel"] = {
        "unique_id": "test.p.src_rel", "resource_type": "test", "package_name": "p", "attached_node": None,
        "depends_on": {"nodes": ["model.p.customers", "source.p.raw.things"]},
        "test_metadata": {"name": "relationships", "kwargs": {
            "to": "ref('customers')", "field": "id", "column_name": "customer_id",
            "model": "{{ get_where_subquery(source('raw', 'things')) }}"}},
    }
    project = read_project(_write(tmp_path, m, catalog=None), require_catalog=False)
    links = {(str(l.child), str(l.parent)) for l in project.declared_links}
    assert ("source.p.raw.things.customer_id", "model.p.customers.id") in links


def test_columns_declared_unique_are_alternate_keys(tmp_path):
    """A `unique` test (quoted column names too) or a `unique` constraint declares an alternate
    key; `unique` with `not_null` on one column is the primary key where none is declared."""
    m = _manifest()
    m["nodes"]["model.p.orders"]["columns"]["amount"] = {
        "name": "amount", "constraints": [{"type": "unique"}]}
    m["nodes"]["test.p.nn"] = {"unique_id": "test.p.nn", "resource_type": "test", "attached_node": "model.p.orders",
                               "test_metadata": {"name": "not_null", "kwargs": {"column_name": '"CUSTOMER_ID"'}}}
    orders = read_project(_write(tmp_path, m)).relations["model.p.orders"]
    assert orders.unique_columns == ("amount", "customer_id")
    assert orders.primary_key == ("customer_id",)
    assert read_project(_write(tmp_path, _manifest())).relations["model.p.customers"].unique_columns == ("id",)
