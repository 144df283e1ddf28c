"""`dbt-schema-link link` then `write` through the CLI on a copy of the built example project."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import BuiltProject

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def shop_copy(shop_duckdb, tmp_path_factory) -> BuiltProject:
    dest = tmp_path_factory.mktemp("shop_write") / "shop"
    shutil.copytree(shop_duckdb.path, dest, symlinks=True)
    project = BuiltProject(dest, shop_duckdb.target, shop_duckdb.env)
    project.cli("link", *project.project_args(), "--quiet")
    return project


def _yaml_bytes(project: BuiltProject) -> dict:
    return {p: p.read_bytes() for p in sorted((project.path / "models").rglob("*.yml"))}


def test_check_dry_run_write_and_idempotence(shop_copy):
    before = _yaml_bytes(shop_copy)
    check = shop_copy.cli("write", *shop_copy.project_args(), "--check", check=False)
    assert check.returncode == 1, check.stderr
    dry = shop_copy.cli("write", *shop_copy.project_args(), "--dry-run")
    assert "+          - relationships:" in dry.stdout and "to: ref('stg_customers')" in dry.stdout
    assert _yaml_bytes(shop_copy) == before, "--dry-run must not write"

    shop_copy.cli("write", *shop_copy.project_args())
    after = _yaml_bytes(shop_copy)
    assert after != before
    assert shop_copy.cli("write", *shop_copy.project_args(), "--check").returncode == 0
    shop_copy.cli("write", *shop_copy.project_args())
    assert _yaml_bytes(shop_copy) == after, "a second write must change no byte"

    shop_copy.dbt("build", "-s", "tag:schema_link")


def test_write_without_links_is_one_line_error(shop_duckdb, tmp_path):
    dest = tmp_path / "shop"
    shutil.copytree(shop_duckdb.path, dest, symlinks=True, ignore=shutil.ignore_patterns("schema_link"))
    project = BuiltProject(dest, shop_duckdb.target, shop_duckdb.env)
    res = project.cli("write", *project.project_args(), check=False)
    assert res.returncode == 2
    assert res.stderr.strip().startswith("error:") and "dbt-schema-link link" in res.stderr
    assert "Traceback" not in res.stderr
