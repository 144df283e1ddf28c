"""Generated tests quote what needs quoting, per adapter (pure: planner only, no dbt).

The end-to-end proof that the generated tests run is tests/reliability/test_identifiers.py; this
covers the rules on adapters and names that project does not have."""

from __future__ import annotations

import pytest

from dbt_schema_link.artifacts.records import Column, ColumnRef
from dbt_schema_link.writers import AcceptedLink, plan_writes
from dbt_schema_link.writers.relationships import needs_quoting, quote_identifier, unquote_identifier
from dbt_schema_link.writers.yaml_io import py_load
from tests.writers.tinyshop import synthetic_project, write_project


@pytest.mark.parametrize("name, adapter, quoted", [
    ("customer_id", "postgres", False),
    ("customer_id", "duckdb", False),
    ("CUSTOMER_ID", "snowflake", False),
    ("customer_id", "snowflake", True),   # stored lower case on Snowflake: only quoted finds it
    ("MixedCase", "postgres", True),
    ("MixedCase", "duckdb", False),       # DuckDB matches unquoted names case-insensitively
    ("select", "duckdb", True),
    ("Order", "postgres", True),
    ("Customer ID", "bigquery", True),
    ("ünï", "duckdb", True),
    ("dot.ted", "postgres", True),
])
def test_needs_quoting(name, adapter, quoted):
    assert needs_quoting(name, adapter) is quoted


@pytest.mark.parametrize("name", ['say "hi"', "it's", "a`b", "back\\slash", "Ü x", '""'])
@pytest.mark.parametrize("adapter", ["postgres", "bigquery"])
def test_quote_round_trip(name, adapter):
    assert unquote_identifier(quote_identifier(name, adapter)) == name


def _column(project, relation: str, name: str) -> None:
    rel = project.relations[relation]
    rel.columns[name.lower()] = Column(name=name, data_type="INTEGER", index=len(rel.columns))


@pytest.mark.parametrize("adapter", ["postgres", "duckdb"])
def test_planned_tests_quote_child_and_parent(tmp_path, adapter):
    root = write_project(tmp_path / "tinyshop")
    project = synthetic_project(root)
    project.adapter_type = adapter
    for name in ("MixedCase", 'say "hi"', "select"):
        _column(project, "model.tinyshop.orders", name)
    _column(project, "model.tinyshop.customers", "Key Col")
    links = [
        AcceptedLink(ColumnRef("model.tinyshop.orders", "MixedCase"), ColumnRef("model.tinyshop.customers", "Key Col"), 0.9),
        AcceptedLink(ColumnRef("model.tinyshop.orders", "select"), ColumnRef("model.tinyshop.customers", "customer_id"), 0.9),
        AcceptedLink(ColumnRef("model.tinyshop.orders", 'say "hi"'), ColumnRef("model.tinyshop.customers", "customer_id"), 0.9),
    ]
    plan = plan_writes(project, links)
    assert not plan.refusals
    change = next(c for c in plan.changes if c.display == "models/schema.yml")
    orders = next(m for m in py_load(change.new.decode())["models"] if m["name"] == "orders")
    cols = {c["name"]: c for c in orders["columns"]}

    mixed = cols["MixedCase"]
    assert mixed.get("quote") is (True if adapter == "postgres" else None)
    [test] = mixed["data_tests"]
    assert test["relationships"]["arguments"]["field"] == '"Key Col"'
    assert cols["select"]["quote"] is True
    # dbt would put `say "hi"` into SQL unescaped: no test, a reason, but the docs are written
    assert "data_tests" not in cols['say "hi"'] and cols['say "hi"']["description"].startswith("Joins to")
    reasons = [s.reason for s in plan.skipped if s.link.child.column == 'say "hi"' and s.what == "test"]
    assert reasons and "quote character" in reasons[0]
    # and the next plan recognises the quoted tests as already there
    from dbt_schema_link.writers import apply

    apply(plan)
    again = plan_writes(project, links)
    assert not [c for c in again.changes if c.display == "models/schema.yml"]
