"""`dbt-schema-link profile` end to end on the example shop project, on DuckDB and PostgreSQL."""

from __future__ import annotations

import json

import pytest

from dbt_schema_link.discovery.types import TypeFamily, family_of

pytestmark = pytest.mark.dbt


def _profiles(project) -> dict:
    res = project.cli("profile", *project.project_args(), "--json")
    data = json.loads(res.stdout)
    assert data["format"] == "dbt_schema_link/profile_cache"
    return {uid: entry["profile"] for uid, entry in data["relations"].items()}


def _shape(profiles: dict) -> dict:
    """What must be identical across warehouses: relations, column names, which are skipped/flags."""
    return {
        uid: sorted((c["name"].lower(), c["skipped"] is None, c["flag_words"]) for c in prof["columns"])
        for uid, prof in profiles.items()
    }


def _signed_keys(profiles: dict) -> dict:
    """Integer and text columns (by the warehouse's type) and whether they have a signature. Other
    columns' value sketches follow the type each warehouse reports (DuckDB's sum of a decimal is
    DECIMAL(38,2), PostgreSQL's an unconstrained numeric), so they may differ."""
    keys = {TypeFamily.INTEGER, TypeFamily.TEXT}
    return {(uid, c["name"].lower(), family_of(c["data_type"])): c["minhash"] is not None
            for uid, prof in profiles.items() for c in prof["columns"] if family_of(c["data_type"]) in keys}


def assert_same_profiles(duck: dict, other: dict, engine_defined: frozenset = frozenset()) -> int:
    """The profile of every relation of the example, field by field, as DuckDB measured it and
    as another engine did: the same relations, columns, keys and counts; distinct counts equal
    where both count exactly (a HyperLogLog estimate within its error); lengths and numeric
    ranges equal where both measure them; every value listed alike where both list all; a value
    sketch on the same integer and text columns. Returns how many columns were compared."""
    assert sorted(duck) == sorted(other)
    compared = 0
    for uid, d in duck.items():
        o = other[uid]
        assert list(d) == list(o), uid
        assert (d["sampled"], d["sample_percent"]) == (o["sampled"], o["sample_percent"]), uid
        if not d["sampled"]:
            assert d["row_count"] == o["row_count"], uid
        d_cols = {c["name"].lower(): c for c in d["columns"]}
        o_cols = {c["name"].lower(): c for c in o["columns"]}
        assert sorted(d_cols) == sorted(o_cols), uid
        for name, dc in d_cols.items():
            oc, where = o_cols[name], (uid, name)
            assert list(dc) == list(oc), where
            assert (dc["skipped"] is None) == (oc["skipped"] is None), where
            assert dc["flag_words"] == oc["flag_words"], where
            assert dc["non_null"] == oc["non_null"], where
            if (uid, name) in engine_defined:
                continue
            if dc["distinct_approx"] or oc["distinct_approx"]:
                assert abs(dc["distinct"] - oc["distinct"]) <= max(2, 0.08 * oc["distinct"]), where
            else:
                assert dc["distinct"] == oc["distinct"], where
            for field in ("min_len", "max_len"):
                if dc[field] is not None and oc[field] is not None:
                    assert dc[field] == oc[field], (where, field)
            for field in ("min_value", "max_value"):
                if dc[field] is not None and oc[field] is not None:
                    assert dc[field] == pytest.approx(oc[field]), (where, field)
            if family_of(dc["data_type"]) in (TypeFamily.INTEGER, TypeFamily.TEXT) \
                    and family_of(dc["data_type"]) == family_of(oc["data_type"]):
                assert (dc["minhash"] is None) == (oc["minhash"] is None), where
            for c in (dc, oc):
                assert (c["minhash"] is None) == (c["minhash_format"] is None), where
            if dc["top_values"] is not None and oc["top_values"] is not None \
                    and len(dc["top_values"]) == dc["distinct"] == len(oc["top_values"]):
                # every value listed (beyond that, ties at the cut are broken differently)
                assert set(dc["top_values"]) == set(oc["top_values"]), where
            compared += 1
    return compared


@pytest.fixture(scope="module")
def duck_profiles(shop_duckdb):
    return _profiles(shop_duckdb)


@pytest.fixture(scope="module")
def pg_profiles(shop_postgres):
    return _profiles(shop_postgres)


def test_profiles_every_relation_of_the_example(duck_profiles, shop_duckdb):
    manifest = json.loads((shop_duckdb.path / "target" / "manifest.json").read_text())
    expected = {uid for uid, n in manifest["nodes"].items()
                if n["resource_type"] in ("model", "seed", "snapshot") and n["package_name"] == "shop"}
    assert set(duck_profiles) == expected
    orders = duck_profiles["model.shop.stg_orders"]
    cols = {c["name"]: c for c in orders["columns"]}
    assert orders["row_count"] > 1000
    assert len(cols["order_id"]["minhash"].split(",")) == 128
    assert cols["status"]["top_values"] and set(cols["status"]["top_values"]) <= {
        "pending", "open", "shipped", "closed", "cancelled"}
    customers = {c["name"]: c for c in duck_profiles["model.shop.stg_customers"]["columns"]}
    assert customers["is_active"]["flag_words"] is True
    assert customers["customer_id"]["flag_words"] is False


def test_second_run_uses_the_cache(shop_duckdb, duck_profiles):
    res = shop_duckdb.cli("profile", *shop_duckdb.project_args())
    assert "profiling 0 relations" in res.stderr


def test_duckdb_and_postgres_profiles_have_the_same_structure(duck_profiles, pg_profiles):
    assert _shape(duck_profiles) == _shape(pg_profiles)
    duck_keys, pg_keys = _signed_keys(duck_profiles), _signed_keys(pg_profiles)
    both = duck_keys.keys() & pg_keys.keys()
    assert len(both) > 100 and all(duck_keys[c] == pg_keys[c] for c in both)
    assert assert_same_profiles(duck_profiles, pg_profiles) > 100


def test_numeric_ranges_agree_across_warehouses(duck_profiles, pg_profiles):
    """min_value / max_value: the same numbers on both, for the columns both call numeric, and
    never on text columns."""
    compared = 0
    for uid, duck in duck_profiles.items():
        pg = {c["name"].lower(): c for c in pg_profiles[uid]["columns"]}
        for dc in duck["columns"]:
            pc = pg[dc["name"].lower()]
            if family_of(dc["data_type"]) is TypeFamily.TEXT:
                assert dc["min_value"] is None and dc["max_value"] is None, (uid, dc["name"])
            if dc["min_value"] is None or pc["min_value"] is None:
                continue
            assert dc["min_value"] <= dc["max_value"], (uid, dc["name"])
            assert dc["min_value"] == pytest.approx(pc["min_value"]), (uid, dc["name"])
            assert dc["max_value"] == pytest.approx(pc["max_value"]), (uid, dc["name"])
            compared += 1
    assert compared > 50
    orders = {c["name"]: c for c in duck_profiles["model.shop.stg_orders"]["columns"]}
    assert orders["order_id"]["min_value"] >= 1 and orders["order_id"]["max_value"] >= orders["order_id"]["distinct"]


def test_missing_artifacts_give_one_line_error(tmp_path):
    import subprocess
    import sys

    (tmp_path / "dbt_project.yml").write_text("name: x\nversion: '1'\nprofile: x\n")
    res = subprocess.run([sys.executable, "-m", "dbt_schema_link", "profile", "--project-dir", str(tmp_path)],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr.strip().count("\n") == 0
    # first what blocks profiling at all: the dbt package (tests/test_init.py walks the rest)
    assert "dbt_schema_link is not in packages.yml" in res.stderr and "dbt-schema-link init" in res.stderr
    assert "Traceback" not in res.stderr
