"""The package's on-run-end hook on the example project (real dbt, real DuckDB): off unless the
project opts in, per target, profiles only what the run built; a `link` after `dbt build` takes
every built relation's profile from dbt.log, profiles none, and finds the same links as a link
that profiles everything itself."""

from __future__ import annotations

import json

import pytest

from dbt_schema_link.profiling.build_log import read_build_log
from tests.conftest import REPO, BuiltProject, copy_built

pytestmark = pytest.mark.dbt

ON = "{schema_link_on_run_end: true}"
EXPECTED = json.loads((REPO / "examples" / "shop" / "expected_links.json").read_text())


@pytest.fixture(scope="module")
def shop(shop_duckdb, tmp_path_factory) -> BuiltProject:
    """The example with the hook line that `init --on-run-end` adds, its switch then turned off
    (the tests turn it on per run)."""
    project = copy_built(shop_duckdb, tmp_path_factory.mktemp("on_run_end") / "shop")
    done = project.cli("init", *project.project_args(), "--on-run-end")
    assert "added on-run-end" in done.stdout, done.stdout
    project_yml = project.path / "dbt_project.yml"
    text = project_yml.read_text()
    assert "schema_link_on_run_end: true" in text, text
    project_yml.write_text(text.replace("schema_link_on_run_end: true", "schema_link_on_run_end: false"))
    return project


def _builds(project: BuiltProject):
    builds, notices = read_build_log(project.path / "logs")
    assert notices == []
    return builds


def test_hook_is_off_unless_switched_on_and_follows_the_target(shop):
    before = len(_builds(shop))
    shop.dbt("run", "-s", "stg_stores")
    shop.dbt("run", "-s", "stg_stores", "--vars", "{schema_link_on_run_end: [prod]}")
    assert len(_builds(shop)) == before, "the hook ran though it is off"

    run = shop.dbt("run", "-s", "stg_stores", "--vars", "{schema_link_on_run_end: [prod, dev]}")
    assert "on-run-end profiled 1 relations built by this run" in run.stdout, run.stdout[-2000:]
    build = _builds(shop)[-1]
    assert build.complete and build.target == "dev" and build.adapter == "duckdb"
    assert set(build.profiles) == {"model.shop.stg_stores"}  # only what this run built
    assert build.profiles["model.shop.stg_stores"].row_count > 0


def test_a_test_run_profiles_nothing(shop):
    before = len(_builds(shop))
    shop.dbt("test", "-s", "stg_stores", "--vars", ON)
    assert len(_builds(shop)) == before  # tests build no relation


def _links(project: BuiltProject) -> dict:
    return json.loads((project.path / "target" / "schema_link" / "links.json").read_text())


def test_link_after_a_build_profiles_nothing_and_finds_the_same_links(shop):
    shop.dbt("build", "--vars", ON)
    built = _builds(shop)[-1]
    relations = {uid for uid in built.profiles if uid.startswith(("model.", "seed."))}

    after_build = shop.cli("link", *shop.project_args())
    assert (f"profiling 0 relations in the warehouse ({len(relations)} from the build, "
            in after_build.stderr), after_build.stderr
    links = _links(shop)

    itself = shop.cli("link", *shop.project_args(), "--refresh")
    assert f"profiling {len(relations)} relations in the warehouse" in itself.stderr, itself.stderr
    assert _links(shop) == links
    joins = [l for l in links["links"] if l["kind"] in ("inferred", "declared")]
    assert len(joins) == len(EXPECTED["joins"])

    # The build is taken in once: the next link finds its profiles in the cache, not in the log.
    again = shop.cli("link", *shop.project_args())
    assert f"profiling 0 relations in the warehouse ({len(relations)} unchanged, from cache)" in again.stderr
