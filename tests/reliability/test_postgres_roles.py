"""PostgreSQL under a read-only role, and credentials that must never leak.

* `profile` and `link` (with exact verification) run as a role that has only CONNECT, USAGE on
  the schema and SELECT on the tables. They succeed, and the server's statement log proves that
  the role sent no DDL/DML at all (`log_statement=all`, with the user name in each log line).
* A planted password (profiles.yml reads it from the environment) never appears in any output,
  any file under the project (target/, logs/, reports), or in error messages — including a run
  whose connection fails.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import build, cli
from tests.support.pgserver import server_log
from tests.writers.tinyshop import write_project as write_tinyshop

pytestmark = [pytest.mark.dbt, pytest.mark.postgres]

READER = "schema_link_reader"
SECRET = "pl4nted-S3cret-pa55word-7c1e"
#: Anything but reading: DDL, DML, privileges, maintenance, server-side COPY, SELECT INTO.
WRITE_RE = re.compile(
    r"^\s*(create|alter|drop|insert|update|delete|truncate|merge|grant|revoke|copy|comment|vacuum|"
    r"analyze|analyse|cluster|reindex|refresh|lock|call|do|import|security|reassign|discard\s+all)\b",
    re.IGNORECASE,
)
SELECT_INTO_RE = re.compile(r"^\s*select\b(?:(?!\bfrom\b).)*\binto\b", re.IGNORECASE | re.DOTALL)
LOG_ENTRY_RE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


@pytest.fixture(scope="module")
def reader_project(tmp_path_factory, pg_server) -> BuiltProject:
    pg_server.create_database("perms")
    root = write_tinyshop(tmp_path_factory.mktemp("perms") / "tinyshop")
    # install this package (tinyshop does not need it for write tests)
    from tests.conftest import REPO

    (root / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    owner = BuiltProject(root, "postgres", base_env(**pg_server.env("perms")))
    build(owner)
    for sql in (
        f"create role {READER} login password '{SECRET}'",
        f"grant connect on database perms to {READER}",
        f"grant usage on schema tinyshop to {READER}",
        f"grant select on all tables in schema tinyshop to {READER}",
    ):
        pg_server.psql(sql, dbname="perms")
    # Name the user in every log line (the harness logs every statement already).
    pg_server.psql("alter system set log_line_prefix = '%m [%p] user=%u db=%d '")
    pg_server.psql("select pg_reload_conf()")
    env = base_env(**{**pg_server.env("perms"), "SCHEMA_LINK_PG_USER": READER, "SCHEMA_LINK_PG_PASSWORD": SECRET})
    yield BuiltProject(root, "postgres", env)
    pg_server.psql("alter system reset log_line_prefix")
    pg_server.psql("select pg_reload_conf()")


def _statements(log: str, user: str) -> list[str]:
    """Statements the server logged for ``user`` (multi-line statements joined)."""
    entries: list[str] = []
    for line in log.splitlines():
        if LOG_ENTRY_RE.match(line):
            entries.append(line)
        elif entries:
            entries[-1] += "\n" + line
    out = []
    for entry in entries:
        if f" user={user} " not in entry:
            continue
        for marker in ("LOG:  statement: ", "LOG:  execute "):
            if marker in entry:
                text = entry.split(marker, 1)[1]
                out.append(text.split(": ", 1)[1] if marker == "LOG:  execute " else text)
    return out


def _strip_comments(sql: str) -> str:
    sql = re.sub(r"/\*.*?\*/", " ", sql, flags=re.DOTALL)
    return re.sub(r"--[^\n]*", " ", sql)


def test_read_only_role_can_profile_and_verify_and_sends_no_ddl_or_dml(reader_project, pg_server):
    # The role really is read-only: the server refuses it a table. That attempt is in the log,
    # attributed to the role and caught by the check below (the check can see a write).
    start = len(server_log(pg_server))
    with pytest.raises(RuntimeError, match="permission denied"):
        pg_server.psql("create table tinyshop.sneaky (i int)", dbname="perms", user=READER)
    before = len(server_log(pg_server))
    attempted = _statements(server_log(pg_server)[start:before], READER)
    assert any(WRITE_RE.match(_strip_comments(s)) for s in attempted), attempted
    profile = cli(reader_project, "profile", "--refresh")
    link = cli(reader_project, "link")
    assert "profiled model.tinyshop.orders" in profile.stderr
    assert "verifying" in link.stderr, link.stderr  # exact containment ran in the warehouse
    statements = _statements(server_log(pg_server)[before:], READER)
    assert len(statements) >= 10, f"the log attributes too few statements to {READER}: {statements[:5]}"
    assert any("tinyshop" in s and "select" in s.lower() for s in statements)
    writes = [s for s in statements
              if WRITE_RE.match(_strip_comments(s)) or SELECT_INTO_RE.match(_strip_comments(s))]
    assert writes == [], f"{READER} attempted {len(writes)} write(s): {writes[:3]}"


def _leaks(project: BuiltProject) -> list[str]:
    found = []
    for path in project.path.rglob("*"):
        if path.is_file() and "dbt_packages" not in path.parts:
            if SECRET.encode() in path.read_bytes():
                found.append(str(path.relative_to(project.path)))
    return found


def test_planted_password_never_leaks(reader_project):
    outputs = []
    for args in (("profile", "--refresh", "--json"), ("link",), ("write", "--dry-run"), ("write",)):
        res = cli(reader_project, *args, check=False)
        assert res.returncode in (0, 1), (args, res.stderr[-2000:])
        outputs.append(res.stdout + res.stderr)
    # The question-time index and an answer (they read what the runs above wrote).
    for args in (("index", "--model", "none"), ("ask", "which customers placed orders")):
        res = reader_project.cli(*args, "--project-dir", str(reader_project.path), check=False)
        assert res.returncode == 0, (args, res.stderr[-2000:])
        outputs.append(res.stdout + res.stderr)
    # A run that cannot connect: its error is about the connection, without the password.
    broken = BuiltProject(reader_project.path, reader_project.target,
                          {**reader_project.env, "SCHEMA_LINK_PG_PORT": "1"})
    res = cli(broken, "profile", "--refresh", check=False)
    assert res.returncode == 2 and res.stderr.strip().splitlines()[-1].startswith("error:"), res.stderr[-2000:]
    assert "Traceback" not in res.stderr
    outputs.append(res.stdout + res.stderr)
    # ... and one the server turns away (no such database): its error text is echoed, no password.
    res = cli(BuiltProject(reader_project.path, reader_project.target,
                           {**reader_project.env, "SCHEMA_LINK_PG_DBNAME": "no_such_db"}), "link", check=False)
    assert res.returncode == 2, res.stderr[-2000:]
    outputs.append(res.stdout + res.stderr)
    for text in outputs:
        assert SECRET not in text
    assert _leaks(reader_project) == []
    assert (reader_project.path / "target" / "schema_link" / "links.json").exists()
