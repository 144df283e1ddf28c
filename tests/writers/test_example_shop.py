"""Write-back on the example project (examples/shop), on DuckDB and PostgreSQL: the planted
joins of expected_links.json, written as tests and docs into the example's own YAML, parse with
no new warning, pass `dbt test -s tag:schema_link`, and a broken row makes one fail."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from dbt_schema_link.artifacts.manifest import read_project
from dbt_schema_link.artifacts.records import ColumnRef, Project
from dbt_schema_link.dbt_runner import DbtInvocation
from dbt_schema_link.writers import AcceptedLink, WriteOptions, apply, plan_writes
from dbt_schema_link.writers.validate import validate_plan
from tests.conftest import REPO, BuiltProject

pytestmark = pytest.mark.dbt
EXPECTED = REPO / "examples" / "shop" / "expected_links.json"
if not EXPECTED.exists():  # pragma: no cover - the example is built in parallel
    pytest.skip("examples/shop is not there yet", allow_module_level=True)


def _ref(project: Project, dotted: str) -> ColumnRef:
    name, column = dotted.rsplit(".", 1)
    rel = project.by_name(name)
    assert rel is not None, name
    return ColumnRef(rel.unique_id, column)


def planted_links(project: Project) -> list[AcceptedLink]:
    joins = json.loads(EXPECTED.read_text())["joins"]
    return [AcceptedLink(_ref(project, j["child"]), _ref(project, j["parent"]), 0.95,
                         evidence_summary=f"planted join ({j['kind']})") for j in joins]


def _copy(src: BuiltProject, dest: Path, **env: str) -> BuiltProject:
    """A private copy of a session-built example (others read the original): files and env."""
    shutil.copytree(src.path, dest, symlinks=True, ignore=shutil.ignore_patterns("logs", "*.duckdb", "*.wal"))
    return BuiltProject(dest, src.target, {**src.env, **env})


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
def shop(request, tmp_path_factory):
    """The session's built example, copied (warehouse included), then written back."""
    dest = tmp_path_factory.mktemp(f"shop_write_{request.param}") / "shop"
    if request.param == "duckdb":
        src = request.getfixturevalue("shop_duckdb")
        database = dest.parent / "shop.duckdb"
        shutil.copyfile(src.env["SHOP_DUCKDB_PATH"], database)
        built = _copy(src, dest, SHOP_DUCKDB_PATH=str(database))
    else:
        src = request.getfixturevalue("shop_postgres")
        request.getfixturevalue("pg_server").psql(
            f'CREATE DATABASE "shop_write" TEMPLATE "{src.env["SCHEMA_LINK_PG_DBNAME"]}"')
        built = _copy(src, dest, SCHEMA_LINK_PG_DBNAME="shop_write")
    project = read_project(dest / "target", project_dir=dest)
    plan = plan_writes(project, planted_links(project), WriteOptions())
    assert not plan.refusals, plan.refusals
    # `dbt parse` of a scratch copy with the planned files: no warning the example lacks
    built.report = validate_plan(plan, DbtInvocation(project_dir=dest, target=built.target))
    apply(plan)
    built.plan = plan
    return built


def test_only_the_undeclared_joins_are_written(shop):
    tests = [a for c in shop.plan.changes for a in c.actions if a.startswith("test ")]
    declared = [j for j in json.loads(EXPECTED.read_text())["joins"] if j["declared"]]
    text_vs_int = [j for j in json.loads(EXPECTED.read_text())["joins"] if j["kind"] == "text_vs_int"]
    assert len(tests) == len(json.loads(EXPECTED.read_text())["joins"]) - len(declared) - len(text_vs_int)
    assert any("column types differ" in s.reason for s in shop.plan.skipped)
    assert {c.display for c in shop.plan.changes} <= {"models/staging/_staging.yml", "schema_link_state.json"}


def test_parses_with_no_new_warnings(shop):
    assert shop.report.ok, shop.report.problems
    assert any(c.startswith("dbt parse") for c in shop.report.checked)


def _test_results(shop) -> list[dict]:
    """The data tests' results (run_results.json lists run hooks too, where a project has them)."""
    results = json.loads((shop.path / "target" / "run_results.json").read_text())["results"]
    return [r for r in results if r["unique_id"].startswith("test.")]


def test_generated_tests_pass_then_fail_on_a_broken_row(shop):
    shop.dbt("test", "-s", "tag:schema_link")
    results = _test_results(shop)
    assert results and {r["status"] for r in results} == {"pass"}

    seed = shop.path / "seeds" / "raw_order_items.csv"
    with seed.open() as handle:
        rows = list(csv.DictReader(handle))
    broken = dict(rows[-1], order_item_id=str(max(int(r["order_item_id"]) for r in rows) + 1), product_id="999999")
    text = seed.read_text()
    seed.write_text(text + ("" if text.endswith("\n") else "\n") + ",".join(broken[k] for k in rows[0]) + "\n")
    shop.dbt("seed", "-s", "raw_order_items")
    shop.dbt("test", "-s", "tag:schema_link")  # severity warn: dbt still exits 0
    results = _test_results(shop)
    failing = {r["unique_id"].split(".")[2] for r in results if r["status"] == "warn"}
    assert len(failing) == 1 and next(iter(failing)).startswith("relationships_stg_order_items_product_id")
