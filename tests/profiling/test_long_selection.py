"""Selections longer than one command-line entry may hold (Linux: 128 KiB per argv entry), on a
real dbt + DuckDB project: 240 sources whose unique_ids take ~150 KB together. Profiling all of
them, profiling a subset (merged into the cache, not replacing it) and verifying hundreds of
containment pairs between them all reach dbt without "Argument list too long"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dbt_schema_link.artifacts.records import Column, ColumnRef, Relation, ResourceType
from dbt_schema_link.dbt_runner import MAX_ARGS_BYTES, DbtInvocation, args_size
from dbt_schema_link.profiling.containment import pair_calls, warehouse_verifier
from dbt_schema_link.profiling.profiler import selection_args
from tests.conftest import DBT, REPO, base_env

#: Linux's MAX_ARG_STRLEN: what one argv entry may hold.
ONE_ARGUMENT = 128 * 1024
PROJECT = "long_selection"
TABLES = 240
PAD = "x" * 600  # long identifiers: few tables (fast), many bytes


def _name(i: int) -> str:
    return f"t{i:04d}_{PAD}"


def _uid(i: int) -> str:
    return f"source.{PROJECT}.raw.{_name(i)}"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    import duckdb

    root = tmp_path_factory.mktemp("long_selection")
    con = duckdb.connect(str(root / "wh.duckdb"))
    con.execute("create schema raw")
    for i in range(TABLES):
        con.execute(f'create table raw."{_name(i)}" as select * from (values ({i}), ({i + 1})) v(id)')
    con.close()
    dump = lambda p, d: p.write_text(yaml.safe_dump(d, sort_keys=False), encoding="utf-8")  # noqa: E731
    dump(root / "dbt_project.yml", {"name": PROJECT, "version": "1.0.0", "config-version": 2, "profile": PROJECT})
    dump(root / "profiles.yml", {PROJECT: {"target": "dev", "outputs": {"dev": {
        "type": "duckdb", "path": str(root / "wh.duckdb"), "threads": 1}}}})
    dump(root / "packages.yml", {"packages": [{"local": str(REPO)}]})
    (root / "models").mkdir()
    dump(root / "models" / "sources.yml", {"version": 2, "sources": [
        {"name": "raw", "schema": "raw", "tables": [{"name": _name(i)} for i in range(TABLES)]}]})
    for args in (["deps"], ["docs", "generate"]):
        res = subprocess.run([DBT, *args, "--project-dir", str(root), "--profiles-dir", str(root)],
                             capture_output=True, text=True, env=base_env(), cwd=root)
        assert res.returncode == 0, res.stdout[-3000:]
    return root


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dbt_schema_link", *args, "--project-dir", str(root)],
                          capture_output=True, text=True, env=base_env(), cwd=root)


def _cached(root: Path) -> dict:
    return json.loads((root / "target" / "schema_link" / "profiles.json").read_text(encoding="utf-8"))["relations"]


def test_profile_and_subset_merge_past_one_argument(project):
    assert args_size({"select": [_uid(i) for i in range(TABLES)]}) > ONE_ARGUMENT  # the case this test is for
    res = _cli(project, "profile", "--k", "16")
    assert res.returncode == 0, res.stderr[-3000:]
    assert set(_cached(project)) == {_uid(i) for i in range(TABLES)}

    subset = [_name(i) for i in range(0, TABLES, 7)]
    res = _cli(project, "profile", "--k", "16", "--refresh", "--select", *subset)
    assert res.returncode == 0, res.stderr[-3000:]
    assert f"profiling {len(subset)} relations" in res.stderr
    cached = _cached(project)
    assert set(cached) == {_uid(i) for i in range(TABLES)}, "a subset run dropped profiles outside its selection"
    assert cached[_uid(7)]["profile"]["row_count"] == 2


def test_containment_pairs_past_one_argument(project):
    pairs = [(ColumnRef(_uid(i), "id"), ColumnRef(_uid(i + 1), "id")) for i in range(TABLES - 1)]
    calls = pair_calls(pairs)
    assert args_size({"pairs": [{"child": c.relation, "child_column": c.column, "parent": p.relation,
                                 "parent_column": p.column} for c, p in pairs[:500]]}) > ONE_ARGUMENT
    assert len(calls) > 2 and sum(len(c) for c in calls) == len(pairs)
    results = warehouse_verifier(DbtInvocation(project_dir=project))(pairs)
    assert len(results) == len(pairs)
    # table i holds {i, i+1}, table i+1 holds {i+1, i+2}: half of each child's values are contained
    assert {(r.child_distinct, r.matched) for r in results.values()} == {(2, 1)}


def _relation(i: int) -> Relation:
    return Relation(unique_id=_uid(i), resource_type=ResourceType.SOURCE, name=_name(i), package_name=PROJECT,
                    database="wh", schema="raw", identifier=_name(i), relation_name=None,
                    columns={"id": Column("id", "INTEGER")})


@pytest.mark.parametrize("chosen", [range(TABLES), range(0, TABLES, 2), range(0, 3), range(3, TABLES)])
def test_selection_args_select_exactly_and_fit(chosen):
    universe = [_relation(i) for i in range(TABLES)]
    wanted = [universe[i] for i in chosen]
    runs = selection_args(wanted, universe, {"k": 16})
    names = {r.unique_id for r in universe}
    covered: list[str] = []
    for args, relations in runs:
        assert args_size(args) <= MAX_ARGS_BYTES
        if args.get("select") is not None:
            assert args["select"] == [r.unique_id for r in relations]
            covered += args["select"]
        else:
            covered += sorted(names - set(args["exclude"]))
    assert sorted(covered) == sorted(r.unique_id for r in wanted)
    assert len(runs) <= -(-args_size({"select": [r.unique_id for r in wanted]}) // (MAX_ARGS_BYTES // 2)) + 1
