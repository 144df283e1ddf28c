"""Small dbt projects built inside the reliability tests (DuckDB and PostgreSQL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import REPO, BuiltProject

PROFILES = """\
{name}:
  target: duckdb
  outputs:
    duckdb:
      type: duckdb
      path: "{{{{ env_var('RELIABILITY_DUCKDB_PATH') }}}}"
      threads: 1
    postgres:
      type: postgres
      host: "{{{{ env_var('SCHEMA_LINK_PG_HOST', '127.0.0.1') }}}}"
      port: "{{{{ env_var('SCHEMA_LINK_PG_PORT', '5432') | as_number }}}}"
      user: "{{{{ env_var('SCHEMA_LINK_PG_USER', 'postgres') }}}}"
      password: "{{{{ env_var('SCHEMA_LINK_PG_PASSWORD', '') }}}}"
      dbname: "{{{{ env_var('SCHEMA_LINK_PG_DBNAME', 'postgres') }}}}"
      schema: "{{{{ env_var('SCHEMA_LINK_PG_SCHEMA', '{name}') }}}}"
      threads: 1
      connect_timeout: 5
      retries: 0
"""


def write_project(root: Path, name: str, files: dict[str, str | bytes], project_extra: str = "") -> Path:
    """A dbt project that installs this package; ``files`` are paths relative to the root."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "dbt_project.yml").write_text(
        f"name: {name}\nversion: '1.0'\nconfig-version: 2\nprofile: {name}\n{project_extra}"
    )
    (root / "profiles.yml").write_text(PROFILES.format(name=name))
    (root / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    return root


def build(project: BuiltProject, *build_args: str) -> BuiltProject:
    project.dbt("deps")
    project.dbt("build", *build_args)
    project.dbt("docs", "generate")
    return project


def cli(project: BuiltProject, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """The CLI with the project's dbt arguments appended."""
    return project.cli(*args, *project.project_args(), check=check)


def spawn_cli(project: BuiltProject, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "dbt_schema_link", *args, *project.project_args()],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=project.env, cwd=project.path,
        start_new_session=True,
    )


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def wait_for(predicate, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
