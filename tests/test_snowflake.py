"""The example shop project on Snowflake's SQL, executed: dbt-snowflake against fakesnow's server
(a local Snowflake emulator on DuckDB, tests/support/snowflake.py). Seeds load through dbt,
`profile` runs the package's snowflake__ macros, `link` verifies containment exactly through the
emulator and finds the DuckDB golden's joins, `write` + `dbt test` pass.

One emulator and one build of the example per module. What the emulator does not prove (and the
workarounds in examples/shop/macros/snowflake_emulator.sql): docs/snowflake_emulator.md."""

from __future__ import annotations

import json
import sys
from typing import Iterator

import pytest

from dbt_schema_link.discovery.types import TypeFamily, family_of
from dbt_schema_link.profiling.options import ProfileOptions
from tests.conftest import IN_CI, REPO, SHOP_TEST_SCALE, BuiltProject, base_env, copy_project
from tests.support.snowflake import FakesnowServer, SnowflakeUnavailable, fakesnow_server
from tests.test_example_profile import _shape
from tests.test_spark import check_equal_to_the_duckdb_golden, check_ground_truth_verified_exactly, check_write_then_dbt_test

pytestmark = [pytest.mark.snowflake, pytest.mark.dbt, pytest.mark.slow]

#: DuckDB's type of a sum of integers, which the emulator reports as FLOAT (Snowflake:
#: NUMBER(38,0)); docs/snowflake_emulator.md.
EMULATOR_FLOAT = "HUGEINT"


@pytest.fixture(scope="module")
def sf_server() -> Iterator[FakesnowServer]:
    try:
        with fakesnow_server() as server:
            yield server
    except SnowflakeUnavailable as exc:
        if IN_CI:
            pytest.fail(f"the Snowflake emulator is required in CI: {exc}")
        pytest.skip(f"the Snowflake emulator is not available: {exc}")


@pytest.fixture(scope="module")
def shop_snowflake(tmp_path_factory, sf_server) -> BuiltProject:
    import subprocess

    root = tmp_path_factory.mktemp("shop_snowflake")
    path = copy_project(REPO / "examples" / "shop", root / "shop")
    subprocess.run([sys.executable, str(path / "generate_seeds.py"), "--out", str(path / "seeds"),
                    "--scale", SHOP_TEST_SCALE], check=True, capture_output=True)
    project = BuiltProject(path, "snowflake", base_env(**sf_server.env()))
    project.dbt("deps")
    project.dbt("build")  # seeds, models and the example's own tests
    project.dbt("docs", "generate")
    return project


@pytest.fixture(scope="module")
def sf_profiles(shop_snowflake) -> dict:
    data = json.loads(shop_snowflake.cli("profile", *shop_snowflake.project_args(), "--json").stdout)
    assert data["format"] == "dbt_schema_link/profile_cache" and data["adapter"] == "snowflake"
    return {uid: entry["profile"] for uid, entry in data["relations"].items()}


@pytest.fixture(scope="module")
def sf_links(shop_snowflake, sf_profiles) -> dict:
    shop_snowflake.cli("link", *shop_snowflake.project_args(), "--quiet")
    return json.loads((shop_snowflake.path / "target" / "schema_link" / "links.json").read_text())


def test_catalog_has_every_relation_with_snowflake_types(shop_snowflake):
    catalog = json.loads((shop_snowflake.path / "target" / "catalog.json").read_text())
    manifest = json.loads((shop_snowflake.path / "target" / "manifest.json").read_text())
    expected = {uid for uid, n in manifest["nodes"].items()
                if n["resource_type"] in ("model", "seed") and n["package_name"] == "shop"}
    assert set(catalog["nodes"]) == expected  # views included (see snowflake_emulator.sql)
    orders = catalog["nodes"]["model.shop.stg_orders"]
    assert orders["metadata"]["type"] == "VIEW" and orders["metadata"]["name"] == "STG_ORDERS"
    types = {name: col["type"] for name, col in orders["columns"].items()}
    assert types["ORDER_ID"] == "NUMBER" and types["STATUS"] == "TEXT" and types["ORDERED_AT"] == "TIMESTAMP_NTZ"


@pytest.fixture(scope="module")
def duck_profiles(shop_duckdb) -> dict:
    duck = json.loads(shop_duckdb.cli("profile", *shop_duckdb.project_args(), "--json").stdout)
    return {uid: entry["profile"] for uid, entry in duck["relations"].items()}


def test_profile_on_snowflake_has_the_duckdb_structure(sf_profiles, duck_profiles):
    assert _shape(sf_profiles) == _shape(duck_profiles)
    for uid, dp in duck_profiles.items():
        sp = sf_profiles[uid]
        assert sp["row_count"] == dp["row_count"], uid
        assert sp["sampled"] is False and sp["relation"] == sp["relation"].upper(), uid
        for dc, sc in zip(sorted(dp["columns"], key=lambda c: c["name"]),
                          sorted(sp["columns"], key=lambda c: c["name"].lower())):
            key = (uid, dc["name"])
            assert sc["non_null"] == dc["non_null"], key
            # a sketch wherever DuckDB has one; the wide statement (default__, which Snowflake
            # uses) also sketches (and measures) timestamps, floats and booleans, which DuckDB
            # only counts
            assert dc["minhash"] is None or sc["minhash"] is not None, key
            assert dc["min_len"] is None or sc["min_len"] is not None, key
            if family_of(dc["data_type"]) in (TypeFamily.INTEGER, TypeFamily.TEXT) and dc["data_type"] != EMULATOR_FLOAT:
                assert sc["minhash"] is not None and dc["minhash"] is not None, key
                # the same canonical text on both
                assert (sc["min_len"], sc["max_len"]) == (dc["min_len"], dc["max_len"]), key
            assert sc["distinct_approx"] is True, key  # approx_count_distinct on Snowflake
            # both are HyperLogLog estimates (of differently formatted text for timestamps)
            assert abs(sc["distinct"] - dc["distinct"]) <= max(2, 0.08 * dc["distinct"]), (key, sc["distinct"], dc["distinct"])
            if dc["top_values"] is not None and len(dc["top_values"]) == dc["distinct"] \
                    and sc["distinct"] <= ProfileOptions().top_max_distinct:
                # every value listed (beyond that, ties at the cut are broken differently; an
                # estimated distinct count past top_max_distinct lists none)
                assert sc["top_values"] is not None and set(sc["top_values"]) == set(dc["top_values"]), key
    orders = {c["name"]: c for c in sf_profiles["model.shop.stg_orders"]["columns"]}
    assert len(orders["ORDER_ID"]["minhash"].split(",")) == 128
    assert set(orders["STATUS"]["top_values"]) == {"pending", "open", "shipped", "closed", "cancelled"}
    customers = {c["name"]: c for c in sf_profiles["model.shop.stg_customers"]["columns"]}
    assert customers["IS_ACTIVE"]["flag_words"] is True and customers["CUSTOMER_ID"]["flag_words"] is False


def test_link_on_snowflake_matches_ground_truth_with_exact_containment(sf_links):
    check_ground_truth_verified_exactly(sf_links, "the Snowflake emulator")


def test_snowflake_links_equal_the_duckdb_golden(sf_links):
    check_equal_to_the_duckdb_golden(sf_links)


def test_write_then_dbt_test_passes_on_snowflake(shop_snowflake, sf_links, tmp_path):
    check_write_then_dbt_test(shop_snowflake, tmp_path / "shop")


def test_key_types_fall_in_the_duckdb_families(sf_profiles, duck_profiles):
    """Integer and text columns on DuckDB are integer and text on Snowflake too (NUMBER(38,0),
    VARCHAR): what makes a column a key candidate must not depend on the warehouse."""
    compared, differ = 0, []
    for uid, profile in duck_profiles.items():
        sf_cols = {c["name"].lower(): c for c in sf_profiles[uid]["columns"]}
        for dc in profile["columns"]:
            duck_family = family_of(dc["data_type"])
            if duck_family not in (TypeFamily.INTEGER, TypeFamily.TEXT) or dc["data_type"] == EMULATOR_FLOAT:
                continue
            sc = sf_cols[dc["name"]]
            compared += 1
            if family_of(sc["data_type"]) != duck_family:
                differ.append((uid, dc["name"], dc["data_type"], sc["data_type"]))
    assert compared > 100 and not differ, differ[:10]
