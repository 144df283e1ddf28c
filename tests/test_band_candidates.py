"""Value lookups in the engine on real dbt + DuckDB (`schema_link_band_candidates`): the macro's
join answers every lookup as the Python index does, capped buckets included, and `link` with
`engine_lookup_min_columns` finds the same links as `link` without it. Spark: tests/test_spark.py."""

from __future__ import annotations

import json

import pytest

from dbt_schema_link.dbt_runner import DbtInvocation
from dbt_schema_link.discovery.bands import band_tables, hits_by_partition
from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.band_join import read_int_csv, warehouse_band_join, write_int_csv
from tests.conftest import copy_built
from tests.support.bands import ensemble_case, join_like_the_macro, tightest

pytestmark = pytest.mark.dbt


def _links(project, *args: str) -> tuple[dict, str]:
    res = project.cli("link", *project.project_args(), *args)
    data = json.loads((project.path / "target" / "schema_link" / "links.json").read_text())
    return data, res.stdout + res.stderr


@pytest.fixture(scope="module")
def ensemble():
    return ensemble_case()


@pytest.fixture
def in_shop_env(shop_duckdb, monkeypatch):
    for key, value in shop_duckdb.env.items():
        if key.startswith("SHOP_"):
            monkeypatch.setenv(key, value)
    return DbtInvocation(project_dir=shop_duckdb.path, profiles_dir=shop_duckdb.path, target=shop_duckdb.target)


@pytest.mark.parametrize("max_bucket, cap", [(None, 0), (2, 0), (2, 3)])
def test_the_macro_answers_each_lookup_as_the_index_does(ensemble, in_shop_env, tmp_path, max_bucket, cap):
    index, parents, lookups, widths = ensemble
    tables = band_tables(index, parents, lookups, max_bucket, cap, widths)
    hits = warehouse_band_join(in_shop_env, tmp_path / "work")(tables)
    assert sorted(map(tuple, hits.tolist())) == sorted(map(tuple, join_like_the_macro(tables).tolist()))
    python = [[part for part in index.query_partitions(look.signature, look.size, look.min_upper, max_bucket) if part]
              for look in lookups]
    if cap:
        assert tightest(hits_by_partition(hits, len(lookups)), lookups, cap, widths) == \
            tightest(python, lookups, cap, widths)
    else:
        assert hits_by_partition(hits, len(lookups)) == python
    assert not list((tmp_path / "work").iterdir())  # the exchanged files are removed


def test_link_with_lookups_in_duckdb_finds_the_same_links(shop_duckdb, tmp_path):
    project = copy_built(shop_duckdb, tmp_path / "shop")
    python, _ = _links(project, "--quiet")
    engine, output = _links(project, "--set", "engine_lookup_min_columns=1")
    assert "joining band keys in the engine" in output
    assert engine["links"] == python["links"] and engine["rejected"] == python["rejected"]
    assert engine["counts"]["candidates_by_value"] == python["counts"]["candidates_by_value"] > 0
    assert not list((project.path / "target" / "schema_link").glob("bands-*"))


def test_a_failed_join_is_a_one_line_error(in_shop_env, tmp_path, ensemble):
    index, parents, lookups, widths = ensemble
    tables = band_tables(index, parents, lookups, None)
    broken = type(tables)(tables.parents[:, :3], tables.children, tables.queries, 0)  # two columns short
    with pytest.raises(WarehouseError, match="value lookups in the engine failed"):
        warehouse_band_join(in_shop_env, tmp_path / "work")(broken)


def test_integer_csv_round_trip(tmp_path, monkeypatch):
    import numpy as np

    from dbt_schema_link.profiling import band_join
    rows = np.array([[1, -2, 3], [2**62, 0, -(2**63)], [7, 8, 9]], dtype=np.int64)
    monkeypatch.setattr(band_join, "CSV_CHUNK_ROWS", 2)  # a chunk boundary inside the rows
    write_int_csv(tmp_path / "a.csv", rows)
    assert (tmp_path / "a.csv").read_text().splitlines()[1:] == [f"{2**62},0,{-(2**63)}", "7,8,9"]
    assert (read_int_csv(tmp_path / "a.csv", 3) == rows).all()
    folder = tmp_path / "parts"
    folder.mkdir()
    write_int_csv(folder / "part-0.csv", rows[:1])
    write_int_csv(folder / "part-1.csv", rows[1:])
    (folder / "_SUCCESS").write_text("")
    assert (read_int_csv(folder, 3) == rows).all()
    with pytest.raises(WarehouseError, match="rows of other than 2 fields"):
        read_int_csv(tmp_path / "a.csv", 2)


@pytest.mark.postgres
def test_on_postgres_lookups_in_the_engine_stop_with_a_one_line_error(shop_postgres):
    """PostgreSQL cannot read the client's files: the opt-in fails clearly, naming the fix."""
    res = shop_postgres.cli("link", *shop_postgres.project_args(), "--quiet", "--set", "engine_lookup_min_columns=1",
                            check=False)
    assert res.returncode != 0 and "Traceback" not in res.stdout + res.stderr
    assert "runs on duckdb and spark only" in res.stderr and "engine_lookup_min_columns to 0" in res.stderr
