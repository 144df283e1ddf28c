"""Checks of the real-project benchmark harness (benchmarks/realproj.py, realbench/) on made-up
labels, links.json documents, manifests and project folders (no benchmark data needed).

Run: python -m pytest benchmarks/tests/test_realproj.py
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import realproj
from realbench import judge, links, loop, projects, report, split
from realbench.judge import Verdict
from realbench.loop import LoopRun, StepResult, WrittenTests
from realbench.report import ProjectResult
from saasbench import split as saas_split
from saasbench.labels import Label

# --- links.json pieces ---------------------------------------------------------------------------


def col(relation: str, column: str) -> dict:
    return {"relation": relation, "column": column}


def link(child: str, parent: str, confidence: float = 0.95, provenance: str = "inferred",
         collapsed: list[tuple[str, str]] = (), extra: list[tuple[str, str]] = ()) -> dict:
    """A links.json entry; `child`/`parent` as `unique_id:column`."""
    def ref(text: str) -> dict:
        rel, _, c = text.partition(":")
        return col(rel, c)
    kind = "lineage" if provenance == "lineage" else "declared" if provenance == "declared" else "inferred"
    out = {"child": ref(child), "parent": ref(parent), "provenance": provenance, "kind": kind,
           "confidence": confidence, "collapsed": [{"child": ref(c), "parent": ref(p)} for c, p in collapsed]}
    if extra:
        out["extra_pairs"] = [{"child": ref(c), "parent": ref(p)} for c, p in extra]
    return out


M = "model.shop."
S = "seed.shop."


def record(child: str, parent: str, verdict: str, child_node: str, parent_node: str, sources=("tool",)) -> dict:
    return {"child": child, "parent": parent, "verdict": verdict, "child_node": child_node,
            "parent_node": parent_node, "sources": list(sources), "why": "made up"}


RECORDS = [
    record("orders.customer_id", "customers.customer_id", "true", M + "orders", M + "customers",
           ("declared_test",)),
    record("order_items.order_id", "orders.order_id", "true", M + "order_items", M + "orders"),
    record("order_items.(order_id,product_id)", "returns.(order_id,product_id)", "false",
           M + "order_items", M + "returns"),
    record("orders.store_id", "stores.id", "doubtful", M + "orders", S + "stores"),
    record("orders.ordered_at", "dates.date_day", "false", M + "orders", M + "dates"),
    record("raw_orders.Customer", "raw_customers.ID", "true", S + "raw_orders", S + "raw_customers"),
]


@pytest.fixture
def dbt_judge(tmp_path: Path) -> judge.DbtJudge:
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"project": "shop", "records": RECORDS}))
    return judge.DbtJudge(judge.read_records(path))


# --- split ---------------------------------------------------------------------------------------------
def test_split_covers_the_eleven_projects_once_and_keeps_the_saas_split() -> None:
    assert len(split.TUNING) == len(set(split.TUNING)) == 6
    assert len(split.HELD_BACK) == len(set(split.HELD_BACK)) == 5
    assert not set(split.TUNING) & set(split.HELD_BACK)
    assert set(split.TUNING) - set(split.DBT_TUNING) == set(saas_split.TUNING)
    assert set(split.HELD_BACK) - set(split.DBT_HELD_BACK) == set(saas_split.HELD_BACK)
    assert set(split.DBT_TUNING) | set(split.DBT_HELD_BACK) == {"jaffle_shop", "adventureworks_kimball",
                                                                "synthea_omop"}
    assert split.half_of("Synthea_OMOP") is split.Half.TUNING
    assert split.half_of("adventureworks_kimball") is split.Half.HELD_BACK
    assert split.half_of("shopify") is saas_split.half_of("shopify") is split.Half.HELD_BACK
    assert split.half_of("stripe") is None


# --- labels.json ------------------------------------------------------------------------------------
def test_columns_of_reads_plain_and_composite_columns() -> None:
    assert judge.columns_of("orders.Customer_ID") == ["customer_id"]
    assert judge.columns_of("ecom.raw_orders.id") == ["id"]  # a source: source_name.table.column
    assert judge.columns_of("salesorderdetail.(SalesOrderID, productid)") == ["salesorderid", "productid"]


def test_records_are_read_with_nodes_and_column_pairs(dbt_judge: judge.DbtJudge) -> None:
    by_text = {r.text: r for r in dbt_judge.records}
    composite = by_text["order_items.(order_id,product_id) -> returns.(order_id,product_id)"]
    assert composite.columns == frozenset({("order_id", "order_id"), ("product_id", "product_id")})
    assert composite.key[:2] == (M + "order_items", M + "returns")
    assert [r.text for r in dbt_judge.truth] == ["orders.customer_id -> customers.customer_id",
                                                 "order_items.order_id -> orders.order_id",
                                                 "raw_orders.Customer -> raw_customers.ID"]


def joins(*entries: dict) -> list[links.Link]:
    return links.join_links({"links": list(entries)})


def test_dbt_verdicts(dbt_judge: judge.DbtJudge) -> None:
    found = joins(
        link(M + "order_items:order_id", M + "orders:order_id"),  # true
        link(M + "orders:ordered_at", M + "dates:date_day"),  # false
        link(M + "orders:store_id", S + "stores:id"),  # doubtful
        link(M + "orders:order_id", M + "order_items:order_id"),  # a record reversed: false
        link(M + "orders:store_id", M + "stores:id"),  # model, not the seed the record names: unjudged
        link(S + "raw_orders:customer", S + "raw_customers:id"),  # case of the record's columns ignored
        link(M + "order_items:order_id", M + "returns:order_id",
             extra=[(M + "order_items:product_id", M + "returns:product_id")]),  # composite record: false
        link(M + "order_items:order_id", M + "returns:order_id"),  # one column of it alone: unjudged
    )
    got = [judge.judge_link(dbt_judge, x) for x in found]
    assert [j.verdict for j in got] == [Verdict.TRUE, Verdict.FALSE, Verdict.DOUBTFUL, Verdict.FALSE,
                                        Verdict.UNJUDGED, Verdict.TRUE, Verdict.FALSE, Verdict.UNJUDGED]
    assert got[3].reversed and not got[1].reversed
    assert got[0].label == "order_items.order_id -> orders.order_id" and got[0].via == "pair"


def test_an_unjudged_link_takes_its_first_judged_collapsed_pair(dbt_judge: judge.DbtJudge) -> None:
    (x,) = joins(link(M + "fct_items:order_id", M + "dim_orders:order_id",
                      collapsed=[(M + "fct_items:order_id", M + "orders:order_id"),
                                 (M + "orders:ordered_at", M + "dates:date_day"),
                                 (M + "order_items:order_id", M + "orders:order_id")]))
    j = judge.judge_link(dbt_judge, x)
    assert (j.verdict, j.via, j.label) == (Verdict.FALSE, "collapsed", "orders.ordered_at -> dates.date_day")


def test_labels_found_reads_pairs_composites_and_collapsed_pairs(dbt_judge: judge.DbtJudge) -> None:
    found = joins(
        link(M + "fct:x", M + "dim:y", collapsed=[(M + "order_items:order_id", M + "orders:order_id")]),
        link(M + "customers:customer_id", M + "orders:customer_id"),  # reversed: does not find it
    )
    assert judge.labels_found(dbt_judge, found) == [False, True, False]
    assert judge.labels_found(dbt_judge, joins(link(S + "raw_orders:Customer", S + "raw_customers:id"))) == \
        [False, False, True]


# --- SaaS: truth.json through lineage ----------------------------------------------------------------
PKG = "model.shopify."
SEED = "seed.shopify_integration_tests."
MANIFEST = {
    "sources": {
        "source.shopify.shopify.order": {"name": "order", "identifier": "shopify_order_data"},
        "source.shopify.shopify.order_line": {"name": "order_line", "identifier": "shopify_order_line_data"},
        "source.shopify.shopify.customer": {"name": "Customer", "identifier": "shopify_customer_data"},
    },
    "nodes": {
        SEED + "shopify_order_data": {"resource_type": "seed", "name": "shopify_order_data",
                                      "alias": "shopify_order_data"},
        SEED + "shopify_order_line_data": {"resource_type": "seed", "name": "shopify_order_line_data"},
        SEED + "shopify_unused_data": {"resource_type": "seed", "name": "shopify_unused_data"},
        PKG + "stg_shopify__order": {"resource_type": "model", "name": "stg_shopify__order"},
    },
}
LINEAGE_DOC = {"links": [
    link(PKG + "stg_shopify__order_tmp:id", SEED + "shopify_order_data:id", provenance="lineage"),
    link(PKG + "stg_shopify__order:order_id", PKG + "stg_shopify__order_tmp:id", provenance="lineage"),
    link(PKG + "stg_shopify__order:customer_id", PKG + "stg_shopify__order_tmp:customer_id", provenance="lineage"),
    link(PKG + "stg_shopify__order_tmp:customer_id", SEED + "shopify_order_data:customer_id", provenance="lineage"),
    link(PKG + "stg_shopify__order_line:order_id", SEED + "shopify_order_line_data:order_id", provenance="lineage"),
    link(PKG + "stg_shopify__order_line:order_line_id", SEED + "shopify_order_line_data:id", provenance="lineage"),
    link(PKG + "orders_enriched:order_id", PKG + "stg_shopify__order:order_id", provenance="lineage"),
]}
SAAS_LABELS = [
    Label(("order_line", "order_id"), ("order", "id"), "fk"),
    Label(("order", "customer_id"), ("customer", "id"), "fk"),
]


@pytest.fixture
def saas_judge() -> judge.SaasJudge:
    return judge.SaasJudge(SAAS_LABELS, links.lineage_map(LINEAGE_DOC), judge.source_tables(MANIFEST))


def test_source_tables_map_sources_and_the_seeds_they_read() -> None:
    tables = judge.source_tables(MANIFEST)
    assert tables[SEED + "shopify_order_data"] == "order"
    assert tables[SEED + "shopify_order_line_data"] == "order_line"  # no alias: its name
    assert tables["source.shopify.shopify.customer"] == "customer"  # lower-cased
    assert SEED + "shopify_unused_data" not in tables and PKG + "stg_shopify__order" not in tables


def test_trace_follows_lineage_and_renames_to_source_columns(saas_judge: judge.SaasJudge) -> None:
    assert saas_judge.trace((PKG + "orders_enriched", "order_id")) == {("order", "id")}
    assert saas_judge.trace((PKG + "stg_shopify__order_line", "order_line_id")) == {("order_line", "id")}
    assert saas_judge.trace(("source.shopify.shopify.customer", "id")) == {("customer", "id")}
    assert saas_judge.trace((PKG + "orders_enriched", "revenue")) == frozenset()  # computed: no lineage


def test_saas_verdicts(saas_judge: judge.SaasJudge) -> None:
    found = joins(
        link(PKG + "stg_shopify__order_line:order_id", PKG + "stg_shopify__order:order_id"),  # label
        link(PKG + "stg_shopify__order:customer_id", "source.shopify.shopify.customer:id"),  # label
        link(PKG + "stg_shopify__order:order_id", PKG + "stg_shopify__order_line:order_id"),  # fk reversed
        link(PKG + "orders_enriched:order_id", PKG + "stg_shopify__order:order_id"),  # two copies of order.id
        link(PKG + "stg_shopify__order_line:order_line_id", PKG + "stg_shopify__order:customer_id"),  # false
        link(PKG + "orders_enriched:revenue", PKG + "stg_shopify__order:order_id"),  # unjudged
        link(SEED + "shopify_order_line_data:order_id", SEED + "shopify_order_data:customer_id"),
    )
    got = [judge.judge_link(saas_judge, x) for x in found]
    assert [j.verdict for j in got] == [Verdict.TRUE, Verdict.TRUE, Verdict.FALSE, Verdict.FALSE, Verdict.FALSE,
                                        Verdict.UNJUDGED, Verdict.FALSE]
    assert got[0].label == "order_line.order_id -> order.id"
    assert got[2].reversed and got[3].copy


def test_saas_allowance_and_labels_found(saas_judge: judge.SaasJudge) -> None:
    lineage = links.lineage_map(LINEAGE_DOC)
    lineage[(PKG + "stg_refund", "order_id")] = [("source.shopify.shopify.refund", "order_id")]
    tables = judge.source_tables(MANIFEST) | {"source.shopify.shopify.refund": "refund"}
    j = judge.SaasJudge(SAAS_LABELS, lineage, tables)
    (x,) = joins(link(PKG + "stg_refund:order_id", PKG + "stg_shopify__order:order_id"))  # named key, unlabelled
    assert judge.judge_link(j, x).verdict is Verdict.ALLOWED
    found = joins(link(PKG + "mart:x", PKG + "mart2:y",
                       collapsed=[(PKG + "stg_shopify__order_line:order_id", PKG + "orders_enriched:order_id")]))
    assert judge.labels_found(saas_judge, found) == [True, False]


# --- report ----------------------------------------------------------------------------------------------
def scored_result(dbt_judge: judge.DbtJudge) -> ProjectResult:
    doc = {"links": [
        link(M + "order_items:order_id", M + "orders:order_id", 0.95),  # true, 0.9-1.0
        link(M + "orders:ordered_at", M + "dates:date_day", 0.75),  # false, 0.7-0.9
        link(M + "orders:store_id", S + "stores:id", 0.72),  # doubtful, 0.7-0.9
        link(M + "stg_x_tmp:a", M + "b:a", 0.8),  # unjudged, 0.7-0.9, on a _tmp view
        link(M + "orders:store_id", M + "stores:id", 0.55),  # unjudged, 0.5-0.7
        link(M + "orders:customer_id", M + "customers:customer_id", 1.0, "declared"),  # not scored
        link(M + "orders:x", M + "orders_tmp:x", 1.0, "lineage"),  # not a join
    ]}
    r = ProjectResult("shop", "dbt", split.Half.TUNING)
    r.run = LoopRun(tests=WrittenTests({"pass": 3, "warn": 1, "error": 1}, on_tmp=["t on stg_x_tmp"]))
    r.run.steps["link"] = StepResult("link", "dbt-schema-link link --profiles-dir .", 0, 20.0, "l.log")
    r.run.steps["check"] = StepResult("check", "dbt-schema-link link --check --profiles-dir .", 1, 9.0, "c.log")
    r.run.check_lines = ["new join: a -> b"]
    report.score(r, doc, dbt_judge)
    return r


def test_score_and_tally(dbt_judge: judge.DbtJudge) -> None:
    r = scored_result(dbt_judge)
    t = r.tally
    assert t.links == 5 and t.declared_links == 1 and r.provenance1 == {"declared": 1, "inferred": 5}
    assert t.band(3)[Verdict.TRUE] == 1 and t.band(1)[Verdict.UNJUDGED] == 1
    assert (t.band(2)[Verdict.FALSE], t.band(2)[Verdict.DOUBTFUL], t.band(2)[Verdict.UNJUDGED]) == (1, 1, 1)
    assert t.bar_links == 4 and t.bar_precision == pytest.approx(1 / 3)  # unjudged left out
    assert (t.labels, t.found, t.recall) == (3, 2, pytest.approx(2 / 3))  # declared link finds its label
    assert (t.undeclared, t.undeclared_found) == (2, 1)
    assert (t.tmp_links, t.tmp_tests, t.checks_red, t.checks_green) == (1, 1, 1, 0)  # lineage is no join
    assert t.tests == (3, 1, 1, 0) and t.test_pass_rate == pytest.approx(0.6)
    assert t.seconds[0] == 20.0 and t.seconds[2] == 9.0
    assert r.missed() == ["raw_orders.Customer -> raw_customers.ID"]
    both = t + t
    assert (both.links, both.found, both.band(2)[Verdict.FALSE], both.tests[0]) == (10, 4, 2, 6)
    assert both.bar_precision == t.bar_precision and both.seconds[0] == 40.0


def test_rendering_and_problems(dbt_judge: judge.DbtJudge) -> None:
    r = scored_result(dbt_judge)
    r.run.write_lines = ["refused models/x.yml: cannot add the new lines", "wrote 2 file(s)"]
    table = report.render_table([r])
    row = next(line for line in table.splitlines() if line.startswith("shop "))
    assert "0.33" in row and "0.67 2/3" in row and "3/1/1/0" in row and "RED" in row and " 1/1 " in row
    assert any(line.startswith("TUNING") for line in table.splitlines())
    assert "share true" in report.render_bands([r])
    checks = report.render_checks([r])
    assert "RED (exit 1)" in checks and "new join: a -> b" in checks
    found = report.problems(r)
    assert any(p.startswith("write refused models/x.yml") for p in found)
    assert any("link --check red" in p for p in found)
    assert any("join link(s) on _tmp views" in p for p in found)
    assert any("written test(s) on _tmp views" in p for p in found)
    assert report.totals([r])["all"]["recall"] == pytest.approx(2 / 3)


# --- the loop's pieces -----------------------------------------------------------------------------------
def _project(tmp_path: Path, subdir: str = "", build=("build",)) -> projects.RealProject:
    root = tmp_path / "data" / "dbt_projects"
    return projects.RealProject("shop", "dbt", root / "shop", root / "_deps", subdir, ("--full-refresh",), build,
                                root / "shop" / "labels.json")


def test_commands_are_what_a_user_types(tmp_path: Path) -> None:
    cmds = loop.commands(_project(tmp_path, build=("build", "--exclude", "test_type:data")), ("--set", "a=1"))
    assert cmds["build"] == ["dbt", "build", "--exclude", "test_type:data", "--profiles-dir", "."]
    assert cmds["seed"] == ["dbt", "seed", "--full-refresh", "--profiles-dir", "."]
    assert cmds["check"] == ["dbt-schema-link", "link", "--check", "--profiles-dir", ".", "--set", "a=1"]
    assert cmds["test"] == ["dbt", "test", "-s", "tag:schema_link", "--profiles-dir", "."]
    assert list(cmds) == list(loop.BUILD_STEPS + loop.TOOL_STEPS)
    assert loop.executable(cmds["index"])[1:] == ["-m", "dbt_schema_link", "index", "--profiles-dir", "."]


def test_test_results_write_lines_tracebacks(tmp_path: Path) -> None:
    (tmp_path / "run_results.json").write_text(json.dumps({"results": [
        {"unique_id": "test.p.rel_a", "status": "pass"},
        {"unique_id": "test.p.rel_b", "status": "warn", "message": "Got 3 results"},
        {"unique_id": "test.p.rel_c", "status": "error", "message": "Binder Error:\n no column"},
    ]}))
    (tmp_path / "manifest.json").write_text(json.dumps({"nodes": {
        "test.p.rel_a": {"attached_node": "model.p.orders"},
        "test.p.rel_b": {"depends_on": {"nodes": ["macro.dbt.test_relationships", "model.p.stg_p__order_tmp"]}},
        "test.p.rel_c": {"attached_node": "model.p.customers"},
    }}))
    t = loop.test_results(tmp_path)
    assert t.statuses == {"error": 1, "pass": 1, "warn": 1} and t.total == 3
    assert t.on_tmp == ["rel_b on stg_p__order_tmp"]
    assert t.not_passing == ["warn rel_b: Got 3 results", "error rel_c: Binder Error: no column"]
    step = StepResult("write", "dbt-schema-link write --profiles-dir .", 1, 1.0, "w.log",
                      stdout="create a.yml: test x\nrefused b.yml: cannot add\nchecked the new YAML\nwrote 1 file(s)\n",
                      stderr="Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'name'\n")
    assert loop.write_lines(step) == ["create a.yml: test x", "refused b.yml: cannot add", "wrote 1 file(s)"]
    assert loop.traceback_line(step) == "write (`dbt-schema-link write --profiles-dir .`): KeyError: 'name'"
    assert loop.traceback_line(StepResult("link", "l", 0, 1.0, "l.log", stdout="fine")) is None


def test_package_entry_must_be_the_checkout(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "dbt_project.yml").write_text("name: dbt_schema_link\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "dbt_project.yml").write_text("name: dbt_utils\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": "../other"}, {"local": "../repo"}]}))
    assert loop.package_entry(proj, repo) == ("../repo", True)
    assert loop.package_entry(proj, other) == ("../repo", False)
    (proj / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": "../other"}]}))
    assert loop.package_entry(proj, repo) == (None, False)


# --- projects ---------------------------------------------------------------------------------------------
def _data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shop = data / "dbt_projects" / "jaffle_shop"
    shop.mkdir(parents=True)
    (shop / "labels.json").write_text(json.dumps({"records": []}))
    (shop / "dbt_project.yml").write_text("name: jaffle_shop\nprofile: default\n")
    (shop / "models").mkdir()
    (shop / "models" / "a.yml").write_text("version: 2\n")
    (data / "dbt_projects" / "_deps" / "dbt_utils").mkdir(parents=True)
    pkg = data / "saas_dev" / "xero"
    (pkg / "seeds").mkdir(parents=True)
    (pkg / "seeds" / "account.csv").write_text("id\n1\n")
    (pkg / "truth.json").write_text("[]")
    (pkg / "package" / "integration_tests").mkdir(parents=True)
    (pkg / "package" / "integration_tests" / "dbt_project.yml").write_text("name: x\nprofile: integration_tests\n")
    (pkg / "package" / "integration_tests" / "profiles.yml").write_text("integration_tests: {}\n")
    (data / "saas_dev" / "_deps").mkdir()
    return data


def test_discover_copy_and_profiles(tmp_path: Path) -> None:
    data = _data(tmp_path)
    found = projects.discover(data)
    assert [(p.name, p.family, p.subdir) for p in found] == [("jaffle_shop", "dbt", ""),
                                                             ("xero", "saas", "integration_tests")]
    work = tmp_path / "work"
    shop, xero = found
    assert xero.project_dir(work) == work / "saas" / "xero" / "package" / "integration_tests"
    assert xero.labels == data / "saas_dev" / "xero" / "truth.json"
    project_dir = projects.copy_project(shop, work)
    assert project_dir == work / "dbt" / "jaffle_shop" and (work / "dbt" / "_deps" / "dbt_utils").is_dir()
    profile = yaml.safe_load((project_dir / "profiles.yml").read_text())
    assert profile == {"default": {"target": "dev", "outputs": {"dev": {
        "type": "duckdb", "path": "default.duckdb", "schema": "main", "threads": 2}}}}
    kept = projects.copy_project(xero, work)
    assert (kept / "profiles.yml").read_text() == "integration_tests: {}\n"  # the project's own, kept


def test_snapshot_restore_and_reusable(tmp_path: Path) -> None:
    data = _data(tmp_path)
    shop = projects.discover(data)[0]
    work = tmp_path / "work"
    pd = projects.copy_project(shop, work)
    assert projects.reusable(shop, work, None) == "target/manifest.json missing"
    (pd / "target").mkdir()
    (pd / "target" / "manifest.json").write_text('{"built": 1}')
    (pd / "target" / "catalog.json").write_text("{}")
    (pd / "dbt_packages" / "dbt_utils").mkdir(parents=True)
    (pd / "w.duckdb").write_text("db")
    pristine = shop.bench_dir(work) / "pristine"
    projects.snapshot(pd, pd, pristine)
    assert projects.reusable(shop, work, None) == "no prepared.json"
    wanted = projects.stamp(shop, tmp_path)
    (shop.bench_dir(work) / "prepared.json").write_text(json.dumps(wanted))
    assert projects.reusable(shop, work, wanted) is None
    # what the loop does to the project: init, write, dbt test
    (pd / "models" / "a.yml").write_text("version: 2\nmodels: [{name: a}]\n")
    (pd / "schema_link_state.json").write_text("{}")
    (pd / "dbt_packages" / "dbt_schema_link").mkdir()
    (pd / "target" / "manifest.json").write_text('{"tested": 1}')
    (pd / "target" / "schema_link").mkdir()
    (pd / "w.duckdb.wal").write_text("wal")
    changed = projects.restore(pd, pd, pristine)
    assert set(changed) == {"removed schema_link_state.json", "restored models/a.yml",
                            "removed dbt_packages/dbt_schema_link"}
    assert (pd / "models" / "a.yml").read_text() == "version: 2\n"
    assert json.loads((pd / "target" / "manifest.json").read_text()) == {"built": 1}
    assert not (pd / "target" / "schema_link").exists() and (pd / "dbt_packages" / "dbt_utils").is_dir()
    assert (pd / "w.duckdb.wal").exists()  # a warehouse file is never removed
    (data / "dbt_projects" / "jaffle_shop" / "models" / "b.yml").write_text("version: 2\n")  # the data changed
    assert projects.reusable(shop, work, projects.stamp(shop, tmp_path)) == \
        "data or harness changed since it was built"
    assert projects.reusable(shop, work, None) is None  # --skip-build does not compare


def test_without_data_or_with_an_unknown_project_exit_2(tmp_path: Path, capsys) -> None:
    assert realproj.main(["--data", str(tmp_path / "none")]) == 2
    assert "not available" in capsys.readouterr().err
    data = _data(tmp_path)
    assert realproj.main(["--data", str(data), "--only", "nosuch", "--workdir", str(tmp_path / "w")]) == 2
    assert "unknown project" in capsys.readouterr().err


def _fake_loop(tmp_path: Path, monkeypatch, rcs: dict[str, int]) -> LoopRun:
    """run_loop with every command faked: `rcs` gives a step's exit code (default 0); link steps
    write links.json unless their exit code is 2."""
    project = _project(tmp_path)
    work = tmp_path / "work"
    project_dir = project.project_dir(work)

    def fake_step(name, cmd, pd, log, timeout_s):
        rc = rcs.get(name, 0)
        if name in ("link", "link2") and rc != 2:
            (pd / "target" / "schema_link").mkdir(parents=True, exist_ok=True)
            (pd / "target" / "schema_link" / "links.json").write_text('{"links": []}')
        err = "error: source.p.s.t was not profiled: relation not found\n" if rc else ""
        out = "new join: a -> b\n" if name == "check" and rc == 1 else ""
        return StepResult(name, " ".join(cmd), rc, 1.0, str(log), stdout=out, stderr=err)

    def fake_prepare(*args, **kwargs) -> None:
        project_dir.mkdir(parents=True, exist_ok=True)
        project.bench_dir(work).mkdir(parents=True, exist_ok=True)

    monkeypatch.setattr(loop, "prepare", fake_prepare)
    monkeypatch.setattr(loop, "run_step", fake_step)
    monkeypatch.setattr(loop, "package_entry", lambda pd, repo: ("/repo", True))
    monkeypatch.setattr(loop, "test_results", lambda target: WrittenTests({"pass": 2}))
    return loop.run_loop(project, work, tmp_path)


def test_the_loop_goes_on_after_a_link_that_wrote_its_links(tmp_path: Path, monkeypatch) -> None:
    run = _fake_loop(tmp_path, monkeypatch, {"link": 1, "write": 2, "check": 1})
    assert run.error is None and list(run.steps) == list(loop.TOOL_STEPS)
    assert run.links1 is not None and run.links1.exists() and run.links2 is not None
    assert run.complaints[0].startswith("`dbt-schema-link link --profiles-dir .` exit 1 (links.json written): "
                                        "error: source.p.s.t was not profiled")
    assert run.complaints[1].startswith("`dbt-schema-link write --profiles-dir .` exit 2: error:")
    assert run.check_green is False and run.check_lines == ["new join: a -> b"]
    assert run.tests is not None and run.tests.count("pass") == 2


def test_the_loop_stops_where_link_wrote_nothing(tmp_path: Path, monkeypatch) -> None:
    run = _fake_loop(tmp_path, monkeypatch, {"link": 2})
    assert run.failed_step == "link" and list(run.steps) == ["init", "link"] and run.links1 is None
    assert "exit 2" in run.error
    later = _fake_loop(tmp_path / "b", monkeypatch, {"index": 1})
    assert later.failed_step == "index" and later.check_green is True and "index" in later.steps
