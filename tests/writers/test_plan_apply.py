"""Planning and applying: rejections remembered in the state file, user edits respected,
`--check`/`--dry-run` semantics, atomic writes, files changed on disk, refusals kept per file."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from dbt_schema_link.artifacts.records import ColumnRef, DeclaredLink, LinkOrigin
from dbt_schema_link.errors import SchemaLinkError, YamlWriteError
from dbt_schema_link.writers import (
    AcceptedLink,
    ChangeKind,
    RelationshipType,
    SemanticSpec,
    WriteOptions,
    apply,
    plan_writes,
    unified_diff,
)
from dbt_schema_link.writers.records import PACKAGE_REASON
from dbt_schema_link.writers.syntax import syntax_for
from dbt_schema_link.writers.yaml_io import py_load
from tests.writers.tinyshop import (
    link,
    standard_links,
    synthetic_project,
    write_project,
)


@pytest.fixture
def shop(tmp_path):
    root = write_project(tmp_path / "tinyshop")
    return root, synthetic_project(root)


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _orders_column(root: Path, name: str) -> dict:
    data = py_load((root / "models" / "schema.yml").read_text())
    orders = next(m for m in data["models"] if m["name"] == "orders")
    return next(c for c in orders["columns"] if c["name"] == name)


def test_check_and_dry_run_write_nothing(shop):
    root, project = shop
    before = _files(root)
    plan = plan_writes(project, standard_links())
    diff = unified_diff(plan)
    assert plan.would_change
    assert "--- a/models/schema.yml\n+++ b/models/schema.yml\n" in diff
    assert "--- /dev/null\n+++ b/models/_stores__schema_link.yml\n" in diff
    assert "schema_link_state.json" not in diff  # only with include_state=True
    assert "schema_link_state.json" in unified_diff(plan, include_state=True)
    assert _files(root) == before
    apply(plan)
    assert not plan_writes(project, standard_links()).would_change


def test_removed_test_is_rejected_and_edited_test_respected(shop):
    root, project = shop
    apply(plan_writes(project, standard_links()))
    schema = root / "models" / "schema.yml"
    text = schema.read_text()
    # the user deletes the test on orders.customer_id and makes the one on store_id an error
    start = text.index("          - relationships:\n              arguments:\n                to: ref('customers')")
    end = text.index("\n        config:\n", start) + 1
    text = text[:start] + text[end:]
    text = text.replace("severity: warn\n                tags: [schema_link]\n                meta:\n"
                        "                  relationship_type: many-to-one\n                  schema_link:\n"
                        "                    confidence: 0.9\n",
                        "severity: error\n                tags: [schema_link]\n                meta:\n"
                        "                  relationship_type: many-to-one\n                  schema_link:\n"
                        "                    confidence: 0.9\n", 1)
    schema.write_text(text)
    state = (root / "schema_link_state.json").read_bytes()
    before = _files(root)

    plan = plan_writes(project, standard_links())
    assert plan.changes == []
    assert any(s.what == "test" and "rejected" in s.reason and s.link.child.column == "customer_id"
               for s in plan.skipped)
    assert _orders_column(root, "customer_id")["tests"] == ["not_null"]
    store_test = _orders_column(root, "store_id")["data_tests"][0]["relationships"]
    assert store_test["config"]["severity"] == "error"
    apply(plan)
    assert _files(root) == before and (root / "schema_link_state.json").read_bytes() == state


def test_deleted_docs_are_not_rewritten(shop):
    root, project = shop
    apply(plan_writes(project, [link("orders.customer_id", "customers.customer_id", 0.95)]))
    schema = root / "models" / "schema.yml"
    text = schema.read_text().replace("        description: Joins to `customers.customer_id` (many-to-one).\n", "")
    schema.write_text(text)
    plan = plan_writes(project, [link("orders.customer_id", "customers.customer_id", 0.95)])
    assert plan.changes == []
    assert any(s.what == "docs" and "rejected" in s.reason for s in plan.skipped)


def test_existing_and_declared_tests_are_not_duplicated(shop):
    root, project = shop
    schema = root / "models" / "schema.yml"
    schema.write_text(schema.read_text().replace(
        "          - not_null   # must exist\n",
        "          - not_null   # must exist\n          - relationships:\n              to: \"ref('customers')\"\n"
        "              field: CUSTOMER_ID\n",
    ))
    declared = DeclaredLink(ColumnRef("model.tinyshop.orders", "store_id"), ColumnRef("model.tinyshop.stores", "store_id"),
                            LinkOrigin.RELATIONSHIPS_TEST, "test.tinyshop.rel_store")
    project = replace(project, declared_links=[declared])
    plan = plan_writes(project, standard_links(), WriteOptions(column_docs=False))
    reasons = {s.link.child.column: s.reason for s in plan.skipped if s.what == "test"}
    assert "already in the YAML" in reasons["customer_id"]
    assert "test.tinyshop.rel_store" in reasons["store_id"]


def test_changed_on_disk_is_detected_and_nothing_written(shop):
    root, project = shop
    plan = plan_writes(project, standard_links())
    schema = root / "models" / "schema.yml"
    schema.write_text(schema.read_text() + "# edited meanwhile\n")
    with pytest.raises(YamlWriteError, match="changed on disk"):
        apply(plan)
    assert not (root / "models" / "_stores__schema_link.yml").exists()
    assert schema.read_text().endswith("# edited meanwhile\n")


def test_touched_but_identical_file_is_still_written(shop):
    root, project = shop
    plan = plan_writes(project, standard_links())
    schema = root / "models" / "schema.yml"
    os.utime(schema, ns=(1, 1))
    apply(plan)
    assert "relationships" in schema.read_text()


def test_interrupted_write_leaves_whole_files(shop, monkeypatch):
    root, project = shop
    plan = plan_writes(project, standard_links())
    real_replace = os.replace
    calls = []

    def flaky_replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise KeyboardInterrupt  # killed between two files
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", flaky_replace)
    with pytest.raises(KeyboardInterrupt):
        apply(plan)
    monkeypatch.setattr(os, "replace", real_replace)
    assert not list(root.rglob("*.tmp")), "a temp file was left behind"
    written = {c.path: c for c in plan.changes}
    for path, change in written.items():
        data = path.read_bytes() if path.exists() else None
        assert data in (change.old, change.new)  # old bytes or new bytes, never a mix
    assert not (root / "schema_link_state.json").exists()  # the state file goes last
    apply(plan_writes(project, standard_links()))  # a re-run completes the job
    assert not plan_writes(project, standard_links()).would_change


def test_read_only_file_is_refused_others_still_written(shop):
    root, project = shop
    schema = root / "models" / "schema.yml"
    schema.chmod(0o444)
    try:
        plan = plan_writes(project, standard_links())
        assert [r.display for r in plan.refusals] == ["models/schema.yml"]
        assert "read-only" in plan.refusals[0].reason
        assert {c.display for c in plan.changes} == {"models/_stores__schema_link.yml", "schema_link_state.json"}
        state = next(c for c in plan.changes if c.kind is ChangeKind.STATE).new.decode()
        assert "orders.customer_id" not in state  # refused edits are not remembered
        apply(plan)
    finally:
        schema.chmod(0o644)


def test_stale_manifest_entry_missing_is_refused(shop):
    root, project = shop
    schema = root / "models" / "schema.yml"
    schema.write_text(schema.read_text().replace("  - name: payments\n", "  - name: payments_renamed\n"))
    plan = plan_writes(project, [link("payments.order_id", "orders.order_id")])
    assert plan.changes == []
    assert "run `dbt parse`" in plan.refusals[0].reason


def test_broken_yaml_is_refused_with_one_line(shop):
    root, project = shop
    schema = root / "models" / "schema.yml"
    schema.write_text(schema.read_text() + "  bad: [unclosed\n")
    plan = plan_writes(project, standard_links())
    refusal = next(r for r in plan.refusals if r.display == "models/schema.yml")
    assert "YAML error" in refusal.reason and "\n" not in refusal.reason
    assert len(refusal.links) == 4


def test_tests_and_data_tests_on_different_columns(shop):
    root, project = shop
    plan = plan_writes(project, [link("orders.customer_id", "customers.customer_id"),
                                 link("orders.order_id", "payments.payment_id")], WriteOptions(column_docs=False))
    apply(plan)
    assert _orders_column(root, "customer_id")["tests"][-1]["relationships"]["arguments"]["field"] == "customer_id"
    assert _orders_column(root, "order_id")["data_tests"][-1]["relationships"]["arguments"]["to"] == "ref('payments')"


def test_versioned_and_package_models_are_skipped(shop):
    root, project = shop
    rel = project.relations["model.tinyshop.orders"]
    project.relations["model.tinyshop.orders.v2"] = replace(rel, unique_id="model.tinyshop.orders.v2")
    project.relations["model.other.thing"] = replace(rel, unique_id="model.other.thing", name="thing", package_name="other")
    customers = ColumnRef("model.tinyshop.customers", "customer_id")
    links = [AcceptedLink(ColumnRef("model.tinyshop.orders.v2", "customer_id"), customers, 0.9),
             AcceptedLink(ColumnRef("model.other.thing", "customer_id"), customers, 0.9),
             AcceptedLink(ColumnRef("model.tinyshop.nope", "x"), customers, 0.9)]
    plan = plan_writes(project, links, WriteOptions(package_tests=False))
    assert plan.changes == []
    reasons = " | ".join(s.reason for s in plan.skipped)
    assert "versioned model" in reasons and "package other" in reasons and "not in the manifest" in reasons
    assert plan.package_lines() == [f"not writable: 1 link(s) on relations of package other: {PACKAGE_REASON}"]
    # by default the package's link becomes a data test in the root project (writers/package_tests.py)
    plan = plan_writes(project, links)
    [change] = plan.project_changes
    assert change.display == "tests/schema_link/thing__customer_id__customers__customer_id.sql"
    assert change.kind is ChangeKind.SQL and b"from {{ ref('other', 'thing') }} as child" in change.new
    assert not plan.package_lines()


def test_constraints_only_for_enforced_contracts(shop):
    root, project = shop
    schema = root / "models" / "schema.yml"
    schema.write_text(schema.read_text().replace(
        "  - name: payments\n", "  - name: payments\n    config:\n      contract:\n        enforced: true\n"))
    options = WriteOptions(constraints=True, column_docs=False)
    plan = plan_writes(project, [link("payments.order_id", "orders.order_id"),
                                 link("orders.customer_id", "customers.customer_id")], options)
    apply(plan)
    data = py_load(schema.read_text())
    payments = next(m for m in data["models"] if m["name"] == "payments")
    column = next(c for c in payments["columns"] if c["name"] == "order_id")
    assert column["constraints"] == [{"type": "foreign_key", "to": "ref('orders')", "to_columns": ["order_id"]}]
    assert "constraints" not in _orders_column(root, "customer_id")
    assert not plan_writes(project, [link("payments.order_id", "orders.order_id")], options).would_change
    old = plan_writes(replace(project, dbt_version="1.8.10"), [link("payments.order_id", "orders.customer_id")], options)
    assert any("need dbt >= 1.9" in s.reason for s in old.skipped)


def test_semantic_models_need_a_time_spine(shop):
    root, project = shop
    plan = plan_writes(project, standard_links(), WriteOptions(tests=False, column_docs=False,
                                                               semantic_models=SemanticSpec.LEGACY))
    assert plan.changes == []
    assert any("no time spine" in n and "--create-time-spine" in n for n in plan.notes)
    in_model_on_old = plan_writes(project, standard_links(), WriteOptions(
        semantic_models=SemanticSpec.MODEL, create_time_spine=True, tests=False, column_docs=False))
    assert any("needs dbt >= 1.12" in n for n in in_model_on_old.notes)


def test_existing_semantic_model_gets_entities_in_place(shop):
    root, project = shop
    (root / "models" / "semantic.yml").write_text(
        "semantic_models:\n  - name: orders_sm   # mine\n    model: ref('orders')\n    entities:\n"
        "      - name: order\n        type: primary\n        expr: order_id\n      - name: buyer\n"
        "        type: foreign\n        expr: customer_id\n")
    (root / "models" / "metricflow_time_spine.sql").write_text("select 1 as date_day\n")
    spine = replace(project.relations["model.tinyshop.customers"], unique_id="model.tinyshop.metricflow_time_spine",
                    name="metricflow_time_spine", patch_path=None)
    project.relations[spine.unique_id] = spine
    options = WriteOptions(tests=False, column_docs=False, semantic_models=SemanticSpec.LEGACY)
    plan = plan_writes(project, [link("orders.customer_id", "customers.customer_id"),
                                 link("payments.order_id", "orders.order_id")], options)
    assert not plan.refusals
    apply(plan)
    orders_sm = py_load((root / "models" / "semantic.yml").read_text())["semantic_models"][0]
    assert len(orders_sm["entities"]) == 2  # customer_id already is an entity; order reused
    payments = py_load((root / "models" / "_payments__schema_link.yml").read_text())["semantic_models"][0]
    assert payments["entities"] == [{"name": "order", "type": "foreign", "expr": "order_id"}]
    assert (root / "models" / "semantic.yml").read_text().startswith("semantic_models:\n  - name: orders_sm   # mine\n")
    assert not plan_writes(project, [link("payments.order_id", "orders.order_id")], options).would_change


def test_options_and_records_validate():
    with pytest.raises(SchemaLinkError, match="min_confidence"):
        WriteOptions(min_confidence=1.5)
    with pytest.raises(SchemaLinkError, match="severity"):
        WriteOptions(severity="fatal")
    with pytest.raises(SchemaLinkError, match="new_file_pattern"):
        WriteOptions(new_file_pattern="{dir}/x.yml")
    with pytest.raises(SchemaLinkError, match="unknown field"):
        WriteOptions(new_file_pattern="{dir}/{name}_{bad}.yml")
    with pytest.raises(SchemaLinkError, match="semantic_models"):
        WriteOptions(semantic_models="sometimes")
    assert WriteOptions(semantic_models=True).semantic_models is SemanticSpec.LEGACY
    assert WriteOptions.from_mapping({"min_confidence": 0.5}, severity="error", dbt_version=None).severity == "error"
    with pytest.raises(SchemaLinkError, match="unknown write setting"):
        WriteOptions.from_mapping({"min_conf": 1})
    assert RelationshipType.parse("many-to-one") is RelationshipType.MANY_TO_ONE
    assert RelationshipType.parse("11").meta_value == "one-to-one"
    with pytest.raises(ValueError, match="n1/many-to-one"):
        RelationshipType.parse("sideways")
    with pytest.raises(ValueError, match="confidence"):
        link("orders.customer_id", "customers.customer_id", 1.2)
    one_to_many = link("orders.customer_id", "customers.customer_id", relationship_type="1n")
    assert one_to_many.relationship_type is RelationshipType.ONE_TO_MANY


@pytest.mark.parametrize("version, arguments, column_config, spine_yaml, in_model", [
    ("1.8.10", False, False, False, False),
    ("1.9.4", False, False, True, False),
    ("1.10.4", False, True, True, False),
    ("1.10.5", True, True, True, False),
    ("1.11.16", True, True, True, False),
    ("1.12.0b1", True, True, True, True),
])
def test_syntax_by_version(version, arguments, column_config, spine_yaml, in_model):
    syntax = syntax_for(version)
    assert (syntax.test_arguments, syntax.column_meta_in_config, syntax.time_spine_yaml,
            syntax.model_semantic_spec) == (arguments, column_config, spine_yaml, in_model)


def test_unknown_or_old_versions_are_errors(shop):
    root, project = shop
    for bad in ("", "banana", "1.7.3"):
        with pytest.raises(SchemaLinkError):
            syntax_for(bad)
    plan = plan_writes(replace(project, dbt_version=""), standard_links(), WriteOptions(dbt_version="1.8.0"))
    assert plan.dbt_version == "1.8.0"


def test_type_clash_gets_docs_but_no_test(shop):
    from dbt_schema_link.artifacts.records import Column

    root, project = shop
    project.relations["model.tinyshop.payments"].columns["order_id"] = Column("order_id", "character varying(20)")
    plan = plan_writes(project, [link("payments.order_id", "orders.order_id")],
                       WriteOptions(semantic_models=SemanticSpec.LEGACY, create_time_spine=True))
    assert any("column types differ (character varying(20) vs INTEGER)" in s.reason for s in plan.skipped)
    data = py_load(next(c for c in plan.changes if c.display == "models/schema.yml").new.decode())
    column = next(m for m in data["models"] if m["name"] == "payments")["columns"][-1]
    assert column["description"].startswith("Joins to `orders.order_id`") and "data_tests" not in column


def test_seed_entry_is_edited_in_place_and_anchors_elsewhere_survive(shop):
    from dbt_schema_link.artifacts.records import Relation, ResourceType

    root, project = shop
    (root / "seeds" / "_seeds.yml").write_text(
        "x-defaults: &defaults\n  config:\n    column_types: {amount: decimal}\n\n"
        "seeds:\n  - name: raw_payments\n    <<: *defaults\n  - name: raw_orders\n    description: Orders, raw.\n"
    )
    seed = Relation(unique_id="seed.tinyshop.raw_orders", resource_type=ResourceType.SEED, name="raw_orders",
                    package_name="tinyshop", database="db", schema="main", identifier="raw_orders",
                    relation_name='"db"."main"."raw_orders"', patch_path="tinyshop://seeds/_seeds.yml",
                    original_file_path="seeds/raw_orders.csv")
    project.relations[seed.unique_id] = seed
    plan = plan_writes(project, [AcceptedLink(ColumnRef(seed.unique_id, "customer_id"),
                                              ColumnRef("model.tinyshop.customers", "customer_id"), 0.9)])
    assert not plan.refusals
    new = plan.changes[0].new.decode()
    assert new.startswith("x-defaults: &defaults\n  config:\n    column_types: {amount: decimal}\n\n"
                          "seeds:\n  - name: raw_payments\n    <<: *defaults\n  - name: raw_orders\n")
    orders = py_load(new)["seeds"][1]
    assert orders["columns"][0]["data_tests"][0]["relationships"]["arguments"]["to"] == "ref('customers')"
    # the anchored seed itself cannot be edited: refused, one line
    payments = replace(seed, unique_id="seed.tinyshop.raw_payments", name="raw_payments")
    project.relations[payments.unique_id] = payments
    refused = plan_writes(project, [AcceptedLink(ColumnRef(payments.unique_id, "order_id"),
                                                 ColumnRef("model.tinyshop.orders", "order_id"), 0.9)])
    assert refused.changes == [] and "anchor" in refused.refusals[0].reason


def test_disabled_semantic_model_gets_no_entities(shop):
    root, project = shop
    schema = root / "models" / "schema.yml"
    schema.write_text(schema.read_text().replace(
        "  - name: payments\n", "  - name: payments\n    semantic_model:\n      enabled: false\n"))
    options = WriteOptions(tests=False, column_docs=False, semantic_models=SemanticSpec.MODEL,
                           create_time_spine=True, dbt_version="1.12.0")
    plan = plan_writes(project, [link("payments.order_id", "orders.order_id")], options)
    assert plan.changes == [] and "disabled" in plan.skipped[0].reason
