"""A relation that fails to profile is reported by name and skipped; the rest is still written."""

from __future__ import annotations

import json

import duckdb
import pytest

from tests.conftest import BuiltProject, base_env

pytestmark = pytest.mark.dbt

PROFILES = """tiny:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: "{{ env_var('TINY_DUCKDB_PATH') }}"
      threads: 1
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> BuiltProject:
    from tests.conftest import REPO

    root = tmp_path_factory.mktemp("tiny") / "tiny"
    (root / "seeds").mkdir(parents=True)
    (root / "models").mkdir()
    (root / "dbt_project.yml").write_text("name: tiny\nversion: '1.0'\nprofile: tiny\nconfig-version: 2\n")
    (root / "profiles.yml").write_text(PROFILES)
    (root / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (root / "seeds" / "people.csv").write_text("person_id,name\n" + "".join(f"{i},p{i}\n" for i in range(1, 41)))
    (root / "seeds" / "visits.csv").write_text("visit_id,person_id\n" + "".join(f"{i},{i % 40 + 1}\n" for i in range(1, 101)))
    (root / "models" / "visit_view.sql").write_text("{{ config(materialized='view') }}\nselect * from {{ ref('visits') }}\n")
    (root / "models" / "people_table.sql").write_text("{{ config(materialized='table') }}\nselect * from {{ ref('people') }}\n")
    db = root.parent / "tiny.duckdb"
    project = BuiltProject(root, "dev", base_env(TINY_DUCKDB_PATH=str(db)))
    project.dbt("deps")
    project.dbt("build")
    project.dbt("docs", "generate")
    # Break the view behind dbt's back: its base table disappears.
    con = duckdb.connect(str(db))
    schema = con.execute("select table_schema from information_schema.tables where table_name = 'visits'").fetchone()[0]
    con.execute(f'drop table "{schema}"."visits"')
    con.close()
    return project


def test_failing_relation_is_named_and_skipped(tiny):
    res = tiny.cli("profile", *tiny.project_args(), check=False)
    assert res.returncode == 1, res.stderr
    assert "model.tiny.visit_view was not profiled" in res.stderr
    assert "seed.tiny.visits was not profiled" in res.stderr
    assert "Traceback" not in res.stderr
    data = json.loads((tiny.path / "target" / "schema_link" / "profiles.json").read_text())
    assert set(data["relations"]) == {"model.tiny.people_table", "seed.tiny.people"}
    assert {f["unique_id"] for f in data["failures"]} == {"model.tiny.visit_view", "seed.tiny.visits"}
