"""The example shop project on Apache Spark (dbt-spark, `method: session`), end to end: seeds
load through dbt, `profile` reads each relation once, `link` verifies containment exactly in
Spark and finds the same planted joins as DuckDB (no trap), `write` + `dbt test` pass.

One Spark warehouse (and Derby metastore) per module; see tests/support/spark.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dbt_schema_link.dbt_runner import DbtInvocation
from dbt_schema_link.discovery.bands import band_tables, hits_by_partition
from dbt_schema_link.profiling.band_join import warehouse_band_join
from tests.conftest import IN_CI, REPO, SHOP_TEST_SCALE, BuiltProject, base_env, copy_project
from tests.support.bands import ensemble_case, join_like_the_macro, tightest
from tests.support.spark import SparkUnavailable, check_spark, run_in_one_session, spark_env
from tests.test_example_links import _check_against_ground_truth, _col
from tests.test_example_profile import _shape, assert_same_profiles

pytestmark = [pytest.mark.spark, pytest.mark.dbt, pytest.mark.slow]

GOLDEN_LINKS = REPO / "tests" / "golden" / "shop_links.json"
SENTINEL = "@@schema_link@@ "
#: Columns whose values the engine defines: dbt.datediff(..., 'hour') counts hour boundaries
#: crossed on DuckDB and whole hours elapsed on Spark.
ENGINE_DEFINED = {("model.shop.fct_support_tickets", "hours_to_close")}
#: Marks a profiling statement's physical plan: the details of the node that explodes the
#: columns into (column, value) rows.
PROFILE_NODE = "Arguments: stack("

def _require_spark() -> None:
    try:
        check_spark()
    except SparkUnavailable as exc:
        if IN_CI:
            pytest.fail(f"Spark is required in CI: {exc}")
        pytest.skip(f"Spark not available: {exc}")


@pytest.fixture(scope="module")
def shop_spark(tmp_path_factory) -> BuiltProject:
    _require_spark()
    root = tmp_path_factory.mktemp("shop_spark")
    env = base_env(**spark_env(root / "spark"))
    path = copy_project(REPO / "examples" / "shop", root / "shop")
    subprocess.run([sys.executable, str(path / "generate_seeds.py"), "--out", str(path / "seeds"),
                    "--scale", SHOP_TEST_SCALE], check=True, capture_output=True)
    # Spark's event log records each statement's physical plan: the plan check reads it.
    with (path / "profiles.yml").open("a") as f:
        f.write(f'        spark.eventLog.enabled: "true"\n        spark.eventLog.dir: "{(root / "events").as_uri()}"\n'
                '        spark.eventLog.compress: "false"\n        spark.eventLog.rolling.enabled: "false"\n')
    (root / "events").mkdir()
    project = BuiltProject(path, "spark", env)
    # One session for the whole build; the CLI's dbt runs start their own later.
    run_in_one_session(path, "spark", [["deps"], ["seed"], ["run"], ["docs", "generate"]], env)
    return project


def _event_logs(root: Path) -> set[Path]:
    return set((root / "events").iterdir())


@pytest.fixture(scope="module")
def spark_profile_run(shop_spark) -> tuple[dict, list[str]]:
    """`dbt-schema-link profile --json` on Spark: its profiles and the physical plans of the
    statements that session ran."""
    before = _event_logs(shop_spark.path.parent)
    res = shop_spark.cli("profile", *shop_spark.project_args(), "--json")
    plans = []
    for log in sorted(_event_logs(shop_spark.path.parent) - before):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event.get("Event", "").endswith("SparkListenerSQLExecutionStart"):
                plans.append(event.get("physicalPlanDescription", ""))
    return json.loads(res.stdout), plans


@pytest.fixture(scope="module")
def spark_profiles(spark_profile_run) -> dict:
    data = spark_profile_run[0]
    assert data["format"] == "dbt_schema_link/profile_cache" and data["adapter"] == "spark"
    return {uid: entry["profile"] for uid, entry in data["relations"].items()}


@pytest.fixture(scope="module")
def spark_links(shop_spark, spark_profiles) -> dict:
    shop_spark.cli("link", *shop_spark.project_args(), "--quiet")
    return json.loads((shop_spark.path / "target" / "schema_link" / "links.json").read_text())


def _joins(links: dict) -> set[tuple[str, str, str]]:
    return {(_col(l["child"]), _col(l["parent"]), l["kind"]) for l in links["links"] if l["kind"] in ("inferred", "declared")}


def _scans(plan: str) -> list[str]:
    """Scan nodes of a physical plan's tree (formatted explain: the tree, then node details)."""
    tree = plan.split("== Physical Plan ==", 1)[-1].split("\n\n(1)", 1)[0]
    return re.findall(r"^[\s:+\-*()0-9]*(?:FileScan|Scan) .*$", tree, flags=re.M)


def test_profiling_statement_reads_each_relation_once(spark_profile_run, spark_profiles):
    """In the plans Spark recorded during `profile`, each relation's profiling statement has
    exactly one scan of the data (every column, value and sketch come from that one read)."""
    profiling = [plan for plan in spark_profile_run[1] if PROFILE_NODE in plan]
    assert len(profiling) == len(spark_profiles), (len(profiling), len(spark_profiles))
    for plan in profiling:
        assert len(_scans(plan)) == 1, f"expected one scan, the plan has {len(_scans(plan))}:\n{plan}"


def test_profile_on_spark_has_the_duckdb_structure(spark_profiles, shop_duckdb):
    duck = json.loads(shop_duckdb.cli("profile", *shop_duckdb.project_args(), "--json").stdout)
    duck_profiles = {uid: entry["profile"] for uid, entry in duck["relations"].items()}
    assert _shape(spark_profiles) == _shape(duck_profiles)
    assert assert_same_profiles(duck_profiles, spark_profiles, frozenset(ENGINE_DEFINED)) > 100
    for uid, dp in duck_profiles.items():
        sp = spark_profiles[uid]
        assert sp["row_count"] == dp["row_count"], uid
        for dc, sc in zip(sorted(dp["columns"], key=lambda c: c["name"]),
                          sorted(sp["columns"], key=lambda c: c["name"].lower())):
            assert sc["non_null"] == dc["non_null"], (uid, dc["name"])
            assert (sc["minhash"] is None) == (dc["minhash"] is None), (uid, dc["name"])
            if not dc["distinct_approx"] and not sc["distinct_approx"] and (uid, dc["name"]) not in ENGINE_DEFINED:
                assert sc["distinct"] == dc["distinct"], (uid, dc["name"])
            if dc["top_values"] is not None and len(dc["top_values"]) == dc["distinct"] \
                    and (uid, dc["name"]) not in ENGINE_DEFINED:
                # every value listed (beyond that, ties at the cut are broken differently; an
                # engine-defined column holds other values)
                assert sc["top_values"] is not None and set(sc["top_values"]) == set(dc["top_values"]), (uid, dc["name"])
    orders = {c["name"]: c for c in spark_profiles["model.shop.stg_orders"]["columns"]}
    assert len(orders["order_id"]["minhash"].split(",")) == 128
    assert set(orders["status"]["top_values"]) <= {"pending", "open", "shipped", "closed", "cancelled"}


def check_ground_truth_verified_exactly(links: dict, engine: str) -> None:
    """The planted joins and no trap, with containment checked exactly in the warehouse."""
    _check_against_ground_truth(links)
    verified = [l for l in links["links"] if l["kind"] == "inferred"
                and any(e["signal"] == "exact_containment" and "verified in the warehouse" in e["detail"] for e in l["evidence"])]
    assert len(verified) >= 5, f"link must check containment exactly in {engine}"
    assert links["counts"]["verified_pairs"] > 0


def check_equal_to_the_duckdb_golden(links: dict) -> None:
    golden = json.loads(GOLDEN_LINKS.read_text())
    assert _joins(links) == _joins(golden)
    assert links["counts"]["rejected_traps"] == golden["counts"]["rejected_traps"]


def test_link_on_spark_matches_ground_truth_with_exact_containment(spark_links):
    check_ground_truth_verified_exactly(spark_links, "Spark")


def test_spark_links_equal_the_duckdb_golden(spark_links):
    check_equal_to_the_duckdb_golden(spark_links)


def check_write_then_dbt_test(built: BuiltProject, dest: Path) -> None:
    """`write` into a copy of a linked project, then its schema_link tests all pass in dbt."""
    shutil.copytree(built.path, dest, symlinks=True)
    project = BuiltProject(dest, built.target, built.env)
    project.cli("write", *project.project_args())
    res = project.dbt("test", "-s", "tag:schema_link")
    done = re.search(r"PASS=(\d+) WARN=(\d+) ERROR=(\d+) SKIP=(\d+) NO-OP=(\d+) TOTAL=(\d+)", res.stdout)
    assert done, res.stdout[-2000:]
    passed, total = int(done.group(1)), int(done.group(6))
    assert total >= 5 and passed == total, res.stdout[-3000:]


def test_write_then_dbt_test_passes_on_spark(shop_spark, spark_links, tmp_path):
    check_write_then_dbt_test(shop_spark, tmp_path / "shop")


def test_value_lookups_in_spark_answer_as_the_index_does(shop_spark, tmp_path, monkeypatch):
    """`schema_link_band_candidates` on Spark (`insert overwrite directory`, CSV read as
    relations): every lookup of the case gets the index's own answer, capped buckets and the stop
    after `cap` usable parents included."""
    for key, value in shop_spark.env.items():
        monkeypatch.setenv(key, value)
    index, parents, lookups, widths = ensemble_case()
    tables = band_tables(index, parents, lookups, 2, 3, widths)
    inv = DbtInvocation(project_dir=shop_spark.path, profiles_dir=shop_spark.path, target=shop_spark.target)
    hits = warehouse_band_join(inv, tmp_path / "work")(tables)
    assert sorted(map(tuple, hits.tolist())) == sorted(map(tuple, join_like_the_macro(tables).tolist()))
    python = [index.query_partitions(look.signature, look.size, look.min_upper, 2) for look in lookups]
    assert tightest(hits_by_partition(hits, len(lookups)), lookups, 3, widths) == tightest(python, lookups, 3, widths)
    assert len(hits) > 10
