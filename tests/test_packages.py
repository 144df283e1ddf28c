"""A project built from an installed package, for real (dbt + DuckDB): the root project has the
seeds, a local package of this test's own has sources over them (`identifier` by var), staging
views and documented marts. `link` profiles and links the package's relations, a source over a
seed is that seed (no duplicate links, no join path through the copy), `write` writes the
package's links as data tests in the root project (or, with `package_tests: false`, says once why
it cannot), `link --check` passes after `write`, and `docs-coverage` counts the package's
documented models."""

from __future__ import annotations

import json

import pytest

from tests.conftest import DBT, REPO, BuiltProject, base_env
from tests.support.pkgproject import DOCUMENTED_PACKAGE_MODELS, PACKAGE_NAME, write_package_project

PACKAGE_MODELS = {"stg_gh__repository", "stg_gh__user", "stg_gh__issue", "stg_gh__pull_request",
                  *DOCUMENTED_PACKAGE_MODELS}


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    """The project built, `link --build-artifacts`, `write`, `dbt docs generate`; the CLI outputs."""
    base = tmp_path_factory.mktemp("packages")
    root = write_package_project(base, REPO)
    project = BuiltProject(root, "dev", base_env(PKG_DUCKDB_PATH=str(base / "pkg.duckdb")))
    for step in (("deps",), ("seed",), ("run",)):
        project.dbt(*step)
    runs = {"link": project.cli("link", "--build-artifacts", "--dbt", DBT, *project.project_args())}
    runs["write"] = project.cli("write", "--dbt", DBT, *project.project_args())
    project.dbt("docs", "generate")
    return project, runs


def _links(project: BuiltProject) -> list[dict]:
    return json.loads((project.path / "target" / "schema_link" / "links.json").read_text())["links"]


def _name(uid: str) -> str:
    return uid.split(".")[-1]


def test_package_relations_are_profiled_and_linked(linked):
    project, runs = linked
    assert "6 from packages (ghpkg 6)" in runs["link"].stderr
    profiles = json.loads((project.path / "target" / "schema_link" / "profiles.json").read_text())
    profiled = {_name(uid) for uid in profiles["relations"] if uid.startswith(f"model.{PACKAGE_NAME}.")}
    assert profiled == PACKAGE_MODELS
    inferred = {(_name(l["child"]["relation"]), l["child"]["column"], _name(l["parent"]["relation"]), l["parent"]["column"])
                for l in _links(project) if l["kind"] == "inferred"}
    assert ("stg_gh__issue", "repository_id", "stg_gh__repository", "repository_id") in inferred
    assert ("stg_gh__pull_request", "issue_id", "stg_gh__issue", "issue_id") in inferred
    assert ("stg_gh__issue", "user_id", "stg_gh__user", "user_id") in inferred


def test_a_source_over_a_seed_is_the_seed(linked):
    project, _ = linked
    links = _links(project)
    ends = {end["relation"] for l in links for end in (l["child"], l["parent"])}
    assert not {e for e in ends if e.startswith("source.")}, "a source over a seed is folded into the seed"
    # lineage runs from the staging model straight to the seed its source names
    lineage = {(l["child"]["relation"], l["parent"]["relation"]) for l in links if l["kind"] == "lineage"}
    assert ("model.ghpkg.stg_gh__issue", "seed.pkgroot.gh_issue_data") in lineage
    # no seed-level link repeats a staging link (only the root-only seed links at seed level)
    seed_links = [l for l in links if l["kind"] == "inferred" and l["child"]["relation"].startswith("seed.")]
    assert [_name(l["child"]["relation"]) for l in seed_links] == ["team_repositories"]
    pairs = [(l["child"]["relation"], l["child"]["column"].lower(), l["parent"]["relation"], l["parent"]["column"].lower())
             for l in links if l["kind"] != "lineage"]
    assert len(pairs) == len(set(pairs))


def test_join_path_between_marts_stays_in_the_modelled_layers(linked):
    from dbt_schema_link import api
    from dbt_schema_link.agents import AgentSession, AgentTools
    from dbt_schema_link.linker.service import input_files
    from dbt_schema_link.project_config import locate

    project, _ = linked
    api.index([project.path], model="none")
    paths = [locate(project.path)]
    session = AgentSession(lambda: api.open_session([project.path]), input_files(paths),
                           [p.links_json for p in paths], lambda _message: None)
    tools = AgentTools(session)
    for start, end in (("gh__pull_requests", "gh__issues"), ("stg_gh__pull_request", "stg_gh__user")):
        path = tools.call("join_path", {"from": start, "to": end}).data
        assert path["found"], (start, end)
        visited = {hop["from"] for hop in path["hops"]} | {hop["to"] for hop in path["hops"]}
        assert visited <= PACKAGE_MODELS, (start, end, path["hops"])
    # the source's name still finds its table
    assert tools.call("describe_relation", {"name": "github.repository"}).data["unique_id"] == \
        "seed.pkgroot.gh_repository_data"


def test_write_puts_package_links_into_data_tests_and_check_passes_after_it(linked):
    project, runs = linked
    assert "test team_repositories.repository_id -> gh_repository_data.id" in runs["write"].stderr
    written = sorted(p.name for p in (project.path / "tests" / "schema_link").iterdir())
    assert written == ["stg_gh__issue__repository_id__stg_gh__repository__repository_id.sql",
                       "stg_gh__issue__user_id__stg_gh__user__user_id.sql",
                       "stg_gh__pull_request__issue_id__stg_gh__issue__issue_id.sql",
                       "stg_gh__repository__owner_user_id__stg_gh__user__user_id.sql"]
    assert runs["write"].stderr.count("(package ghpkg)") == 4 and "not writable" not in runs["write"].stderr
    assert not list((project.path / "dbt_packages" / PACKAGE_NAME).rglob("*schema_link*"))  # nothing in the package
    tested = project.dbt("test", "-s", "tag:schema_link")
    assert tested.stdout.count(" PASS ") == 5 and "WARN=0 ERROR=0" in tested.stdout, tested.stdout[-2000:]
    again = project.cli("write", "--dbt", DBT, *project.project_args())
    assert "nothing to write" in again.stderr
    check = project.cli("link", "--check", *project.project_args(), check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout == "" and "left out" not in check.stderr
    assert "the written links match the inferred ones" in check.stderr


def test_docs_coverage_counts_the_packages_documented_models(linked):
    project, _ = linked
    report = json.loads(project.cli("docs-coverage", "--format", "json", *project.project_args()).stdout)
    packages = {p["name"]: p for p in report["packages"]}
    assert set(packages) == {"pkgroot", PACKAGE_NAME}
    assert packages[PACKAGE_NAME]["counts"]["person"] == 9  # the marts' nine documented columns
    by_name = {r["name"]: r for r in report["relations"]}
    assert all(by_name[m]["description"] == "person" and by_name[m]["share"] == 1.0 for m in DOCUMENTED_PACKAGE_MODELS)
    assert not [r for r in report["relations"] if r["resource_type"] == "source"]  # folded into the seeds
    assert packages["pkgroot"]["relations"] == 5


def test_drafts_are_never_written_into_a_package(linked):
    project, _ = linked
    dry = project.cli("write", "--docs", "draft", "--dry-run", *project.project_args())
    touched = [line.split()[1].rstrip(":") for line in dry.stderr.splitlines() if line.startswith(("create ", "update "))]
    assert touched and all(path.startswith("seeds/") or path == "schema_link_state.json" for path in touched), touched
    assert "dbt_packages" not in dry.stdout


def test_verbosity_flags_are_accepted_everywhere(linked):
    project, _ = linked
    verbose = project.cli("write", "--dry-run", "-v", *project.project_args())
    assert "not written: seed.pkgroot.team_repositories.repository_id" in verbose.stderr  # already written
    quiet = project.cli("docs-coverage", "-q", *project.project_args())
    assert quiet.stdout.startswith("# Documentation coverage")
    both = project.cli("link", "-q", "-v", "--no-profile", *project.project_args())
    assert "discovery stages (wall seconds):" in both.stderr and "discovery:" not in both.stderr  # details, no progress


def test_a_data_test_finds_orphan_keys(linked):
    import duckdb

    project, _ = linked
    with duckdb.connect(project.env["PKG_DUCKDB_PATH"]) as con:  # an issue in a repository nobody loaded
        con.execute("insert into main.gh_issue_data values (9999, 999, 1, 'orphan', false)")
    try:
        tested = project.dbt("test", "-s", "stg_gh__issue__repository_id__stg_gh__repository__repository_id")
        assert "WARN=1" in tested.stdout, tested.stdout[-2000:]
    finally:
        with duckdb.connect(project.env["PKG_DUCKDB_PATH"]) as con:
            con.execute("delete from main.gh_issue_data where id = 9999")


def test_without_package_tests_links_on_packages_are_reported_once(linked):
    project, _ = linked
    yml = project.path / "dbt_project.yml"
    original = yml.read_text()
    yml.write_text(original.replace("vars:\n", "vars:\n  schema_link:\n    write:\n      package_tests: false\n", 1))
    try:
        dry = project.cli("write", "--dry-run", *project.project_args())
        assert [line for line in dry.stderr.splitlines() if line.startswith("not writable:")] == [
            "not writable: 4 link(s) on relations of package ghpkg: only the root project's files are edited: the "
            "package's own YAML is replaced by `dbt deps`, and dbt refuses a second entry for a node the package "
            "already describes"]
        check = project.cli("link", "--check", "--build-artifacts", "--dbt", DBT, *project.project_args(), check=False)
        assert "left out 4 link(s) on relations of package ghpkg" in check.stderr
        # the data tests written before are still written links: they must still be inferred
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        yml.write_text(original)


def test_the_build_hook_profiles_the_packages_models(linked):
    project, _ = linked
    project.cli("init", "--on-run-end", *project.project_args())  # how a project opts in to the hook
    project.dbt("run")
    profiled = project.cli("profile", "--build-artifacts", *project.project_args())
    assert "(6 from the build, 5 unchanged, from cache)" in profiled.stderr, profiled.stderr
