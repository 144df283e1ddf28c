"""Shared fixtures: real dbt on real DuckDB, and a real PostgreSQL server started here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.pgserver import PostgresUnavailable, postgres_server

REPO = Path(__file__).resolve().parents[1]
#: The dbt executable the tests run: SCHEMA_LINK_DBT points at another dbt version's venv (see
#: tests/writers/multiversion.sh); by default the dbt beside this Python.
DBT = os.environ.get("SCHEMA_LINK_DBT") or str(Path(sys.executable).parent / "dbt")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_collection_modifyitems(config, items):
    """Modules marked `slow` first (a stable sort keeps every other order): under `make test`'s
    two workers (--dist loadscope --no-loadscope-reorder) they start at once beside the short
    modules instead of running last on one worker while the other waits."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@dataclass
class BuiltProject:
    """A copy of a dbt project, built on one adapter, ready for run-operation and the CLI."""

    path: Path
    target: str
    env: dict[str, str]

    def dbt(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [DBT, *args, "--project-dir", str(self.path), "--profiles-dir", str(self.path), "--target", self.target]
        res = subprocess.run(cmd, capture_output=True, text=True, env=self.env, cwd=self.path)
        if check and res.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed:\n{res.stdout[-4000:]}\n{res.stderr[-2000:]}")
        return res

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "dbt_schema_link", *args]
        res = subprocess.run(cmd, capture_output=True, text=True, env=self.env, cwd=self.path)
        if check and res.returncode != 0:
            raise AssertionError(f"dbt-schema-link {' '.join(args)} failed ({res.returncode}):\n{res.stdout[-4000:]}\n{res.stderr[-4000:]}")
        return res

    def project_args(self) -> list[str]:
        return ["--project-dir", str(self.path), "--profiles-dir", str(self.path), "--target", self.target]


def copy_project(src: Path, dest: Path) -> Path:
    """Copy a project that installs this package with `local: ../..`; point it at the repo."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
    packages = dest / "packages.yml"
    if packages.exists():
        packages.write_text(f"packages:\n  - local: {REPO}\n")
    return dest


def copy_built(src: BuiltProject, dest: Path) -> BuiltProject:
    """A copy of a built DuckDB project with its own database file, so that a test may rebuild or
    change data without touching the session's project (logs left behind)."""
    shutil.copytree(src.path, dest, symlinks=True, ignore=shutil.ignore_patterns("logs"))
    database = dest.parent / f"{dest.name}.duckdb"
    shutil.copyfile(src.env["SHOP_DUCKDB_PATH"], database)
    return BuiltProject(dest, src.target, {**src.env, "SHOP_DUCKDB_PATH": str(database)})


def base_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1", "PYTHONPATH": str(REPO)})
    env.update(extra)
    return env


def build_shop(dest: Path, target: str, env: dict[str, str], scale: str) -> BuiltProject:
    path = copy_project(REPO / "examples" / "shop", dest)
    subprocess.run([sys.executable, str(path / "generate_seeds.py"), "--out", str(path / "seeds"), "--scale", scale],
                   check=True, capture_output=True)
    project = BuiltProject(path, target, env)
    project.dbt("deps")
    project.dbt("seed")
    project.dbt("build")
    project.dbt("docs", "generate")
    return project


@pytest.fixture(scope="session")
def pg_server():
    try:
        with postgres_server(log_statements=True) as server:
            yield server
    except PostgresUnavailable as exc:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI: {exc}")
        pytest.skip(f"PostgreSQL not available: {exc}")


#: The example at a scale that keeps the suite fast but still has thousands of rows.
SHOP_TEST_SCALE = os.environ.get("SCHEMA_LINK_SHOP_SCALE", "0.2")


@pytest.fixture(scope="session")
def shop_duckdb(tmp_path_factory) -> BuiltProject:
    dest = tmp_path_factory.mktemp("shop_duckdb") / "shop"
    env = base_env(SHOP_DUCKDB_PATH=str(dest.parent / "shop.duckdb"))
    return build_shop(dest, "dev", env, SHOP_TEST_SCALE)


@pytest.fixture(scope="session")
def shop_postgres(tmp_path_factory, pg_server) -> BuiltProject:
    pg_server.create_database("shop")
    dest = tmp_path_factory.mktemp("shop_pg") / "shop"
    return build_shop(dest, "postgres", base_env(**pg_server.env("shop")), SHOP_TEST_SCALE)
