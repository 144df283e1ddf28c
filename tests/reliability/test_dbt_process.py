"""When the envelope dbt prints is unusable mid-run, the CLI stops with one line and does not
leave dbt running behind it (a fake dbt stands in: it prints a bad envelope, then would run on)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dbt_schema_link import __version__
from tests.conftest import base_env
from tests.reliability.test_fuzz_inputs import catalog_doc, manifest_doc

FAKE_DBT = """#!{python}
import json, os, sys, time
open({pidfile!r}, "w").write(str(os.getpid()))
def log(msg):
    print(json.dumps({{"info": {{"name": "JinjaLogInfo", "level": "info", "msg": msg}}, "data": {{"msg": msg}}}}), flush=True)
log("Running with dbt=1.11.16")
log({line!r})
time.sleep(60)
"""
BAD_LINES = {
    "unknown version": '@@schema_link@@ begin {"format": "dbt_schema_link/profiles", "format_version": 99}',
    "not an object": "@@schema_link@@ relation [1, 2]",
    "truncated": '@@schema_link@@ relation {"unique_id": "model.p.orders", "columns": [',
}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_bad_envelope_stops_cleanly_and_kills_dbt(tmp_path, case):
    project = tmp_path / "p"
    (project / "target").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: p\nversion: '1.0'\nprofile: p\n")
    (project / "target" / "manifest.json").write_text(json.dumps(manifest_doc()))
    (project / "target" / "catalog.json").write_text(json.dumps(catalog_doc()))
    installed = project / "dbt_packages" / "dbt_schema_link"  # as `dbt deps` leaves it (the CLI checks)
    installed.mkdir(parents=True)
    (installed / "dbt_project.yml").write_text(f"name: dbt_schema_link\nversion: '{__version__}'\n")
    pidfile = tmp_path / "dbt.pid"
    fake = tmp_path / "fake_dbt"
    fake.write_text(FAKE_DBT.format(python=sys.executable, pidfile=str(pidfile), line=BAD_LINES[case]))
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    start = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "dbt_schema_link", "profile", "--project-dir", str(project),
                          "--dbt", str(fake), "--quiet"], capture_output=True, text=True, env=base_env(), timeout=120)
    assert time.monotonic() - start < 30, "the CLI waited for dbt to finish"
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.stderr, res.stderr
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = _alive(pid)
    if alive:
        os.kill(pid, 9)
    assert not alive, "dbt was left running after the CLI gave up on it"
