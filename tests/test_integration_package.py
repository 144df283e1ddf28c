"""Install the package into integration_tests/ and run it for real on DuckDB and PostgreSQL.

For each adapter (module-scoped, one build each): copy integration_tests/ to a temporary
directory (packages.yml then points at this repository by absolute path), run ``dbt deps``,
``dbt seed``, ``dbt build``, then ``dbt --log-format json run-operation link_schemas`` and
``schema_link_containment``, and check the envelope they print. On PostgreSQL the server logs
every statement and the test checks that link_schemas issued no DDL/DML and read each table
once (pg_stat_user_tables.seq_scan deltas). On DuckDB it checks, from DuckDB's profiler output
for the statements dbt ran, that each column is read by one table scan.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from dbt_schema_link.profiling.envelope import PROFILE_FIELDS, assemble_relation, column_profile, relation_profile_to_json
import yaml

ROOT = Path(__file__).resolve().parents[1]
DBT = Path(sys.executable).parent / "dbt"
SENTINEL = "@@schema_link@@ "
PROJECT = "dbt_schema_link_integration_tests"

# small k keeps the output short; small max_columns_per_query chunks wide_table (20 columns);
# sample_rows below big_table's 5000 rows samples it (and nothing else)
LINK_ARGS = {"k": 16, "max_columns_per_query": 8, "sample_rows": 2000, "sample_percent": 50}
CONTAINMENT_PAIRS = [
    # "order" = 2 * customer_id (2..40) against customer ids 1..20: half of them match
    {"child": f"model.{PROJECT}.odd_names", "child_column": "order",
     "parent": f"model.{PROJECT}.stg_customers", "parent_column": "customer_id"},
    {"child": f"model.{PROJECT}.order_lines", "child_column": "order_id",
     "parent": f"model.{PROJECT}.stg_orders", "parent_column": "order_id"},
]
EXPECTED_RELATIONS = {
    f"model.{PROJECT}.big_table", f"model.{PROJECT}.customer_summary", f"model.{PROJECT}.empty_table",
    f"model.{PROJECT}.odd_names", f"model.{PROJECT}.order_lines", f"model.{PROJECT}.stg_customers",
    f"model.{PROJECT}.stg_orders", f"model.{PROJECT}.wide_table", f"model.{PROJECT}.with_json",
    f"seed.{PROJECT}.raw_customers", f"seed.{PROJECT}.raw_orders", f"source.{PROJECT}.landing.payments",
}


# --- running dbt and reading the envelope ---------------------------------------------------


@dataclass
class Envelope:
    begin: dict[str, Any]
    #: each relation line's profile as Python assembles it (profile cache form), with the line's
    #: database, schema, identifier and duplicates
    relations: list[dict[str, Any]] = field(default_factory=list)
    #: the relation lines as printed (statement rows, envelope v3)
    raw_relations: list[dict[str, Any]] = field(default_factory=list)
    containment: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None

    def relation(self, unique_id: str) -> dict[str, Any]:
        return next(r for r in self.relations if r["unique_id"] == unique_id)


@dataclass
class OperationRun:
    envelopes: list[Envelope]
    messages: list[str]
    sql: list[str]
    seconds: float


def parse_json_log(stdout: str) -> tuple[list[str], list[str]]:
    """(JinjaLogInfo messages, SQL statements from SQLQuery debug events), in order."""
    messages, sql = [], []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        name = event.get("info", {}).get("name")
        if name == "JinjaLogInfo":
            messages.append(event["data"]["msg"])
        elif name == "SQLQuery":
            sql.append(event["data"]["sql"])
    return messages, sql


def assembled(raw: dict[str, Any]) -> dict[str, Any]:
    """A relation line's profile as the CLI reads it, keyed as the line is."""
    where = {key: raw[key] for key in ("database", "schema", "identifier")}
    return {**relation_profile_to_json(assemble_relation(raw)), **where, "duplicates": raw["duplicates"]}


def parse_envelopes(messages: list[str]) -> list[Envelope]:
    envelopes: list[Envelope] = []
    for msg in messages:
        if not msg.startswith(SENTINEL):
            continue
        kind, _, body = msg[len(SENTINEL):].partition(" ")
        payload = json.loads(body)
        if kind == "begin":
            envelopes.append(Envelope(begin=payload))
        elif kind == "relation":
            envelopes[-1].raw_relations.append(payload)
            envelopes[-1].relations.append(assembled(payload))
        elif kind == "containment":
            envelopes[-1].containment.append(payload)
        elif kind == "end":
            envelopes[-1].end = payload
        else:
            raise AssertionError(f"unknown envelope line {kind!r}")
    return envelopes


@dataclass
class Project:
    path: Path
    target: str
    env: dict[str, str]

    def dbt(self, *args: str, json_log: bool = False, debug: bool = False) -> subprocess.CompletedProcess:
        cmd = [str(DBT)]
        if json_log:
            cmd += ["--log-format", "json"]
        if debug:
            cmd += ["--debug"]
        cmd += [*args, "--project-dir", str(self.path), "--profiles-dir", str(self.path), "--target", self.target]
        res = subprocess.run(cmd, cwd=self.path, env=self.env, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, f"{' '.join(cmd)} failed:\n{res.stdout[-6000:]}\n{res.stderr[-3000:]}"
        return res

    def operation(self, macro: str, args: dict[str, Any], debug: bool = False) -> OperationRun:
        start = time.perf_counter()
        res = self.dbt("run-operation", macro, "--args", json.dumps(args), json_log=True, debug=debug)
        seconds = time.perf_counter() - start
        messages, sql = parse_json_log(res.stdout)
        return OperationRun(parse_envelopes(messages), messages, sql, seconds)


def make_project(tmp: Path, target: str, extra_env: dict[str, str]) -> Project:
    dst = tmp / "integration_tests"
    shutil.copytree(
        ROOT / "integration_tests", dst,
        ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "package-lock.yml", "*.duckdb*"),
    )
    # `local: ../` would now point at the temporary directory: install the repository root
    # (SCHEMA_LINK_IT_PACKAGE_DIR may name another checkout of the package)
    package_dir = os.environ.get("SCHEMA_LINK_IT_PACKAGE_DIR") or str(ROOT)
    (dst / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(package_dir)}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBT_", "SCHEMA_LINK_"))}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", **extra_env})
    return Project(dst, target, env)


@dataclass
class AdapterRun:
    target: str
    link: OperationRun
    containment: OperationRun
    timings: dict[str, float]
    extra: dict[str, Any] = field(default_factory=dict)


def build(project: Project) -> dict[str, float]:
    timings = {}
    for step, args in [("deps", ["deps"]), ("seed", ["seed"]), ("build", ["build", "--exclude", "resource_type:seed"])]:
        start = time.perf_counter()
        project.dbt(*args)
        timings[step] = time.perf_counter() - start
    return timings


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def duckdb_run(tmp_path_factory: pytest.TempPathFactory) -> AdapterRun:
    if not DBT.exists():
        pytest.skip("dbt is not installed next to this Python")
    tmp = tmp_path_factory.mktemp("it_duckdb")
    db_path = tmp / "it.duckdb"
    project = make_project(tmp, "duckdb", {"SCHEMA_LINK_IT_DUCKDB_PATH": str(db_path)})
    timings = build(project)
    link = project.operation("link_schemas", LINK_ARGS, debug=True)
    timings["link_schemas"] = link.seconds
    containment = project.operation("schema_link_containment", {"pairs": CONTAINMENT_PAIRS})
    timings["schema_link_containment"] = containment.seconds
    return AdapterRun("duckdb", link, containment, timings, {"db_path": db_path})


def _pg_wait_idle(pg: Any, dbname: str) -> None:
    """Wait for dbt's backends to exit: a backend flushes its table statistics when it ends."""
    deadline = time.time() + 15
    while time.time() < deadline:
        others = pg.psql(
            f"select count(*) from pg_stat_activity where datname = '{dbname}' and pid <> pg_backend_pid()",
            dbname=dbname,
        )
        if int(others.strip() or 0) == 0:
            break
        time.sleep(0.2)
    time.sleep(0.5)


def _pg_scans(pg: Any, dbname: str) -> dict[tuple[str, str], int]:
    _pg_wait_idle(pg, dbname)
    out = pg.psql(
        "select pg_stat_clear_snapshot(); "
        "select schemaname || chr(31) || relname || chr(31) || seq_scan from pg_stat_user_tables",
        dbname=dbname,
    )
    scans = {}
    for line in out.splitlines():
        parts = line.split(chr(31))
        if len(parts) == 3:
            scans[(parts[0], parts[1])] = int(parts[2])
    return scans


@pytest.fixture(scope="module")
def postgres_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AdapterRun]:
    if not DBT.exists():
        pytest.skip("dbt is not installed next to this Python")
    from tests.support.pgserver import PostgresUnavailable, postgres_server, server_log

    try:
        server = postgres_server(log_statements=True)
        pg = server.__enter__()
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL is not available: {exc}")
    try:
        pg.create_database("it")
        tmp = tmp_path_factory.mktemp("it_postgres")
        project = make_project(tmp, "postgres", pg.env("it"))
        timings = build(project)

        before = _pg_scans(pg, "it")
        log_offset = len(server_log(pg))
        link = project.operation("link_schemas", LINK_ARGS)
        timings["link_schemas"] = link.seconds
        after = _pg_scans(pg, "it")
        statements = _pg_statements(server_log(pg)[log_offset:])

        containment = project.operation("schema_link_containment", {"pairs": CONTAINMENT_PAIRS})
        timings["schema_link_containment"] = containment.seconds
        yield AdapterRun("postgres", link, containment, timings,
                         {"scans_before": before, "scans_after": after, "statements": statements})
    finally:
        server.__exit__(None, None, None)


LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\] (?:\w+):\s+(?:statement: )?(.*)$")


def _pg_statements(log: str) -> list[str]:
    """Statements from a log_statement=all server log (continuation lines start with a tab)."""
    statements: list[str] = []
    current: list[str] | None = None
    for line in log.splitlines():
        m = LOG_LINE.match(line)
        if m:
            if current is not None:
                statements.append("\n".join(current))
            current = [m.group(1)] if "statement: " in line else None
        elif current is not None and line.startswith("\t"):
            current.append(line[1:])
    if current is not None:
        statements.append("\n".join(current))
    return statements


WRITE_WORDS = re.compile(
    r"\b(create|insert|update|delete|drop|alter|truncate|merge|copy|grant|revoke|vacuum|analyze|refresh|comment)\b",
    re.IGNORECASE,
)


def _strip_sql_noise(sql: str) -> str:
    """Remove comments, string literals and quoted identifiers (a column may be named "order")."""
    sql = re.sub(r"/\*.*?\*/", " ", sql, flags=re.DOTALL)
    sql = re.sub(r"--[^\n]*", " ", sql)
    sql = re.sub(r"'(?:[^']|'')*'", "''", sql)
    return re.sub(r'"(?:[^"]|"")*"', '""', sql)


# --- envelope checks shared by both adapters ------------------------------------------------


def _one_envelope(run: OperationRun) -> Envelope:
    assert len(run.envelopes) == 1, run.messages
    env = run.envelopes[0]
    assert env.end is not None, "no `end` line: the run was truncated"
    return env


def _col(relation: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in relation["columns"] if c["name"] == name)


def _minhash_values(col: dict[str, Any]) -> list[int]:
    """The k-value signature the CLI reads from a column (one-permutation pairs are densified)."""
    profile = column_profile(col)
    assert profile.minhash is not None, col
    return list(profile.minhash)


def check_link_envelope(run: OperationRun, adapter: str) -> Envelope:
    env = _one_envelope(run)
    begin = env.begin
    assert begin["format"] == "dbt_schema_link/profiles" and begin["format_version"] == 3
    assert begin["package_version"] == "0.1.0" and begin["adapter"] == adapter
    assert begin["options"]["k"] == 16 and begin["options"]["max_columns_per_query"] == 8
    assert env.end["relations"] == len(env.relations)
    assert env.end["containment"] == len(env.containment)
    assert {r["unique_id"] for r in env.relations} == EXPECTED_RELATIONS
    # not profiled: the ephemeral model; a source whose table was never loaded is reported
    assert env.end["skipped"] == [{"unique_id": f"source.{PROJECT}.raw.not_loaded", "reason": "relation does not exist"}]
    # the raw.raw_customers source is the seed's table: profiled once, listed as a duplicate
    assert env.relation(f"seed.{PROJECT}.raw_customers")["duplicates"] == [f"source.{PROJECT}.raw.raw_customers"]

    # the relation lines: the columns and every statement's rows in one shape, fields named
    raw_keys = ["unique_id", "database", "schema", "identifier", "relation", "row_estimate", "sampled",
                "sample_percent", "sample_method", "k", "top_n", "top_max_distinct", "columns", "chunks", "duplicates"]
    for raw in env.raw_relations:
        assert list(raw) == raw_keys
        assert all(list(c) == ["name", "data_type", "skipped"] for c in raw["columns"])
        profiled = [i for i, c in enumerate(raw["columns"]) if c["skipped"] is None]
        assert [p for chunk in raw["chunks"] for p in chunk["columns"]] == profiled
        for chunk in raw["chunks"]:
            assert tuple(chunk["fields"]) == PROFILE_FIELDS
            assert all(len(row) == len(PROFILE_FIELDS) for row in chunk["rows"])
            formats = {dict(zip(PROFILE_FIELDS, row))["minhash_format"] for row in chunk["rows"]}
            assert formats <= {"buckets", None}, formats  # one-permutation MinHash on every adapter here
    for rel in env.relations:
        for col in rel["columns"]:
            if col["skipped"] is None and col["non_null"] and col["minhash"] is not None:
                # one-permutation MinHash densified to k values (stored as its buckets when some
                # were empty)
                assert col["minhash_format"] in ("buckets", "minima") and len(col["minhash"].split(",")) <= 16
                assert len(_minhash_values(col)) == 16
                assert 0 < col["distinct"] <= col["non_null"]
                assert col["min_len"] <= col["max_len"]

    customers = env.relation(f"seed.{PROJECT}.raw_customers")
    assert customers["row_count"] == 20 and customers["sampled"] is False and customers["sample_percent"] is None
    assert _col(customers, "customer_id")["non_null"] == 20
    assert _col(customers, "customer_id")["distinct"] == 20
    assert (_col(customers, "customer_id")["min_value"], _col(customers, "customer_id")["max_value"]) == (1, 20)
    status = _col(customers, "status")
    assert status["min_value"] is None and status["max_value"] is None  # text: no numeric range
    assert status["distinct"] == 3 and status["top_values"] == ["active", "inactive", "churned"]
    assert status["flag_words"] is False
    assert _col(customers, "is_vip")["flag_words"] is True  # integer 0/1
    notes = _col(customers, "notes")  # all NULL
    assert (notes["non_null"], notes["distinct"], notes["minhash"], notes["top_values"]) == (0, 0, None, None)
    assert notes["min_len"] is None and notes["flag_words"] is False and notes["skipped"] is None

    orders = env.relation(f"seed.{PROJECT}.raw_orders")
    assert orders["row_count"] == 40
    assert _col(orders, "shipped")["flag_words"] is True  # boolean
    assert _col(orders, "order_status")["top_values"] == ["placed", "shipped", "returned"]
    assert _col(orders, "customer_id")["distinct"] == 20
    assert _col(orders, "customer_id")["flag_words"] is False

    empty = env.relation(f"model.{PROJECT}.empty_table")
    assert empty["row_count"] == 0 and [c["name"] for c in empty["columns"]] == ["id", "label"]
    assert all(c["non_null"] == 0 and c["distinct"] == 0 and c["minhash"] is None for c in empty["columns"])

    odd = env.relation(f"model.{PROJECT}.odd_names")
    assert [c["name"] for c in odd["columns"]] == [
        "first id", 'say "hi"', "MixedCase", "select", "order", "café_id", "名前"]
    assert all(c["skipped"] is None and c["non_null"] == 20 for c in odd["columns"])
    assert _col(odd, "select")["flag_words"] is True  # text '0'/'1'
    assert _col(odd, "MixedCase")["top_values"] == ["active", "inactive", "churned"]
    # one canonical text per value: the same values give the same signature in any relation
    assert _col(odd, "café_id")["minhash"] == _col(customers, "customer_id")["minhash"]
    assert _col(odd, "名前")["minhash"] == _col(customers, "name")["minhash"]

    lines = env.relation(f"model.{PROJECT}.order_lines")
    assert lines["identifier"] == "Order Lines" and lines["row_count"] == 60
    assert _col(lines, "Product Name")["non_null"] == 60

    with_json = env.relation(f"model.{PROJECT}.with_json")
    skipped = {c["name"]: c["skipped"] for c in with_json["columns"]}
    assert skipped["id"] is None
    assert skipped["payload"].startswith("unsupported type: ") and skipped["payload"].endswith("(json)")
    assert skipped["tags"].endswith("(array)") and skipped["raw_bytes"].endswith("(binary)")
    for name in ("payload", "tags", "raw_bytes"):
        c = _col(with_json, name)
        assert c["non_null"] == 0 and c["minhash"] is None

    wide = env.relation(f"model.{PROJECT}.wide_table")
    assert len(wide["columns"]) == 20 and wide["row_count"] == 50
    assert all(c["non_null"] == 50 for c in wide["columns"])

    big = env.relation(f"model.{PROJECT}.big_table")
    assert big["sampled"] is True and big["sample_percent"] == 50 and big["row_count"] == 5000
    # a sample of values (DuckDB, PostgreSQL): every row read, half of the id values kept
    assert big["sample_method"] == "values" and _col(big, "id")["non_null"] == 5000
    assert _col(big, "id")["distinct_approx"] and 4000 < _col(big, "id")["distinct"] < 6000

    summary = env.relation(f"model.{PROJECT}.customer_summary")  # a view
    assert summary["row_count"] == 3 and summary["sampled"] is False

    assert env.relation(f"source.{PROJECT}.landing.payments")["row_count"] == 30
    return env


def check_suggestions(run: OperationRun) -> dict[str, Any]:
    env = _one_envelope(run)
    by_pair = {(c["child"], c["child_column"], c["parent"], c["parent_column"]): c for c in env.containment}
    lines_to_orders = by_pair[(f"model.{PROJECT}.order_lines", "order_id", f"model.{PROJECT}.stg_orders", "order_id")]
    assert (lines_to_orders["child_distinct"], lines_to_orders["matched"]) == (30, 30)
    # already declared in schema.yml: not a candidate again
    assert not any(c["child"] == f"model.{PROJECT}.stg_orders" and c["child_column"] == "customer_id"
                   for c in env.containment)

    message = next(m for m in run.messages if "suggested relationships" in m)
    doc = yaml.safe_load(message.split("\n", 1)[1])
    tests = {}
    for block in ("models", "seeds"):
        for node in doc.get(block, []):
            for col in node["columns"]:
                tests[(node["name"], col["name"])] = col["data_tests"][0]["relationships"]["arguments"]
    for source in doc.get("sources", []):
        for table in source["tables"]:
            for col in table["columns"]:
                tests[(f"{source['name']}.{table['name']}", col["name"])] = \
                    col["data_tests"][0]["relationships"]["arguments"]
    assert tests == {
        ("order_lines", "order_id"): {"to": "ref('stg_orders')", "field": "order_id"},
        ("raw_orders", "customer_id"): {"to": "ref('raw_customers')", "field": "customer_id"},
        ("landing.payments", "order_id"): {"to": "ref('stg_orders')", "field": "order_id"},
    }
    return doc


def check_containment_run(run: OperationRun) -> None:
    env = _one_envelope(run)
    assert env.relations == [] and env.end["containment"] == 2
    got = {(c["child_column"], c["parent_column"]): (c["child_distinct"], c["matched"]) for c in env.containment}
    assert got == {("order", "customer_id"): (20, 10), ("order_id", "order_id"): (30, 30)}


def _structure(env: Envelope) -> dict[str, Any]:
    return {
        r["unique_id"]: {
            "keys": list(r),
            "identifier": r["identifier"],
            "sampled": r["sampled"],
            "columns": [(c["name"], list(c), c["skipped"] is None, c["flag_words"]) for c in r["columns"]],
            "duplicates": r["duplicates"],
        }
        for r in env.relations
    }


# --- tests ---------------------------------------------------------------------------------


def test_duckdb_link_schemas_envelope(duckdb_run: AdapterRun) -> None:
    env = check_link_envelope(duckdb_run.link, "duckdb")
    # exact where a column has a value sketch (its values are grouped), HyperLogLog elsewhere;
    # in a sample of values (big_table) sketched columns with many values are scaled estimates
    profiled = [c for r in env.relations for c in r["columns"] if c["skipped"] is None and c["non_null"]
                and r["sample_method"] != "values"]
    assert all(c["distinct_approx"] is (c["minhash"] is None) for c in profiled)
    assert {c["distinct_approx"] for c in profiled} == {True, False}


def test_duckdb_suggestions_and_containment(duckdb_run: AdapterRun) -> None:
    check_suggestions(duckdb_run.link)
    check_containment_run(duckdb_run.containment)


def _table_scans(node: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    """(table, projected columns) of every TABLE_SCAN in a DuckDB JSON profile."""
    if node.get("type") == "TABLE_SCAN":
        info = node.get("extra_info", {})
        cols = info.get("Projections", [])
        # the table as DuckDB names it: it.main."Order Lines" (quoted where a name needs it)
        yield info["Table"].replace('"', ""), [cols] if isinstance(cols, str) else list(cols)
    for child in node.get("children", []):
        yield from _table_scans(child)


def test_duckdb_reads_each_relation_once(duckdb_run: AdapterRun) -> None:
    """DuckDB's profiler (EXPLAIN (ANALYZE, FORMAT JSON)) on each profiling statement dbt ran:
    DuckDB stores columns apart, so "one read" means each column's values are read by one table
    scan of the statement (a union branch per sketched column, one wide scan for the rest), and
    the statements of a table together read exactly its profiled columns."""
    duckdb = pytest.importorskip("duckdb")
    env = _one_envelope(duckdb_run.link)
    profile_sql = [s for s in duckdb_run.link.sql if "as row_count" in s]
    assert profile_sql, "no profiling statement captured"
    con = duckdb.connect(str(duckdb_run.extra["db_path"]), read_only=True)
    read: dict[str, list[str]] = {}  # relation -> its own columns read by its profiling statements
    try:
        for sql in profile_sql:
            plan = json.loads(con.execute("explain (analyze, format json) " + sql).fetchall()[0][1])
            scans = [scan for op in plan["operator"] for scan in _table_scans(op)]
            assert scans, sql
            per_statement = [(table, col) for table, cols in scans for col in cols]
            twice = {pair for pair in per_statement if per_statement.count(pair) > 1}
            assert not twice, f"columns read by more than one scan of one statement: {sorted(twice)}\n{sql}"
            target = re.search(r'from "([^"]+)"\."([^"]+)"\."((?:[^"]|"")+)"', sql).groups()
            own = ".".join(target).replace('"', "")  # the relation this statement profiles
            read.setdefault(own, []).extend(col for table, col in per_statement if table == own)
    finally:
        con.close()
    checked = []
    for rel in env.relations:
        table = f"{rel['database']}.{rel['schema']}.{rel['identifier']}"
        if not read.get(table):  # a view: its statement reads the view's base table (checked above)
            continue
        profiled = sorted(c["name"] for c in rel["columns"] if c["skipped"] is None)
        assert sorted(read[table]) == profiled, table
        checked.append(table)
    unchecked = sorted({f"{r['database']}.{r['schema']}.{r['identifier']}" for r in env.relations} - set(checked))
    assert len(unchecked) <= 1, unchecked  # only one relation is a view


def test_postgres_link_schemas_envelope(postgres_run: AdapterRun) -> None:
    env = check_link_envelope(postgres_run.link, "postgres")
    # exact distinct counts on PostgreSQL, but for the sample of values (big_table)
    assert all(c["distinct_approx"] is False for r in env.relations for c in r["columns"]
               if c["skipped"] is None and not r["sampled"])
    orders = env.relation(f"seed.{PROJECT}.raw_orders")
    assert _col(orders, "order_id")["distinct"] == 40
    # signed 64-bit minima in the statement's rows (Python maps them to unsigned)
    raw_orders = next(r for r in postgres_run.link.envelopes[0].raw_relations
                      if r["unique_id"] == f"seed.{PROJECT}.raw_orders")
    minhashes = [dict(zip(PROFILE_FIELDS, row))["minhash"] for chunk in raw_orders["chunks"] for row in chunk["rows"]]
    assert any(":-" in v for m in minhashes if m for v in m.split(","))


def test_postgres_suggestions_and_containment(postgres_run: AdapterRun) -> None:
    check_suggestions(postgres_run.link)
    check_containment_run(postgres_run.containment)


def test_postgres_link_schemas_is_read_only(postgres_run: AdapterRun) -> None:
    statements = postgres_run.extra["statements"]
    assert any("grouping sets" in s for s in statements), "statement log did not capture the run"
    writes = [s for s in statements if WRITE_WORDS.search(_strip_sql_noise(s))]
    assert writes == []


def test_postgres_reads_each_relation_once(postgres_run: AdapterRun) -> None:
    env = _one_envelope(postgres_run.link)
    before, after = postgres_run.extra["scans_before"], postgres_run.extra["scans_after"]
    by_uid = {r["unique_id"]: r for r in env.relations}
    expected: dict[tuple[str, str], int] = {}
    for rel in env.relations:
        if rel["unique_id"].endswith(".customer_summary"):
            continue  # a view: it has no scan counter, its base table stg_customers is read
        profiled = sum(1 for c in rel["columns"] if c["skipped"] is None)
        # one statement per chunk of max_columns_per_query columns; a sample of values reads
        # every row too (a TABLESAMPLE scan would not count as seq_scan)
        chunks = max(1, math.ceil(profiled / LINK_ARGS["max_columns_per_query"]))
        expected[(rel["schema"], rel["identifier"])] = chunks
    summary = by_uid[f"model.{PROJECT}.customer_summary"]
    expected[(summary["schema"], "stg_customers")] += 1  # profiling the view reads its base table
    for c in env.containment:  # suggest verified these: one read of the child and of the parent
        for uid in (c["child"], c["parent"]):
            expected[(by_uid[uid]["schema"], by_uid[uid]["identifier"])] += 1
    deltas = {key: after.get(key, 0) - before.get(key, 0) for key in expected}
    print("\nPostgreSQL seq_scan deltas during link_schemas:", deltas)
    assert deltas == expected
    assert expected[("it", "wide_table")] == 3  # 20 columns in chunks of 8
    big_reads = [s for s in postgres_run.extra["statements"] if re.search(r'from\s+"it"\."it"\."big_table"', s)]
    assert len(big_reads) == 1 and "tablesample" not in big_reads[0] and "hashtextextended" in big_reads[0]
    print(f"PostgreSQL timings: { {k: round(v, 1) for k, v in postgres_run.timings.items()} }")


def test_same_structure_on_duckdb_and_postgres(duckdb_run: AdapterRun, postgres_run: AdapterRun) -> None:
    duck, pg = _one_envelope(duckdb_run.link), _one_envelope(postgres_run.link)
    assert _structure(duck) == _structure(pg)
    assert list(duck.begin) == list(pg.begin) and list(duck.end) == list(pg.end)
    assert duck.begin["options"] == pg.begin["options"]
    for rel in duck.relations:
        other = pg.relation(rel["unique_id"])
        if rel["sampled"]:
            continue
        assert rel["row_count"] == other["row_count"], rel["unique_id"]
        for a, b in zip(rel["columns"], other["columns"]):
            assert a["non_null"] == b["non_null"], (rel["unique_id"], a["name"])
            if a["distinct_approx"]:  # DuckDB's count is HyperLogLog here, PostgreSQL's exact
                assert abs(a["distinct"] - b["distinct"]) <= max(2, 0.05 * b["distinct"]), (rel["unique_id"], a["name"])
            elif a["distinct"] is not None:
                assert a["distinct"] == b["distinct"], (rel["unique_id"], a["name"])
