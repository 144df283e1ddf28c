"""Date keys end to end on real dbt + DuckDB: a column of days (`shipments.shipped_on`, DATE, a
name that says nothing of `calendar`) is linked to the calendar keyed by days, verified in the
warehouse; a timestamp is not; `write` adds the relationships test and `dbt test` passes on
today's data and catches a day the calendar lacks."""

from __future__ import annotations

import datetime
import re
import shutil

import pytest

from dbt_schema_link.links import Signal, read_links_file
from tests.conftest import DBT, REPO, BuiltProject, base_env

pytestmark = [pytest.mark.dbt]

PROFILES = """\
calendars:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: "{{ env_var('CALENDAR_DUCKDB_PATH', 'target/calendar.duckdb') }}"
      threads: 1
"""

PROJECT = """\
name: calendars
version: "1.0.0"
config-version: 2
profile: calendars
seed-paths: ["seeds"]
flags:
  send_anonymous_usage_stats: false
seeds:
  calendars:
    +quote_columns: false
    calendar:
      +column_types: {day_date: date, weekday_name: varchar, month_number: integer}
    shipments:
      +column_types: {shipment_id: integer, shipped_on: date, delivered_at: timestamp, weight_kg: integer}
"""

FIRST = datetime.date(2024, 1, 1)
CALENDAR = "seed.calendars.calendar"
SHIPMENTS = "seed.calendars.shipments"


def _day(i: int) -> str:
    return (FIRST + datetime.timedelta(days=i)).isoformat()


def calendar_csv() -> str:
    days = [FIRST + datetime.timedelta(days=i) for i in range(400)]
    return "day_date,weekday_name,month_number\n" + "\n".join(
        f"{d.isoformat()},{d.strftime('%A')},{d.month}" for d in days) + "\n"


def shipments_csv(extra_day: str | None = None) -> str:
    rows = [f"{i},{_day((i * 7) % 40 * 9)},{_day((i * 7) % 40 * 9 + 2)} {8 + i % 10:02d}:30:00,{5 + i % 17}"
            for i in range(1, 121)]
    if extra_day:  # a day the calendar does not hold
        rows.append(f"121,{extra_day},{extra_day} 09:30:00,7")
    return "shipment_id,shipped_on,delivered_at,weight_kg\n" + "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def linked(tmp_path_factory) -> BuiltProject:
    root = tmp_path_factory.mktemp("calendars")
    dest = root / "p"
    (dest / "seeds").mkdir(parents=True)
    (dest / "dbt_project.yml").write_text(PROJECT)
    (dest / "profiles.yml").write_text(PROFILES)
    (dest / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (dest / "seeds" / "calendar.csv").write_text(calendar_csv())
    (dest / "seeds" / "shipments.csv").write_text(shipments_csv())
    project = BuiltProject(dest, "dev", base_env(CALENDAR_DUCKDB_PATH=str(root / "c.duckdb")))
    for args in (["deps"], ["seed"], ["docs", "generate"]):
        project.dbt(*args)
    project.cli("link", "--dbt", DBT, *project.project_args(), "--quiet")
    return project


def test_a_column_of_days_links_to_the_calendar_and_an_instant_does_not(linked):
    links = read_links_file(linked.path / "target" / "schema_link" / "links.json")
    found = {(k.child.relation, k.child.column, k.parent.relation, k.parent.column): k for k in links}
    link = found.pop((SHIPMENTS, "shipped_on", CALENDAR, "day_date"))
    assert not [key for key in found if key[1] == "delivered_at"]  # instants are not days
    signals = {e.signal: e for e in link.evidence}
    assert Signal.CALENDAR_KEY in signals
    assert "40 of 40 child values found in the parent" in signals[Signal.EXACT_CONTAINMENT].detail
    assert link.confidence >= 0.9
    md = (linked.path / "target" / "schema_link" / "links.md").read_text()
    assert "is the key of a calendar (400 days, one row each)" in md


def test_write_then_dbt_test_passes_and_catches_a_day_the_calendar_lacks(linked, tmp_path):
    dest = tmp_path / "p"
    shutil.copytree(linked.path, dest, symlinks=True)
    database = tmp_path / "c.duckdb"  # its own copy: the day added below must not reach the module's
    shutil.copyfile(linked.env["CALENDAR_DUCKDB_PATH"], database)
    project = BuiltProject(dest, linked.target, {**linked.env, "CALENDAR_DUCKDB_PATH": str(database)})
    project.cli("write", "--dbt", DBT, *project.project_args())
    written = (dest / "seeds" / "_shipments__schema_link.yml").read_text()
    assert "to: ref('calendar')" in written and "field: day_date" in written
    res = project.dbt("test", "-s", "tag:schema_link", check=False)
    assert re.search(r"PASS=1 WARN=0 ERROR=0", res.stdout), res.stdout[-3000:]
    (dest / "seeds" / "shipments.csv").write_text(shipments_csv(extra_day="2031-06-01"))
    project.dbt("seed", "-s", "shipments")
    res = project.dbt("test", "-s", "tag:schema_link", check=False)
    assert re.search(r"PASS=0 WARN=1 ERROR=0", res.stdout), res.stdout[-3000:]
