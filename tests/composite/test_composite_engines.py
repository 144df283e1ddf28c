"""The composite key macros on PostgreSQL and Spark through the suite's harnesses: the tuple
containment check (`schema_link_tuple_containment`) measures containment, orphans and parent
uniqueness as on DuckDB, and the shipped `schema_link_composite_relationship` test passes on the
data and fails on an orphan tuple. PostgreSQL runs `link` + `write` as a user does."""

from __future__ import annotations

import json
import re

import pytest

from tests.composite.project import rooms_csv, write_project
from tests.conftest import BuiltProject, base_env
from tests.support.spark import run_in_one_session, spark_env
from tests.test_spark import _require_spark

pytestmark = [pytest.mark.dbt]

ARGS = ("{pairs: [{child: seed.composite.rooms, child_columns: [floor, code], parent: seed.composite.bins, "
        "parent_columns: [floor, code]}, {child: seed.composite.rooms, child_columns: [floor], "
        "parent: seed.composite.bins, parent_columns: [floor]}]}")
#: rooms(floor, code): 12 distinct tuples, all in bins, whose 24 rows are unique on (floor, code);
#: rooms.floor alone: 4 values, all in bins, but bins.floor is not unique (4 distinct of 24)
EXPECTED = [
    {"child_columns": ["floor", "code"], "child_distinct": 12, "matched": 12, "orphan_rows": 0,
     "parent_rows": 24, "parent_distinct": 24},
    {"child_columns": ["floor"], "child_distinct": 4, "matched": 4, "orphan_rows": 0,
     "parent_rows": 24, "parent_distinct": 4},
]
TEST_YAML = """\
version: 2
seeds:
  - name: rooms
    columns:
      - name: floor
        data_tests:
          - dbt_schema_link.schema_link_composite_relationship:
              arguments: {columns: [floor, code], to: "ref('bins')", fields: [floor, code]}
"""


def _tuple_lines(text: str) -> list[dict]:
    """The envelope's tuple lines, from JSON logs or text output (one per log line)."""
    found = []
    for line in text.splitlines():
        if "tuple_containment {" not in line:
            continue
        msg = line
        if line.lstrip().startswith("{"):
            event = json.loads(line)
            msg = (event.get("data") or {}).get("msg") or (event.get("info") or {}).get("msg", "")
        found.append(json.loads(msg[msg.index("tuple_containment {") + len("tuple_containment "):].strip()))
    keep = ("child_columns", "child_distinct", "matched", "orphan_rows", "parent_rows", "parent_distinct")
    return [{k: line[k] for k in keep} for line in found]


def test_postgres_tuple_containment_link_write_and_test(pg_server, tmp_path):
    pg_server.create_database("composite")
    project = BuiltProject(write_project(tmp_path / "p"), "postgres", base_env(**pg_server.env("composite")))
    for args in (["deps"], ["seed"], ["docs", "generate"]):
        project.dbt(*args)
    res = project.dbt("--log-format", "json", "run-operation", "schema_link_tuple_containment", "--args", ARGS)
    assert _tuple_lines(res.stdout) == EXPECTED
    project.cli("link", *project.project_args(), "--quiet")
    links = json.loads((project.path / "target" / "schema_link" / "links.json").read_text())["links"]
    assert [(l["child"]["column"], [p["child"]["column"] for p in l["extra_pairs"]]) for l in links
            if l.get("extra_pairs")] == [("floor", ["code"])]
    project.cli("write", *project.project_args())
    assert "PASS=1 WARN=0 ERROR=0" in project.dbt("test", "-s", "tag:schema_link").stdout
    (project.path / "seeds" / "rooms.csv").write_text(rooms_csv(orphan=True))
    project.dbt("seed")
    failed = project.dbt("test", "-s", "tag:schema_link", check=False)  # severity warn: a WARN
    assert "PASS=0 WARN=1" in failed.stdout and "Got 1 result" in failed.stdout, failed.stdout[-3000:]


@pytest.mark.spark
@pytest.mark.slow
def test_spark_tuple_containment_and_composite_test(tmp_path):
    _require_spark()
    path = write_project(tmp_path / "p", spark=True)
    (path / "seeds" / "rooms.yml").write_text(TEST_YAML)
    env = base_env(**spark_env(tmp_path / "spark"))
    out = run_in_one_session(path, "spark", [["deps"], ["seed"], ["run-operation", "schema_link_tuple_containment",
                                                                 "--args", f"'{ARGS}'"], ["test"]], env)
    assert _tuple_lines(out) == EXPECTED, out[-3000:]
    assert re.search(r"PASS=1 WARN=0 ERROR=0", out), out[-3000:]
    (path / "seeds" / "rooms.csv").write_text(rooms_csv(orphan=True))
    with pytest.raises(AssertionError, match=r"(?s)FAIL 1.*Got 1 result"):
        run_in_one_session(path, "spark", [["seed"], ["test"]], env)
