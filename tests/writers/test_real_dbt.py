"""Write-back checked by real clients, on DuckDB and on a throwaway PostgreSQL:

- the written project parses with every warning (deprecations included) made fatal;
- `dbt test -s tag:schema_link` passes, and fails once a broken row is inserted;
- a second run on the re-parsed project changes nothing;
- dbterd draws the written relationships with their cardinality;
- the semantic models pass dbt's semantic validation once a metric is added.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dbt_schema_link.artifacts.manifest import read_project
from dbt_schema_link.dbt_runner import DbtInvocation
from dbt_schema_link.writers import SemanticSpec, WriteOptions, apply, plan_writes
from dbt_schema_link.writers.validate import validate_plan
from tests.conftest import base_env
from tests.writers.tinyshop import (
    DBT_EXE,
    SEMANTIC_SPECS,
    DbtProject,
    standard_links,
    write_project,
)

pytestmark = pytest.mark.dbt
FATAL_WARNINGS = ["--warn-error-options", '{"error": "all"}']
#: the tests standard_links() yields (the 0.5 one is below the threshold)
WRITTEN_TESTS = 5


def _build(root: Path, target: str, env: dict[str, str]) -> DbtProject:
    write_project(root)
    project = DbtProject(root, target, env)
    project.dbt("build")
    project.dbt("docs", "generate")
    return project


CASES = [(adapter, "legacy") for adapter in ("duckdb", "postgres")] + [
    ("duckdb", spec) for spec in SEMANTIC_SPECS if spec != "legacy"
]


@pytest.fixture(scope="module", params=CASES, ids=[f"{a}-{s}" for a, s in CASES])
def written(request, tmp_path_factory):
    """tinyshop built on one adapter, then written back with the standard links."""
    adapter, spec = request.param
    root = tmp_path_factory.mktemp(f"tinyshop_{adapter}_{spec}") / "tinyshop"
    if adapter == "duckdb":
        env = base_env(TINYSHOP_DUCKDB_PATH=str(root.parent / "tinyshop.duckdb"))
    else:
        pg = request.getfixturevalue("pg_server")
        pg.create_database("tinyshop")
        env = base_env(**pg.env("tinyshop"))
    built = _build(root, adapter, env)
    built.options = WriteOptions(semantic_models=SemanticSpec(spec), create_time_spine=True)
    project = read_project(root / "target", project_dir=root)
    plan = plan_writes(project, standard_links(), built.options)
    assert not plan.refusals, plan.refusals
    assert not plan.notes, plan.notes
    report = validate_plan(plan, DbtInvocation(project_dir=root, target=adapter, dbt_executable=DBT_EXE))
    assert report.ok, report.problems
    built.baseline = _parse_warnings(built)
    apply(plan)
    built.after = _parse_warnings(built)  # the manifest now knows the new files too
    return built


def _parse_warnings(project: DbtProject) -> Counter:
    """Warnings of a full parse, deprecations included (dbt 1.8 warns about `tests:` itself)."""
    res = project.dbt("--log-format", "json", "parse", "--no-partial-parse")
    warnings = Counter()
    for line in res.stdout.splitlines():
        try:
            info = json.loads(line)["info"]
        except (ValueError, KeyError, TypeError):
            continue
        if info.get("level") in ("warn", "error"):
            warnings[(info.get("name"), info.get("msg", "").strip())] += 1
    return warnings


def test_parses_with_no_new_warnings(written):
    assert written.after - written.baseline == Counter()
    if not written.baseline:  # a clean project stays clean with every warning fatal
        written.dbt(*FATAL_WARNINGS, "parse", "--no-partial-parse")


def test_generated_tests_pass(written):
    written.dbt("build", "-s", "metricflow_time_spine", "tag:schema_link")
    results = json.loads((written.path / "target" / "run_results.json").read_text())["results"]
    tests = [r for r in results if r["unique_id"].startswith("test.")]
    assert len(tests) == WRITTEN_TESTS
    assert {r["status"] for r in results} == {"pass", "success"}


def test_second_run_changes_nothing(written):
    project = read_project(written.path / "target", project_dir=written.path)
    plan = plan_writes(project, standard_links(), written.options)
    assert plan.changes == [], [c.display for c in plan.changes]


def test_dbterd_draws_the_relationships(written, tmp_path):
    dbterd = Path(sys.executable).parent / "dbterd"
    if not dbterd.exists():
        pytest.skip("dbterd is not installed (pip install dbterd)")
    out = tmp_path / "erd"
    out.mkdir()
    res = subprocess.run(
        [str(dbterd), "run", "-ad", str(written.path / "target"), "-t", "mermaid",
         "-rt", "model", "-rt", "source", "-o", str(out)],
        capture_output=True, text=True, env=written.env, cwd=written.path,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    erd = (out / "output.md").read_text().upper()
    assert '"MODEL.TINYSHOP.ORDERS" }|--|| "MODEL.TINYSHOP.CUSTOMERS": CUSTOMER_ID' in erd  # many-to-one
    assert '"MODEL.TINYSHOP.STORES" ||--|| "MODEL.TINYSHOP.CUSTOMERS"' in erd  # one-to-one
    assert '"MODEL.TINYSHOP.PAYMENTS" }|--|| "MODEL.TINYSHOP.ORDERS": ORDER_ID' in erd


def _add_metric_legacy(root: Path) -> Path:
    path = root / "models" / "_orders__schema_link.yml"
    yaml = YAML()
    doc = yaml.load(path.read_text())
    orders = doc["semantic_models"][0]
    assert {e["type"] for e in orders["entities"]} == {"primary", "foreign"}
    orders["defaults"] = {"agg_time_dimension": "ordered_at"}
    orders["dimensions"] = [{"name": "ordered_at", "type": "time", "type_params": {"time_granularity": "day"}}]
    orders["measures"] = [{"name": "order_count", "agg": "count", "expr": "order_id"}]
    doc["metrics"] = [{"name": "orders_count", "label": "Orders", "type": "simple",
                       "type_params": {"measure": "order_count"}}]
    with path.open("w") as handle:
        yaml.dump(doc, handle)
    return path


def _add_metric_in_model(root: Path) -> Path:
    """dbt 1.12 spec: the time dimension and the metric live on the model entry."""
    path = root / "models" / "schema.yml"
    yaml = YAML()
    doc = yaml.load(path.read_text())
    orders = next(m for m in doc["models"] if m["name"] == "orders")
    assert orders["semantic_model"] == {"enabled": True}
    orders["agg_time_dimension"] = "ordered_at"
    orders["columns"].append({"name": "ordered_at", "granularity": "day", "dimension": {"type": "time"}})
    orders["metrics"] = [{"name": "orders_count", "label": "Orders", "type": "simple", "agg": "count",
                          "expr": "order_id"}]
    with path.open("w") as handle:
        yaml.dump(doc, handle)
    return path


def test_semantic_models_pass_semantic_validation(written):
    """Add one metric (and what it needs) to the written semantic model: full validation runs."""
    legacy = written.options.semantic_models is SemanticSpec.LEGACY
    target = (written.path / "models" / ("_orders__schema_link.yml" if legacy else "schema.yml"))
    backup = target.read_text()
    (_add_metric_legacy if legacy else _add_metric_in_model)(written.path)
    try:
        assert _parse_warnings(written) - written.baseline == Counter()  # semantic validation included
        manifest = json.loads((written.path / "target" / "manifest.json").read_text())
        assert "metric.tinyshop.orders_count" in manifest["metrics"]
        entities = {e["name"] for sm in manifest["semantic_models"].values() for e in sm["entities"]}
        assert {"customer", "order", "store"} <= entities
    finally:
        target.write_text(backup)


def test_broken_row_fails_the_generated_tests(written):
    """Last: corrupts the data. An orphan order (warn) and an orphan payment (error)."""
    seeds = written.path / "seeds"
    with (seeds / "raw_orders.csv").open("a") as handle:
        handle.write("104,999,10,done,2024-01-04\n")
    with (seeds / "raw_payments.csv").open("a") as handle:
        handle.write("1003,555,2\n")
    written.dbt("seed")  # reloads in place; the models are views, so they see the new rows
    res = written.dbt("test", "-s", "tag:schema_link", check=False)
    assert res.returncode != 0  # the declared-elsewhere test has severity error
    results = {
        r["unique_id"]: r for r in json.loads((written.path / "target" / "run_results.json").read_text())["results"]
    }
    by_column = {uid.split(".")[2]: r for uid, r in results.items()}
    orders = next(r for k, r in by_column.items() if k.startswith("relationships_orders_customer_id"))
    assert orders["status"] == "warn" and orders["failures"] == 1
    payments = next(r for k, r in by_column.items() if k.startswith("relationships_payments_order_id"))
    assert payments["status"] == "fail" and payments["failures"] == 1
    source = next(r for k, r in by_column.items() if k.startswith("source_relationships_raw_payments_order_id"))
    assert source["status"] == "warn" and source["failures"] == 1
    shutil.rmtree(written.path / "target", ignore_errors=True)
