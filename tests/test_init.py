"""From a bare dbt project (a profile and a `sources:` file) to links: `init` declares and
installs the package, `link --build-artifacts` makes the artifacts; each way it can go wrong
before that is one line naming the fix. Real dbt on a real DuckDB file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
import yaml

from dbt_schema_link import __version__
from dbt_schema_link.project_setup import PackageState, package_status
from tests.conftest import DBT, REPO, BuiltProject, base_env

PACKAGES_YML = "# packages this project uses\npackages:\n  - local: some/other/pkg  # keep me\n"


def _error_line(res) -> str:
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and lines, (res.returncode, res.stderr)
    assert lines[-1].startswith("error: ") and "Traceback" not in res.stderr, res.stderr
    return lines[-1]


_PROFILES = {
    "duckdb": "bare:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: bare.duckdb\n",
    "postgres": ("bare:\n  target: dev\n  outputs:\n    dev:\n      type: postgres\n"
                 "      host: \"{{ env_var('SCHEMA_LINK_PG_HOST') }}\"\n"
                 "      port: \"{{ env_var('SCHEMA_LINK_PG_PORT') | as_number }}\"\n"
                 "      user: \"{{ env_var('SCHEMA_LINK_PG_USER') }}\"\n      password: ''\n"
                 "      dbname: \"{{ env_var('SCHEMA_LINK_PG_DBNAME') }}\"\n      schema: public\n      threads: 1\n"),
}
_RAW_TABLES = [
    "create schema raw",
    "create table raw.customers as select i as id, 'n' || i as name from {range_50} t(i)",
    "create table raw.orders as select i as order_id, 1 + (i % 50) as customer_id from {range_300} t(i)",
]


@pytest.fixture(params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def bare(tmp_path, request) -> BuiltProject:
    """A project with a profile and a `sources:` file only, on DuckDB or a throwaway PostgreSQL."""
    root = tmp_path / "bare"
    (root / "models").mkdir(parents=True)
    (root / "some/other/pkg/macros").mkdir(parents=True)  # a second local package, left as it is
    (root / "some/other/pkg/dbt_project.yml").write_text("name: other_pkg\nversion: '1.0'\nconfig-version: 2\n")
    (root / "dbt_project.yml").write_text("name: bare\nversion: '1.0'\nprofile: bare\nconfig-version: 2\n")
    (root / "profiles.yml").write_text(_PROFILES[request.param])
    (root / "packages.yml").write_text(PACKAGES_YML)
    (root / "models/sources.yml").write_text("version: 2\nsources:\n  - name: raw\n    schema: raw\n    tables:\n"
                                             "      - name: customers\n      - name: orders\n")
    if request.param == "duckdb":
        con = duckdb.connect(str(root / "bare.duckdb"))
        for sql in _RAW_TABLES:
            con.execute(sql.format(range_50="range(1, 51)", range_300="range(1, 301)"))
        con.close()
        return BuiltProject(root, "dev", base_env())
    server = request.getfixturevalue("pg_server")
    dbname = f"bare_{request.node.name.split('[')[0][-20:]}".lower()
    server.create_database(dbname)
    for sql in _RAW_TABLES:
        server.psql(sql.format(range_50="generate_series(1, 50)", range_300="generate_series(1, 300)"), dbname)
    return BuiltProject(root, "dev", base_env(**server.env(dbname)))


@pytest.mark.dbt
def test_bare_project_to_links(bare):
    p = bare.path
    # 1. no package: one line naming `dbt-schema-link init`
    line = _error_line(bare.cli("link", *bare.project_args(), check=False))
    assert "dbt-schema-link init" in line and "packages.yml" in line
    # 2. init --check reports and changes nothing
    check = bare.cli("init", *bare.project_args(), "--check", check=False)
    assert check.returncode == 1 and "would add" in check.stdout and "would run `dbt deps`" in check.stdout
    assert (p / "packages.yml").read_text() == PACKAGES_YML
    # 3. init: a round-trip edit (comments and the other package kept), then dbt deps
    done = bare.cli("init", *bare.project_args())
    assert "added `local: " in done.stdout and "ran `dbt deps`" in done.stdout, done.stdout
    text = (p / "packages.yml").read_text()
    assert text.startswith(PACKAGES_YML), text
    entries = yaml.safe_load(text)["packages"]
    assert len(entries) == 2 and (p / entries[1]["local"]).resolve() == Path(__file__).resolve().parents[1]
    assert package_status(p).state is PackageState.INSTALLED
    again = bare.cli("init", *bare.project_args(), "--check")
    assert again.stdout.startswith(f"✓ dbt_schema_link {__version__} installed"), again.stdout
    assert (p / "packages.yml").read_text() == text
    # 4. no artifacts: one line naming `dbt docs generate` and --build-artifacts
    line = _error_line(bare.cli("link", *bare.project_args(), check=False))
    assert "dbt docs generate" in line and "--build-artifacts" in line and "manifest.json" in line
    # 5. link --build-artifacts makes them and finds the join
    bare.cli("link", *bare.project_args(), "--build-artifacts", "--quiet")
    links = yaml.safe_load((p / "target/schema_link/links.json").read_text())["links"]
    found = {(link["child"]["column"], link["parent"]["column"]) for link in links if link["kind"] == "inferred"}
    assert ("customer_id", "id") in found, links
    # 6. artifacts older than the project: one notice naming the fix (even with --quiet)
    later = time.time() + 60
    os.utime(p / "models/sources.yml", (later, later))
    res = bare.cli("link", *bare.project_args(), "--no-profile", "--quiet")
    notes = [line for line in res.stderr.splitlines() if line.startswith("notice:")]
    assert len(notes) == 1 and "models/sources.yml" in notes[0] and "dbt docs generate" in notes[0], res.stderr


def test_outdated_package_names_the_pin(tmp_path, capsys):
    """An installed dbt package older than the Python package: `init --check` names the pin and
    profiling refuses with the same one line (no dbt needed to tell)."""
    from dbt_schema_link import cli

    root = tmp_path / "proj"
    (root / "dbt_packages/dbt_schema_link").mkdir(parents=True)
    (root / "dbt_packages/dbt_schema_link/dbt_project.yml").write_text("name: dbt_schema_link\nversion: '0.0.1'\n")
    (root / "dbt_project.yml").write_text("name: proj\nversion: '1.0'\nprofile: proj\nconfig-version: 2\n")
    (root / "packages.yml").write_text("packages:\n  - git: https://github.com/dbt-schema-link/dbt-schema-link\n"
                                       "    revision: v0.0.1  # old pin\n")
    assert package_status(root).state is PackageState.OUTDATED
    assert cli.main(["init", "--project-dir", str(root), "--check"]) == 1
    out = capsys.readouterr().out
    assert "0.0.1 is older than the Python package" in out and "would pin" in out
    assert cli.main(["profile", "--project-dir", str(root)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "older than the Python package" in err[0] and "dbt-schema-link init" in err[0]


@pytest.mark.dbt
def test_init_restores_packages_yml_when_dbt_deps_fails(bare):
    """Offline, a project whose packages.yml lists a package fetched over the network: `init` fails
    with one line naming that package, and packages.yml is byte for byte what it was."""
    p = bare.path
    remote = (PACKAGES_YML + "  - tarball: http://127.0.0.1:9/remote_pkg.tar.gz  # unreachable here\n"
              "    name: remote_pkg\n")
    (p / "packages.yml").write_text(remote)
    line = _error_line(bare.cli("init", *bare.project_args(), check=False))
    assert line.startswith(f"error: dbt deps failed in {p}"), line
    assert "not installed: http://127.0.0.1:9/remote_pkg.tar.gz" in line and "packages.yml restored" in line, line
    assert (p / "packages.yml").read_bytes() == remote.encode()
    assert not (p / "package-lock.yml").exists()


@pytest.mark.parametrize("version, macro, words", [
    (__version__, "{% macro link_schemas(only_this) %}{% endmacro %}\n", "differ from those the Python package"),
    ("9.9.9", None, "9.9.9 is newer than the Python package"),
])
def test_installed_package_that_does_not_match_is_one_line_naming_init(tmp_path, capsys, version, macro, words):
    """Same version but other macro signatures (a stale copy in dbt_packages), or a newer package:
    profiling refuses with one line naming `dbt-schema-link init`, before any dbt call."""
    from dbt_schema_link import cli

    root = tmp_path / "proj"
    installed = root / "dbt_packages/dbt_schema_link"
    (installed / "macros").mkdir(parents=True)
    (installed / "dbt_project.yml").write_text(f"name: dbt_schema_link\nversion: '{version}'\n")
    if macro:
        (installed / "macros/link_schemas.sql").write_text(macro)
    (root / "dbt_project.yml").write_text("name: proj\nversion: '1.0'\nprofile: proj\nconfig-version: 2\n")
    (root / "packages.yml").write_text(f"packages:\n  - git: https://github.com/dbt-schema-link/dbt-schema-link\n"
                                       f"    revision: v{version}\n")
    assert package_status(root).state in (PackageState.MISMATCHED, PackageState.NEWER)
    assert cli.main(["profile", "--project-dir", str(root)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and "dbt-schema-link init" in err[0], err
    assert cli.main(["init", "--project-dir", str(root), "--check"]) == 1
    assert "would pin" in capsys.readouterr().out


def _deps_project(root: Path, packages: str | None) -> Path:
    """A project with no warehouse (dbt deps needs none) and the given packages.yml."""
    root.mkdir(parents=True)
    (root / "dbt_project.yml").write_text("name: deps_only\nversion: '1.0'\nprofile: deps_only\nconfig-version: 2\n")
    (root / "profiles.yml").write_text(_PROFILES["duckdb"].replace("bare:", "deps_only:"))
    if packages is not None:
        (root / "packages.yml").write_text(packages)
    return root


@pytest.mark.dbt
@pytest.mark.parametrize("entry, named, why", [
    ("  - git: http://127.0.0.1:9/dbt-schema-link.git  # ours, unreachable\n", "http://127.0.0.1:9/dbt-schema-link.git",
     "Failed to connect"),
    ("  - local: ../gone_pkg  # a folder removed since\n", "../gone_pkg", "No dbt_project.yml found"),
])
def test_dbt_deps_failure_names_the_package_it_could_not_install_and_why(tmp_path, entry, named, why):
    """A package dbt deps cannot fetch: the error line names it, says why (read from dbt's output,
    not its "Error checking out spec='None'") and lists what is not installed; packages.yml is
    put back."""
    packages = PACKAGES_YML + entry
    root = _deps_project(tmp_path / "proj", packages)
    (root / "some/other/pkg").mkdir(parents=True)
    (root / "some/other/pkg/dbt_project.yml").write_text("name: other_pkg\nversion: '1.0'\nconfig-version: 2\n")
    project = BuiltProject(root, "dev", base_env(GIT_TERMINAL_PROMPT="0"))
    line = _error_line(project.cli("init", *project.project_args(), check=False))
    assert line.startswith(f"error: dbt deps failed in {root}: could not install {named} ("), line
    assert why in line and "spec='None'" not in line, line
    assert named in line.split("; not installed: ")[1].split(";")[0].split(", "), line
    assert (root / "packages.yml").read_text() == packages


@pytest.mark.dbt
def test_init_replaces_our_local_entry_whose_folder_is_gone(tmp_path):
    """packages.yml committed with a path that no longer holds the package (a removed virtual
    environment or clone, another machine's path): `init` points it at the package it carries."""
    stale = "/nonexistent/venv/lib/python3.11/site-packages/dbt_schema_link/dbt_package"
    root = _deps_project(tmp_path / "proj", f"packages:\n  - local: {stale}  # from another machine\n")
    assert package_status(root).state is PackageState.NOT_INSTALLED
    project = BuiltProject(root, "dev", base_env())
    res = project.cli("init", *project.project_args())
    assert "pinned `local: " in res.stdout, res.stdout
    text = (root / "packages.yml").read_text()
    assert stale not in text and "# from another machine" in text, text
    assert package_status(root).state is PackageState.INSTALLED


def test_init_from_an_install_without_the_dbt_package_lists_the_release_it_could_not_fetch(tmp_path):
    """The case of issue 64: the Python package without a dbt package beside it (a copy of the
    source tree) falls back to the git release; offline, `dbt deps` fails and the line names the
    entry init itself added, although packages.yml is restored without it."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "dbt_schema_link", site / "dbt_schema_link",
                    ignore=shutil.ignore_patterns("__pycache__", "dbt_package"))
    root = _deps_project(tmp_path / "proj", PACKAGES_YML.replace("  - local: some/other/pkg  # keep me\n", ""))
    env = base_env(PYTHONPATH=str(site), GIT_TERMINAL_PROMPT="0")
    res = subprocess.run([sys.executable, "-m", "dbt_schema_link", "init", "--project-dir", str(root),
                          "--profiles-dir", str(root), "--dbt", DBT], capture_output=True, text=True, env=env, cwd=root)
    line = _error_line(res)
    url = "https://github.com/dbt-schema-link/dbt-schema-link"
    assert f"could not install {url} (" in line and f"not installed: {url}" in line, line
    assert line.endswith("packages.yml restored as before"), line
    assert (root / "packages.yml").read_text() == PACKAGES_YML.replace("  - local: some/other/pkg  # keep me\n", "")
