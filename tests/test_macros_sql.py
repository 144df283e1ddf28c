"""Render the package's real macro files outside dbt and check the SQL they produce.

A small Jinja harness loads every macro in ``macros/`` the way dbt does (one template per macro,
so ``{{ return(...) }}`` works and sibling macros are resolved through the context), with stub
``adapter.dispatch`` / ``adapter.quote`` / relation objects for each adapter (the search order
includes the parent adapter, as dbt's: redshift -> postgres, databricks -> spark). The rendered
profiling and containment SQL must parse with sqlglot in that adapter's dialect and must read the
relation once. The DuckDB SQL is also executed. Finally ``sqlfluff lint macros/`` must pass with
the committed ``.sqlfluff``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jinja2

from dbt_schema_link.profiling.envelope import PROFILE_FIELDS
import pytest
import sqlglot
import yaml
from sqlglot import exp

ROOT = Path(__file__).resolve().parents[1]
MACROS = ROOT / "macros"

ADAPTERS = ["duckdb", "postgres", "snowflake", "bigquery", "redshift", "databricks"]
PARENTS = {"redshift": ["postgres"], "databricks": ["spark"]}
SQLGLOT_DIALECT = {a: a for a in ADAPTERS}

MACRO_RE = re.compile(
    r"\{%-?\s*macro\s+(\w+)\s*\(.*?\{%-?\s*endmacro\s*-?%\}", re.DOTALL
)

ODD_COLUMNS = [
    {"name": "order_id", "data_type": "integer"},
    {"name": "customer_id", "data_type": "integer"},
    {"name": 'say "hi"', "data_type": "varchar"},
    {"name": "Mixed Case", "data_type": "varchar"},
    {"name": "select", "data_type": "varchar"},
    {"name": "order", "data_type": "integer"},
    {"name": "café_id", "data_type": "integer"},
    {"name": "名前", "data_type": "varchar"},
]


class MacroReturn(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


class CompilerError(Exception):
    pass


def _return(value: Any) -> None:
    raise MacroReturn(value)


def _raise_compiler_error(msg: str) -> None:
    raise CompilerError(msg)


@dataclass
class FakeRelation:
    database: str
    schema: str
    identifier: str
    quote_char: str = '"'

    def _q(self, part: str) -> str:
        return f"{self.quote_char}{part}{self.quote_char}"

    def render(self) -> str:
        return ".".join(self._q(p) for p in (self.database, self.schema, self.identifier))

    def __str__(self) -> str:
        return self.render()


class FakeAdapter:
    def __init__(self, harness: "Harness", adapter_type: str) -> None:
        self._harness = harness
        self._type = adapter_type

    def type(self) -> str:
        return self._type

    def quote(self, identifier: str) -> str:
        q = "`" if self._type in ("bigquery", "databricks", "spark") else '"'
        return f"{q}{identifier}{q}"

    def get_relation(self, database: str, schema: str, identifier: str) -> FakeRelation | None:
        if (database, schema, identifier) in self._harness.existing:
            return FakeRelation(database, schema, identifier, self.quote("")[0])
        return None

    def dispatch(self, name: str, namespace: str | None = None):
        assert namespace == "dbt_schema_link"
        for prefix in [self._type, *PARENTS.get(self._type, []), "default"]:
            candidate = f"{prefix}__{name}"
            if candidate in self._harness.sources:
                return self._harness.context[candidate]
        raise KeyError(f"no implementation of {name} for {self._type}")


class MacroFn:
    """What dbt's MacroGenerator does: render the macro's own template with the full context and
    turn ``return(...)`` into the call's value."""

    def __init__(self, harness: "Harness", name: str) -> None:
        self.harness = harness
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        module = self.harness.module(self.name)
        try:
            return str(getattr(module, self.name)(*args, **kwargs))
        except MacroReturn as ret:
            return ret.value


class Harness:
    def __init__(self, adapter_type: str, dbt_version: str = "1.11.16") -> None:
        self.env = jinja2.Environment(
            extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"],
            undefined=jinja2.StrictUndefined,
        )
        self.sources: dict[str, str] = {}
        for path in sorted(MACROS.glob("*.sql")):
            text = path.read_text(encoding="utf-8")
            for m in MACRO_RE.finditer(text):
                assert m.group(1) not in self.sources, f"macro {m.group(1)} defined twice"
                self.sources[m.group(1)] = m.group(0)
        self._modules: dict[str, Any] = {}
        self.existing: set[tuple[str, str, str]] = set()
        #: the project's vars, as dbt's var() reads them
        self.vars: dict[str, Any] = {}
        self.adapter = FakeAdapter(self, adapter_type)
        self.context: dict[str, Any] = {
            "adapter": self.adapter,
            "return": _return,
            "exceptions": SimpleNamespace(raise_compiler_error=_raise_compiler_error),
            "modules": SimpleNamespace(re=re),
            "tojson": lambda v, default=None, sort_keys=False: json.dumps(v, sort_keys=sort_keys),
            "fromjson": lambda s, default=None: json.loads(s),
            "log": lambda *a, **k: "",
            "target": SimpleNamespace(type=adapter_type),
            "dbt_version": dbt_version,
            "execute": True,
            "graph": {"nodes": {}, "sources": {}},
            "project_name": "proj",
            "var": lambda name, default=None: self.vars.get(name, default),
        }
        for name in self.sources:
            self.context[name] = MacroFn(self, name)
        # the package's own namespace, as dbt gives it: the macros call each other through it
        self.context["dbt_schema_link"] = SimpleNamespace(**{name: self.context[name] for name in self.sources})

    def module(self, name: str) -> Any:
        if name not in self._modules:
            template = self.env.from_string(self.sources[name])
            self._modules[name] = template.make_module(vars=self.context)
        return self._modules[name]

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self.context[name](*args, **kwargs)

    def relation(self, identifier: str = "Order Lines") -> FakeRelation:
        q = self.adapter.quote("")[0]
        return FakeRelation("analytics", "Mixed Schema", identifier, q)


def _profile_sql(adapter: str, sample_percent: float | None = None, k: int = 128) -> tuple[str, FakeRelation]:
    h = Harness(adapter)
    rel = h.relation()
    options = {"k": k, "top_n": 10, "top_max_distinct": 50, "sample_percent": sample_percent, "sample_seed": 42}
    return h.call("schema_link_profile_sql", rel, ODD_COLUMNS, options), rel


_OPH_HASH = {"duckdb": "hash(v)", "postgres": "hashtextextended(val, 0)", "databricks": "xxhash64(v)"}
_OPH_BUCKET = {"duckdb": "hash(v) % 128", "postgres": "mod(mod(h, 128) + 128, 128)", "databricks": "pmod(xxhash64(v), 128)"}


def _tables(tree: exp.Expression, identifier: str) -> list[exp.Table]:
    return [t for t in tree.find_all(exp.Table) if t.name == identifier]


# --- profiling and containment SQL parse in every dialect -----------------------------------


@pytest.mark.parametrize("sample_percent", [None, 10])
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_profile_sql_parses_and_reads_relation_once(adapter: str, sample_percent: float | None) -> None:
    sql, rel = _profile_sql(adapter, sample_percent)
    tree = sqlglot.parse_one(sql, read=SQLGLOT_DIALECT[adapter])
    assert isinstance(tree, (exp.Select, exp.Union))
    # one read of the relation per statement: it appears in exactly one FROM
    assert len(_tables(tree, rel.identifier)) == 1, sql
    # every column is read through a quoted identifier
    for col in ODD_COLUMNS:
        assert h_quote(adapter, col["name"]) in sql
    if adapter in _OPH_HASH:
        # one-permutation MinHash over each column's distinct values: one hash, k buckets
        # (databricks: Spark's statement, executed in tests/test_spark.py)
        assert sql.count(_OPH_HASH[adapter]) == (1 if adapter == "postgres" else 2), sql
        assert _OPH_BUCKET[adapter] in sql, sql
    else:
        # k seeded MinHash minima per column
        sample_hashes = 1 if (adapter == "redshift" and sample_percent) else 0  # its WHERE-clause sample
        assert sql.count(_hash_fn(adapter)) - sample_hashes == 128 * len(ODD_COLUMNS)
    if sample_percent is None:
        assert "sample" not in sql.lower() and "random()" not in sql
    elif adapter != "redshift":
        assert "sample" in sql.lower()


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_containment_sql_parses(adapter: str) -> None:
    h = Harness(adapter)
    child, parent = h.relation("Order Lines"), h.relation("orders")
    pairs = [
        {"child_relation": child, "child_column": "order_id", "parent_relation": parent, "parent_column": "order_id"},
        {"child_relation": child, "child_column": 'say "hi"', "parent_relation": parent, "parent_column": "名前"},
    ]
    sql = h.call("schema_link_containment_sql", pairs)
    tree = sqlglot.parse_one(sql, read=SQLGLOT_DIALECT[adapter])
    assert isinstance(tree, exp.Union)
    assert len(_tables(tree, "Order Lines")) == 2
    assert len(_tables(tree, "orders")) == 2
    assert sql.count("union all") == 1


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_profile_sql_without_columns_counts_rows(adapter: str) -> None:
    h = Harness(adapter)
    rel = h.relation("empty")
    sql = h.call("schema_link_profile_sql", rel, [], {"k": 4, "sample_percent": None})
    tree = sqlglot.parse_one(sql, read=SQLGLOT_DIALECT[adapter])
    assert len(_tables(tree, "empty")) == 1


# --- building blocks per adapter -------------------------------------------------------------


def h_quote(adapter: str, name: str) -> str:
    if adapter == "bigquery":
        return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
    if adapter == "databricks":
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def _hash_fn(adapter: str) -> str:
    return {
        "duckdb": "hash(xor(",
        "postgres": "hashtextextended(",
        "snowflake": "hash(",
        "bigquery": "farm_fingerprint(",
        "redshift": "fnv_hash(",
        "databricks": "xxhash64(",
    }[adapter]


@pytest.mark.parametrize(
    "adapter,expected",
    [
        # DuckDB's own hash(v, seed) is hash(v) XOR a per-seed constant: mixed again instead
        ("duckdb", "hash(xor(hash(v), hash(7)))"),
        ("postgres", "hashtextextended(v, 7)"),
        ("snowflake", "hash(v, 7)"),
        ("bigquery", "farm_fingerprint(concat('7', v))"),
        ("redshift", "fnv_hash(v, 7)"),
        ("databricks", "xxhash64(v, 7)"),
    ],
)
def test_hash(adapter: str, expected: str) -> None:
    assert Harness(adapter).call("schema_link_hash", "v", 7) == expected


@pytest.mark.parametrize(
    "adapter,expected",
    [
        ("duckdb", "using sample 12.5% (bernoulli, 3)"),
        ("postgres", "tablesample bernoulli (12.5) repeatable (3)"),
        ("snowflake", "sample bernoulli (12.5) seed (3)"),
        ("bigquery", "tablesample system (12.5 percent)"),
        ("databricks", "tablesample (12.5 percent) repeatable (3)"),
        ("redshift", "where abs(mod(fnv_hash(k, 3), 1000000)) < 125000"),
    ],
)
def test_sample_clause(adapter: str, expected: str) -> None:
    assert Harness(adapter).call("schema_link_sample_clause", 12.5, 3, "k") == expected


@pytest.mark.parametrize(
    "adapter,approx,fn",
    [
        ("duckdb", True, "approx_count_distinct(x)"),
        ("postgres", False, "count(distinct x)"),
        ("snowflake", True, "approx_count_distinct(x)"),
        ("bigquery", True, "approx_count_distinct(x)"),
        ("redshift", True, "approximate count(distinct x)"),
        ("databricks", True, "approx_count_distinct(x)"),
    ],
)
def test_approx_distinct(adapter: str, approx: bool, fn: str) -> None:
    h = Harness(adapter)
    assert h.call("schema_link_approx_distinct", "x") == fn
    assert h.call("schema_link_distinct_is_approx") is approx


def test_sample_percent_out_of_range_is_an_error() -> None:
    with pytest.raises(CompilerError, match=r"\(0, 100\]"):
        Harness("duckdb").call("schema_link_sample_clause", 0, 1)


@pytest.mark.parametrize(
    "data_type,kind",
    [
        ("JSON", "json"), ("jsonb", "json"), ("VARIANT", "json"), ("super", "json"),
        ("BLOB", "binary"), ("bytea", "binary"), ("BYTES", "binary"), ("binary", "binary"),
        ("INTEGER[]", "array"), ("ARRAY", "array"), ("array<string>", "array"), ("VARCHAR[3]", "array"),
        ("STRUCT(a INTEGER)", "struct"), ("struct<a:int>", "struct"), ("RECORD", "struct"),
        ("MAP(VARCHAR, INTEGER)", "map"), ("GEOGRAPHY", "spatial"),
    ],
)
def test_skip_reason_unhashable(data_type: str, kind: str) -> None:
    reason = Harness("duckdb").call("schema_link_skip_reason", data_type)
    assert reason == f"unsupported type: {data_type} ({kind})"


@pytest.mark.parametrize("data_type", ["INTEGER", "character varying", "text", "BOOLEAN", "DATE", "numeric", "uuid", None])
def test_skip_reason_hashable(data_type: str | None) -> None:
    assert Harness("postgres").call("schema_link_skip_reason", data_type) is None


def test_quote_escapes_quote_characters() -> None:
    assert Harness("postgres").call("schema_link_quote", 'say "hi"') == '"say ""hi"""'
    assert Harness("databricks").call("schema_link_quote", "a`b") == "`a``b`"
    assert Harness("bigquery").call("schema_link_quote", "a`b") == "`a\\`b`"


def test_options_defaults_and_validation() -> None:
    h = Harness("duckdb")
    opts = h.call("schema_link_resolve_options", {"k": 16, "select": "stg_orders"})
    assert opts["k"] == 16 and opts["select"] == ["stg_orders"]
    assert opts["sample_rows"] == 1_000_000 and opts["sample_percent"] == 10
    assert opts["top_n"] == 500 and opts["top_max_distinct"] == 500 and opts["max_columns_per_query"] == 60
    assert opts["envelope"] is True and opts["suggest"] is True and opts["min_containment"] == 0.98
    with pytest.raises(CompilerError, match=r"k must be an integer in \[8, 1024\]"):
        h.call("schema_link_resolve_options", {"k": 7})
    with pytest.raises(CompilerError, match="unknown option"):
        h.call("schema_link_resolve_options", {"kk": 3})
    with pytest.raises(CompilerError, match="min_containment"):
        h.call("schema_link_resolve_options", {"min_containment": 1.5})


def test_entity_names() -> None:
    h = Harness("duckdb")
    prefixes = h.call("schema_link__rules")["table_prefixes"]
    names = {n: h.call("schema_link__entity_name", n, prefixes) for n in
             ["stg_customers", "dim_categories", "fct_orders", "raw_addresses", "Order Lines", "status", "statuses"]}
    assert names == {
        "stg_customers": "customer", "dim_categories": "category", "fct_orders": "order",
        "raw_addresses": "address", "Order Lines": "order line", "status": "status", "statuses": "status",
    }


def test_relationships_yaml_is_valid_dbt_yaml() -> None:
    h = Harness("postgres")
    model = {"unique_id": "model.p.stg_orders", "resource_type": "model", "name": "stg_orders", "source_name": None}
    seed = {"unique_id": "seed.p.raw_customers", "resource_type": "seed", "name": "raw_customers", "source_name": None}
    src = {"unique_id": "source.p.landing.payments", "resource_type": "source", "name": "payments", "source_name": "landing"}
    links = [
        {"child_entry": model, "child_column": "customer_id", "parent_entry": seed, "parent_column": "customer_id",
         "child_distinct": 3, "matched": 3},
        {"child_entry": src, "child_column": "Order Id", "parent_entry": model, "parent_column": "Order Id",
         "child_distinct": 5, "matched": 5},
    ]
    text = h.call("schema_link_relationships_yaml", links)
    doc = yaml.safe_load(text)
    test = doc["models"][0]["columns"][0]["data_tests"][0]["relationships"]
    assert test == {"arguments": {"to": "ref('raw_customers')", "field": "customer_id"}}
    col = doc["sources"][0]["tables"][0]["columns"][0]
    assert doc["sources"][0]["name"] == "landing" and col["name"] == "Order Id" and col["quote"] is True
    assert col["data_tests"][0]["relationships"]["arguments"] == {"to": "ref('stg_orders')", "field": '"Order Id"'}
    # before dbt 1.10.5 `arguments:` breaks compilation: inputs sit directly under the test
    old = yaml.safe_load(Harness("postgres", dbt_version="1.9.4").call("schema_link_relationships_yaml", links[:1]))
    assert old["models"][0]["columns"][0]["data_tests"][0]["relationships"] == {
        "to": "ref('raw_customers')", "field": "customer_id"}


def _node(resource_type: str, name: str, materialized: str = "table", package: str = "proj", alias: str | None = None):
    return {
        "unique_id": f"{resource_type}.{package}.{name}", "resource_type": resource_type, "package_name": package,
        "name": name, "database": "db", "schema": "s", "alias": alias or name, "config": {"materialized": materialized},
    }


def test_collect_relations_select_exclude_dedupe() -> None:
    h = Harness("postgres")
    nodes = [
        _node("model", "stg_orders"), _node("model", "order_lines", alias="Order Lines"),
        _node("model", "eph", materialized="ephemeral"), _node("seed", "raw_customers"),
        _node("model", "not_built"), _node("test", "not_null_x"), _node("analysis", "a1"),
        _node("model", "other_pkg_model", package="dep"),
    ]
    sources = [
        {"unique_id": "source.proj.raw.raw_customers", "resource_type": "source", "package_name": "proj",
         "source_name": "raw", "name": "raw_customers", "identifier": "raw_customers", "database": "db", "schema": "s"},
        {"unique_id": "source.proj.raw.gone", "resource_type": "source", "package_name": "proj",
         "source_name": "raw", "name": "gone", "identifier": "gone", "database": "db", "schema": "s"},
    ]
    h.context["graph"] = {"nodes": {n["unique_id"]: n for n in nodes}, "sources": {s["unique_id"]: s for s in sources}}
    h.existing = {("db", "s", n) for n in ["stg_orders", "Order Lines", "raw_customers", "other_pkg_model", "a1"]}

    found = h.call("schema_link_collect_relations", None, None)
    assert [r["unique_id"] for r in found["relations"]] == [
        "model.proj.order_lines", "model.proj.stg_orders", "seed.proj.raw_customers"]
    assert found["relations"][2]["duplicates"] == ["source.proj.raw.raw_customers"]
    assert str(found["relations"][0]["relation"]) == '"db"."s"."Order Lines"'
    assert found["skipped"] == [
        {"unique_id": "model.proj.not_built", "reason": "relation does not exist"},
        {"unique_id": "source.proj.raw.gone", "reason": "relation does not exist"},
    ]
    selected = h.call("schema_link_collect_relations", ["stg_orders", "raw.gone", "seed.proj.raw_customers"], ["raw_customers"])
    assert [r["unique_id"] for r in selected["relations"]] == ["model.proj.stg_orders"]
    assert [s["unique_id"] for s in selected["skipped"]] == ["source.proj.raw.gone"]
    everything = h.call("schema_link_collect_relations", ["other_pkg_model"], None, True)
    assert [r["unique_id"] for r in everything["relations"]] == ["model.dep.other_pkg_model"]


# --- the DuckDB SQL runs and gives the right numbers ----------------------------------------


def test_every_statement_shape_runs_on_duckdb_with_the_same_fields() -> None:
    """The default statement (one wide aggregate turned into a row per column: Snowflake,
    BigQuery, Redshift) and the no-column statement return PROFILE_FIELDS as DuckDB's own does,
    with the same counts."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("create table t as select i as id, case when i % 2 = 0 then 'y' else 'n' end as yn, "
                "case when i < 5 then null else 'v' || (i % 7) end as label from range(40) r(i)")
    rel = FakeRelation("memory", "main", "t")
    rel.type = "table"
    cols = [{"name": "id", "data_type": "integer"}, {"name": "yn", "data_type": "varchar"},
            {"name": "label", "data_type": "varchar"}]
    options = {"k": 8, "top_n": 3, "top_max_distinct": 50, "sample_percent": None, "sample_seed": 42}
    shapes = {}
    for adapter in ("duckdb", "default"):
        h = Harness("duckdb")
        sql = h.call("schema_link_profile_sql" if adapter == "duckdb" else "default__schema_link_profile_sql",
                     rel, cols, options)
        cur = con.execute(sql)
        assert tuple(d[0] for d in cur.description) == PROFILE_FIELDS, adapter
        shapes[adapter] = {r[0]: dict(zip(PROFILE_FIELDS, r)) for r in cur.fetchall()}
    duck, wide = shapes["duckdb"], shapes["default"]
    assert sorted(duck) == sorted(wide) == [0, 1, 2]
    for i in range(3):
        for field in ("row_count", "non_null", "min_len", "max_len"):
            assert duck[i][field] == wide[i][field], (i, field)
        assert (duck[i]["flag_bad"] == 0) == (wide[i]["flag_bad"] == 0), i
    assert [wide[i]["non_null"] for i in range(3)] == [40, 40, 35]
    assert {wide[i]["minhash_format"] for i in range(3)} == {"minima"}
    assert {duck[i]["minhash_format"] for i in range(3)} == {"buckets"}
    assert len(wide[0]["minhash"].split(",")) == 8
    # a chunk with no columns: one row, the row count alone
    for name in ("schema_link_profile_sql", "default__schema_link_profile_sql", "postgres__schema_link_profile_sql"):
        cur = con.execute(Harness("duckdb").call(name, rel, [], options))
        assert tuple(d[0] for d in cur.description) == PROFILE_FIELDS, name
        assert cur.fetchall() == [(None, 40) + (None,) * 2 + (False,) + (None,) * 8], name


def test_duckdb_seeded_hashes_are_not_xor_related() -> None:
    """DuckDB's hash(v, i) is hash(v) XOR c(i): the k minima would share one ordering. The
    package's seeded hash must not have that structure."""
    duckdb = pytest.importorskip("duckdb")
    h = Harness("duckdb")
    h1, h2 = h.call("schema_link_hash", "v", 1), h.call("schema_link_hash", "v", 2)
    rows = duckdb.connect().execute(
        f"select {h1}, {h2}, hash(v, 1), hash(v, 2) from (values ('a'), ('b'), ('hello')) as t (v)").fetchall()
    assert len({a ^ b for a, b, _, _ in rows}) == 3
    assert len({c ^ d for _, _, c, d in rows}) == 1  # DuckDB's own: why it is not used


def test_duckdb_profile_sql_executes() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute('create schema "Mixed Schema"')
    con.execute(
        'create table "Mixed Schema"."Order Lines" as select i as order_id, i % 3 as customer_id, '
        "case when i % 2 = 0 then 'yes' else 'no' end as \"say \"\"hi\"\"\", 'x' || (i % 4) as \"Mixed Case\", "
        "null::varchar as \"select\", i as \"order\", i as \"café_id\", 'n' || i as \"名前\" from range(100) r(i)"
    )
    h = Harness("duckdb")
    rel = FakeRelation("memory", "Mixed Schema", "Order Lines")
    sql = h.call("schema_link_profile_sql", rel, ODD_COLUMNS, {"k": 8, "top_n": 3, "sample_percent": None})
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    # long shape: one row per column, keyed by col_idx, each carrying the row count
    rows = {r[0]: dict(zip(names, r)) for r in cur.fetchall()}
    assert sorted(rows) == list(range(len(ODD_COLUMNS)))
    assert {r["row_count"] for r in rows.values()} == {100}
    assert rows[0]["non_null"] == 100 and rows[0]["min_len"] == 1 and rows[0]["max_len"] == 2
    # distinct counts are exact (every sketched column's values are grouped)
    assert [rows[i]["distinct_count"] for i in range(8)] == [100, 3, 2, 4, 0, 100, 100, 100]
    assert not any(r["distinct_approx"] for r in rows.values())
    # every adapter's statement returns the same fields, in order
    assert tuple(names) == PROFILE_FIELDS
    # distinct values outside the flag words
    assert rows[2]["flag_bad"] == 0 and sorted(json.loads(rows[2]["top_values"])) == ["no", "yes"]
    assert rows[3]["flag_bad"] == 4 and rows[1]["flag_bad"] == 1  # x0..x3; 2 (0 and 1 are flag words)
    assert {rows[i]["minhash_format"] for i in range(8) if i != 4} == {"buckets"} and rows[4]["minhash_format"] is None
    assert rows[4]["non_null"] == 0 and rows[4]["minhash"] is None  # all NULL
    # same canonical text, same signature: integer order_id and "café_id" hash alike
    assert rows[0]["minhash"] == rows[6]["minhash"]
    # one-permutation MinHash: bucket = hash(canonical text) mod k, each bucket's minimum
    for idx, col in [(0, "order_id"), (3, "Mixed Case"), (7, "名前")]:
        canonical = h.call("schema_link_canonical_text", h_quote("duckdb", col))
        expected = con.execute(
            f"select hash(v) % 8 as b, min(hash(v)) from (select {canonical} as v from \"Mixed Schema\".\"Order Lines\") "
            "where v is not null group by b order by b").fetchall()
        assert rows[idx]["minhash"] == ",".join(f"{b}:{m}" for b, m in expected), col
    # exact top values, most frequent first, ties broken by the value (descending)
    assert json.loads(rows[3]["top_values"]) == ["x3", "x2", "x1"]
    assert json.loads(rows[1]["top_values"]) == ["0", "2", "1"]  # 34, 33, 33 rows
    # a table (not a view) is read column by column instead of through a materialized copy:
    # the same numbers either way
    table = FakeRelation("memory", "Mixed Schema", "Order Lines")
    table.type = "table"
    table_sql = h.call("schema_link_profile_sql", table, ODD_COLUMNS, {"k": 8, "top_n": 3, "sample_percent": None})
    assert "materialized" in sql and "materialized" not in table_sql
    assert sorted(con.execute(table_sql).fetchall()) == sorted(tuple(r.values()) for r in rows.values())
    # columns with no value sketch (floats, booleans, timestamps): counts only, approximate
    counted_cols = [{"name": "order_id", "data_type": "integer"}, {"name": "ratio", "data_type": "double"}]
    con.execute('create table "Mixed Schema".measures as select i as order_id, i / 7 as ratio from range(50) r(i)')
    mixed = con.execute(h.call("schema_link_profile_sql", FakeRelation("memory", "Mixed Schema", "measures"),
                                counted_cols, {"k": 8, "top_n": 3, "sample_percent": None})).fetchall()
    by_idx = {r[0]: r for r in mixed}
    assert by_idx[1][1:5] == (50, 50, by_idx[1][3], True) and by_idx[1][7] is None  # no MinHash
    assert by_idx[0][4] is False and by_idx[0][7] is not None
    # sampled: fewer rows, still one statement
    sampled = h.call("schema_link_profile_sql", rel, ODD_COLUMNS, {"k": 8, "sample_percent": 50, "sample_seed": 1})
    assert 0 < con.execute(sampled).fetchone()[1] < 100
    # a sample of values reads every row: the same counts as the full profile
    by_value = h.call("schema_link_profile_sql", rel, ODD_COLUMNS,
                      {"k": 8, "top_n": 3, "sample_percent": 50, "sample_seed": 1, "sample_method": "values"})
    assert "using sample" not in by_value
    assert {r[0]: r[1:3] for r in con.execute(by_value).fetchall()} == {i: (100, rows[i]["non_null"]) for i in rows}
    # no columns: the row count alone
    assert con.execute(h.call("schema_link_profile_sql", rel, [], {"k": 8, "sample_percent": None})).fetchall() == [
        (None, 100) + (None,) * 2 + (False,) + (None,) * 8]

    pairs = [{"child_relation": rel, "child_column": "customer_id", "parent_relation": rel, "parent_column": "order"}]
    res = con.execute(h.call("schema_link_containment_sql", pairs)).fetchall()
    assert res == [(0, 3, 3, 0)]  # pair, child distinct, matched, orphan rows


def test_duckdb_value_sample_keeps_the_values_below_one_threshold() -> None:
    """A value-coordinated sample (sample_method 'values') on real DuckDB: row and non-null counts
    exact; a low-cardinality column profiled exactly (its values above the threshold are named by
    their recovery groups); a high-cardinality one keeps the values whose hash is below the
    threshold, so its signature is the full column's wherever a bucket's minimum is kept, a
    child's kept values are its parent's (one threshold for both), and its distinct count is
    scaled by the kept fraction."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("create schema s")
    con.execute("create table s.child as select i % 20000 as parent_id, i % 7 as kind, "
                "case when i % 3 = 0 then null else 'c' || (i % 5000) end as code from range(60000) r(i)")
    con.execute("create table s.parent as select cast(i as varchar) as id from range(30000) r(i)")
    h = Harness("duckdb")
    cols = [{"name": "parent_id", "data_type": "bigint"}, {"name": "kind", "data_type": "integer"},
            {"name": "code", "data_type": "varchar"}]
    base = {"k": 64, "top_n": 3, "top_max_distinct": 50, "sample_seed": 1}

    def profile(table: str, columns: list, **opts: Any) -> dict:
        rel = FakeRelation("memory", "s", table)
        rel.type = "table"
        cur = con.execute(h.call("schema_link_profile_sql", rel, columns, {**base, **opts}))
        names = [d[0] for d in cur.description]
        return {r[0]: dict(zip(names, r)) for r in cur.fetchall()}

    exact = profile("child", cols, sample_percent=None)
    sampled = profile("child", cols, sample_percent=10, sample_method="values")
    for i in range(3):
        assert (sampled[i]["row_count"], sampled[i]["non_null"]) == (exact[i]["row_count"], exact[i]["non_null"])
        assert sampled[i]["min_value"] == exact[i]["min_value"] and sampled[i]["max_value"] == exact[i]["max_value"]
    assert sampled[1] == exact[1]  # 7 values: exact, top values and flag count included
    for i, full in ((0, 20000), (2, 5000)):
        assert sampled[i]["distinct_approx"] and not exact[i]["distinct_approx"]
        assert abs(sampled[i]["distinct_count"] - full) < 0.2 * full and sampled[i]["top_values"] is None
        kept = dict(p.split(":") for p in sampled[i]["minhash"].split(","))
        whole = dict(p.split(":") for p in exact[i]["minhash"].split(","))
        assert len(kept) > 48 and all(whole[b] == m for b, m in kept.items())
    # the parent (text digits) keeps the same values as the child's integers below the threshold
    parent = profile("parent", [{"name": "id", "data_type": "varchar"}], sample_percent=10, sample_method="values")
    child_min = dict(p.split(":") for p in sampled[0]["minhash"].split(","))
    parent_min = dict(p.split(":") for p in parent[0]["minhash"].split(","))
    assert sum(parent_min.get(b) == m for b, m in child_min.items()) > 0.5 * len(child_min)


# --- sqlfluff ------------------------------------------------------------------------------


def test_sqlfluff_lint_macros() -> None:
    sqlfluff = Path(sys.executable).parent / "sqlfluff"
    if not sqlfluff.exists():
        pytest.skip("sqlfluff is not installed in this environment")
    res = subprocess.run([str(sqlfluff), "lint", "macros/"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr


def test_duckdb_columns_by_relation_reads_the_catalog_once() -> None:
    """One information_schema query answers every relation's columns, in column order; odd names
    survive; a schema with a quote in its name is a string literal, not SQL."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute('create schema "Mixed Schema"')
    con.execute("create schema \"it's\"")
    con.execute('create table "Mixed Schema"."Order Lines" ("b" integer, "say ""hi""" varchar, "名前" date)')
    con.execute("create table \"it's\".t (x double)")
    h = Harness("duckdb")
    queries: list[str] = []

    def run_query(sql: str) -> SimpleNamespace:
        queries.append(sql)
        return SimpleNamespace(rows=con.execute(sql).fetchall())

    h.context["run_query"] = run_query
    rels = [FakeRelation("memory", "Mixed Schema", "Order Lines"), FakeRelation("memory", "it's", "t"),
            FakeRelation("memory", "Mixed Schema", "missing")]
    got = h.call("schema_link_columns_by_relation", rels)
    assert len(queries) == 1
    assert got == {
        "memory|Mixed Schema|Order Lines": [{"name": "b", "data_type": "INTEGER"},
                                            {"name": 'say "hi"', "data_type": "VARCHAR"},
                                            {"name": "名前", "data_type": "DATE"}],
        "memory|it's|t": [{"name": "x", "data_type": "DOUBLE"}],
    }
    assert h.call("schema_link__relation_key", "memory", "it's", "t") in got
    # adapters without a catalog query say so, and each relation is asked on its own
    assert Harness("bigquery").call("schema_link_columns_by_relation", rels) is None
