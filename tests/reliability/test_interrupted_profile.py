"""The warehouse connection dies mid-profiling (PostgreSQL, `pg_terminate_backend` from another
session, every time the slow relation is queried): the run names the affected relation, keeps
the profiles of the others in profiles.json, and the next run profiles only what is missing."""

from __future__ import annotations

import json
import threading
import time

import psycopg2
import pytest

from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import build, cli, spawn_cli, write_project

pytestmark = [pytest.mark.dbt, pytest.mark.postgres]

DB = "interrupt"
FILES = {
    "models/a_first.sql": "select i as a_id, i % 5 as grp from generate_series(1, 50) i\n",
    # slow on purpose: every scan sleeps ~1.5 s, so its profiling query can be caught running
    "models/big.sql": "{{ config(materialized='view') }}\n"
                      "select i as big_id, i % 7 as grp from generate_series(1, 30) i\n"
                      "where pg_sleep(0.05) is not null\n",
    "models/c_after.sql": "select i as c_id, i % 3 as grp from generate_series(1, 40) i\n",
    "models/d_last.sql": "select i as d_id from generate_series(1, 20) i\n",
}
RELATIONS = {f"model.interrupt.{n}" for n in ("a_first", "big", "c_after", "d_last")}


@pytest.fixture(scope="module")
def interrupt_project(tmp_path_factory, pg_server) -> BuiltProject:
    pg_server.create_database(DB)
    root = write_project(tmp_path_factory.mktemp("interrupt") / "interrupt", "interrupt", FILES,
                         "models:\n  interrupt:\n    +materialized: table\n")
    return build(BuiltProject(root, "postgres", base_env(**pg_server.env(DB))))


class Terminator(threading.Thread):
    """Kills every backend running a query on the slow relation until stopped."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.conn = psycopg2.connect(host=server.host, port=server.port, user=server.user, dbname=DB)
        self.conn.autocommit = True
        self.stop = threading.Event()
        self.killed = 0

    def run(self) -> None:
        with self.conn.cursor() as cur:
            while not self.stop.is_set():
                cur.execute(
                    "select pg_terminate_backend(pid) from pg_stat_activity "
                    "where datname = %s and pid <> pg_backend_pid() and state = 'active' "
                    "and query like %s", (DB, '%"big"%'))
                self.killed += sum(1 for (ok,) in cur.fetchall() if ok)
                time.sleep(0.05)
        self.conn.close()


def test_killed_connection_is_reported_cached_and_resumed(interrupt_project, pg_server):
    profiles_json = interrupt_project.path / "target" / "schema_link" / "profiles.json"
    killer = Terminator(pg_server)
    killer.start()
    try:
        proc = spawn_cli(interrupt_project, "profile", "--refresh")
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        killer.stop.set()
        killer.join()
    assert killer.killed >= 1, "no profiling query on the slow relation was caught running"
    assert proc.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert any(line.startswith("error: model.interrupt.big was not profiled:") for line in errors), stderr[-3000:]
    assert not any("a_first" in line or "c_after" in line or "d_last" in line for line in errors), errors
    assert "terminat" in stderr.lower() or "connection" in stderr.lower(), stderr[-2000:]
    data = json.loads(profiles_json.read_text())
    assert set(data["relations"]) == RELATIONS - {"model.interrupt.big"}
    assert [f["unique_id"] for f in data["failures"]] == ["model.interrupt.big"]

    # The next run (connection fine again) profiles only the missing relation.
    again = cli(interrupt_project, "profile")
    assert "profiling 1 relations in the warehouse (3 unchanged, from cache)" in again.stderr, again.stderr
    assert "profiled model.interrupt.big" in again.stderr
    data = json.loads(profiles_json.read_text())
    assert set(data["relations"]) == RELATIONS and data["failures"] == []
    # and a third run touches the warehouse for nothing
    third = cli(interrupt_project, "profile")
    assert "profiling 0 relations in the warehouse (4 unchanged, from cache)" in third.stderr, third.stderr
