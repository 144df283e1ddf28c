"""Composite keys end to end on real dbt + DuckDB: `link` finds `rooms(floor, code) ->
bins(floor, code)` from profiles plus one tuple check, links.md shows the tuple, `write` adds the
package's composite relationships test, `dbt test` passes on today's data and fails once a child
tuple has no parent, and join completion (MCP `join_path`, `ask`) joins on both columns."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from dbt_schema_link.links import read_links_file
from tests.composite.project import rooms_csv, write_project
from tests.conftest import DBT, BuiltProject, base_env

pytestmark = [pytest.mark.dbt]

ROOMS, BINS = "seed.composite.rooms", "seed.composite.bins"


@pytest.fixture(scope="module")
def linked(tmp_path_factory) -> BuiltProject:
    root = tmp_path_factory.mktemp("composite")
    project = BuiltProject(write_project(root / "p"), "dev", base_env(COMPOSITE_DUCKDB_PATH=str(root / "c.duckdb")))
    for args in (["deps"], ["seed"], ["docs", "generate"]):
        project.dbt(*args)
    project.cli("link", "--dbt", DBT, *project.project_args(), "--quiet")
    return project


def _composites(project: BuiltProject):
    links = read_links_file(project.path / "target" / "schema_link" / "links.json")
    return links, [link for link in links if link.is_composite]


def test_link_finds_the_composite_key_and_no_single_column_part(linked):
    links, composites = _composites(linked)
    assert len(composites) == 1
    link = composites[0]
    assert [(c.relation, c.column, p.relation, p.column) for c, p in link.column_pairs()] == [
        (ROOMS, "floor", BINS, "floor"), (ROOMS, "code", BINS, "code")]
    assert link.confidence >= 0.9 and link.orphans is None
    assert any("12 of 12 child tuples" in e.detail for e in link.evidence)
    # neither column alone links to bins: the composite link explains both
    assert not [k for k in links if not k.is_composite and k.child.relation == ROOMS and k.parent.relation == BINS]
    md = (linked.path / "target" / "schema_link" / "links.md").read_text()
    assert "| `rooms(floor, code)` | `bins(floor, code)` |" in md
    raw = json.loads((linked.path / "target" / "schema_link" / "links.json").read_text())
    assert raw["format_version"] == 3 and raw["counts"]["composite_links"] == 1


def _dbt_test(project: BuiltProject):
    """(result, passed, failed): the written test has severity warn, so a failure is a WARN."""
    res = project.dbt("test", "-s", "tag:schema_link", check=False)
    done = re.search(r"PASS=(\d+) WARN=(\d+) ERROR=(\d+)", res.stdout)
    assert done, res.stdout[-2000:]
    return res, int(done.group(1)), int(done.group(2)) + int(done.group(3))


def test_write_then_dbt_test_passes_and_catches_an_orphan_tuple(linked, tmp_path):
    dest = tmp_path / "p"
    shutil.copytree(linked.path, dest, symlinks=True)
    database = tmp_path / "c.duckdb"  # its own copy: the orphan below must not reach the module's
    shutil.copyfile(linked.env["COMPOSITE_DUCKDB_PATH"], database)
    project = BuiltProject(dest, linked.target, {**linked.env, "COMPOSITE_DUCKDB_PATH": str(database)})
    project.cli("write", "--dbt", DBT, *project.project_args())
    written = (dest / "seeds" / "_rooms__schema_link.yml").read_text()
    assert "dbt_schema_link.schema_link_composite_relationship:" in written
    assert "columns: [floor, code]" in written and "fields: [floor, code]" in written
    again = project.cli("write", "--dbt", DBT, *project.project_args())
    assert "nothing to write" in again.stdout + again.stderr  # idempotent
    res, passed, errors = _dbt_test(project)
    assert (passed, errors) == (1, 0), res.stdout[-3000:]
    # read back from the manifest: the written test is the link, inferred again (provenance written)
    project.dbt("docs", "generate")
    project.cli("link", "--dbt", DBT, *project.project_args(), "--quiet")
    links, (link,) = _composites(project)
    assert link.provenance.value == "written" and link.written_confidence == pytest.approx(0.978, abs=0.01)
    assert not [k for k in links if not k.is_composite and k.child.relation == ROOMS and k.parent.relation == BINS]
    assert project.cli("link", "--dbt", DBT, *project.project_args(), "--check", "--quiet").returncode == 0
    # floor 1 and code Z each exist; the tuple (1, Z) does not
    (dest / "seeds" / "rooms.csv").write_text(rooms_csv(orphan=True))
    project.dbt("seed")
    res, passed, errors = _dbt_test(project)
    assert (passed, errors) == (0, 1), res.stdout[-3000:]
    assert "Got 1 result" in res.stdout


def test_join_path_and_ask_join_on_both_columns(linked):
    from dbt_schema_link.agents import AgentSession, AgentTools
    from dbt_schema_link.api import index, open_session

    dirs = [str(linked.path)]
    index(dirs, model="none")
    links_json = linked.path / "target" / "schema_link" / "links.json"
    session = AgentSession(lambda: open_session(dirs, lexical=True), [links_json], [links_json], lambda _m: None)
    result = AgentTools(session).call("join_path", {"from": "rooms", "to": "bins"})
    hop, = result.data["hops"]
    assert hop["on"] == "rooms.floor = bins.floor and rooms.code = bins.code"
    assert hop["composite"] == [{"child_column": "code", "parent_column": "code"}]
    answer = open_session(dirs, lexical=True).ask("total room area per bin capacity")
    joins = [j.on for j in answer.joins]
    assert "rooms.floor = bins.floor and rooms.code = bins.code" in joins, answer.to_dict()


def test_composite_keys_can_be_turned_off(linked, tmp_path):
    dest = tmp_path / "p"
    shutil.copytree(linked.path, dest, symlinks=True)
    project = BuiltProject(dest, linked.target, linked.env)
    project.cli("link", "--dbt", DBT, *project.project_args(), "--quiet", "--set", "composite_max_columns=1")
    links, composites = _composites(project)
    assert composites == [] and links is not None
    bad = project.cli("link", "--dbt", DBT, *project.project_args(), "--quiet", "--set", "composite_max_columns=4", check=False)
    assert bad.returncode != 0 and "composite_max_columns" in bad.stderr and "Traceback" not in bad.stderr
