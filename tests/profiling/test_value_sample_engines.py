"""Value-coordinated sampling (sample_method 'values') on a real PostgreSQL and a local Spark
session, as DuckDB's in tests/test_macros_sql.py: the profile statement reads every row and each
column keeps the values whose hash is below one threshold shared by every column.

What must hold on each engine: row and non-null counts and numeric ranges are the full relation's;
a low-cardinality column comes out exact (its values above the threshold are named by their
recovery groups); a high-cardinality one reports a scaled distinct count and a signature equal to
the full column's at every bucket it keeps; and a child's sample and its parent's stay comparable,
so the containment of a true foreign key (integers in the child, their digits as text in the
parent) is estimated at about 1 with no sample-fraction scaling.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from dbt_schema_link.discovery.values import estimate_containment
from dbt_schema_link.profiling.envelope import assemble_relation
from dbt_schema_link.profiling.records import ColumnProfile, SampleMethod
from tests.test_macros_sql import FakeRelation, Harness
from tests.test_spark import _require_spark

K = 64
PERCENT = 10.0
BASE = {"k": K, "top_n": 3, "top_max_distinct": 50, "sample_seed": 1}
#: child rows: parent_id (20,000 values of the parent's 30,000), kind (7 values), code (5,000
#: text values, a third of the rows NULL)
CHILD_ROWS = 60_000
PARENT_ROWS = 30_000

#: A statement runner: SQL -> (field names, rows as JSON values, as the relation macro hands them on).
Runner = Callable[[str], tuple[list[str], list[list[Any]]]]


def _json_value(value: Any) -> Any:
    """As schema_link__json_rows: numbers as floats, text and booleans as they are."""
    return value if value is None or isinstance(value, (str, bool)) else float(value)


def _profile(run: Runner, h: Harness, rel: FakeRelation, columns: list[dict], **opts: Any) -> tuple[dict, dict]:
    """The statement's rows by col_idx, and the raw relation document Python assembles."""
    names, rows = run(h.call("schema_link_profile_sql", rel, columns, {**BASE, **opts}))
    by_idx = {int(r[0]): dict(zip(names, r)) for r in rows}
    sampled = opts.get("sample_percent") is not None
    raw = {"unique_id": f"model.p.{rel.identifier}", "relation": rel.render(), "row_estimate": None,
           "sampled": sampled, "sample_percent": opts.get("sample_percent"),
           "sample_method": opts.get("sample_method") if sampled else None,
           "k": K, "top_n": BASE["top_n"], "top_max_distinct": BASE["top_max_distinct"],
           "columns": [{"name": c["name"], "data_type": c["data_type"], "skipped": None} for c in columns],
           "chunks": [{"columns": list(range(len(columns))), "fields": names, "rows": rows}]}
    return by_idx, raw


def _buckets(text: str) -> dict[str, str]:
    return dict(p.split(":") for p in text.split(","))


def _containment(child: ColumnProfile, parent: ColumnProfile) -> float:
    def borrowed(c: ColumnProfile) -> np.ndarray:
        return np.array([i in c.minhash_borrowed for i in range(K)])

    est = estimate_containment(np.array(child.minhash, dtype=np.uint64), child.distinct,
                               np.array(parent.minhash, dtype=np.uint64), parent.distinct,
                               borrowed(child), borrowed(parent))
    return est.containment


def check_value_sample(run: Runner, adapter: str, child: FakeRelation, parent: FakeRelation,
                       types: dict[str, str], scans: Callable[[str], int]) -> None:
    """scans: SQL -> how many times the engine's plan reads the child table."""
    h = Harness(adapter)
    cols = [{"name": "parent_id", "data_type": types["bigint"]}, {"name": "kind", "data_type": types["int"]},
            {"name": "code", "data_type": types["text"]}]
    # one read of the relation, as unsampled
    assert scans(h.call("schema_link_profile_sql", child, cols,
                        {**BASE, "sample_percent": PERCENT, "sample_method": "values"})) == 1
    exact, child_exact = _profile(run, h, child, cols, sample_percent=None)
    sampled, child_raw = _profile(run, h, child, cols, sample_percent=PERCENT, sample_method="values")
    for i in range(3):
        assert (sampled[i]["row_count"], sampled[i]["non_null"]) == (exact[i]["row_count"], exact[i]["non_null"]), i
        assert (sampled[i]["min_value"], sampled[i]["max_value"]) == (exact[i]["min_value"], exact[i]["max_value"]), i
    assert exact[0]["row_count"] == CHILD_ROWS and exact[2]["non_null"] == CHILD_ROWS * 2 // 3
    assert sampled[1] == exact[1]  # 7 values: exact, top values and flag count included
    assert exact[1]["distinct_approx"] is False and exact[1]["distinct_count"] == 7
    for i, full in ((0, 20_000), (2, 5_000)):
        assert sampled[i]["distinct_approx"] is True and exact[i]["distinct_approx"] is False
        assert exact[i]["distinct_count"] == full
        assert abs(sampled[i]["distinct_count"] - full) < 0.2 * full and sampled[i]["top_values"] is None
        kept, whole = _buckets(sampled[i]["minhash"]), _buckets(exact[i]["minhash"])
        assert len(kept) > 0.75 * K and all(whole[b] == m for b, m in kept.items()), i

    # the parent keeps the same values as the child (one threshold): a true FK contains ~1
    _, parent_raw = _profile(run, h, parent, [{"name": "id", "data_type": types["text"]}],
                             sample_percent=PERCENT, sample_method="values")
    child_prof, parent_prof = assemble_relation(child_raw), assemble_relation(parent_raw)
    for prof in (child_prof, parent_prof):
        assert prof.sample_method is SampleMethod.VALUES and prof.row_fraction == 1.0
    assert child_prof.row_count == CHILD_ROWS and parent_prof.row_count == PARENT_ROWS
    fk = _containment(child_prof.column("parent_id"), parent_prof.column("id"))
    assert fk > 0.95, fk
    # values the parent does not hold stay apart: codes are not ids (no higher than unsampled)
    _, parent_exact = _profile(run, h, parent, [{"name": "id", "data_type": types["text"]}], sample_percent=None)
    full = _containment(assemble_relation(child_exact).column("code"), assemble_relation(parent_exact).column("id"))
    apart = _containment(child_prof.column("code"), parent_prof.column("id"))
    print(f"\n{adapter}: FK containment {fk:.3f}; codes in ids {apart:.3f} sampled, {full:.3f} unsampled")
    assert apart < 0.5 and abs(apart - full) < 0.1


# --- PostgreSQL ------------------------------------------------------------------------------


def test_postgres_value_sample(pg_server) -> None:
    import psycopg2

    pg_server.create_database("value_sample")
    con = psycopg2.connect(host=pg_server.host, port=pg_server.port, user=pg_server.user, dbname="value_sample")
    con.autocommit = True
    cur = con.cursor()
    cur.execute("create schema s")
    cur.execute(f"create table s.child as select i % 20000 as parent_id, (i % 7)::int as kind, "
                f"case when i % 3 = 0 then null else 'c' || (i % 5000) end as code "
                f"from generate_series(0, {CHILD_ROWS - 1}) i")
    cur.execute(f"create table s.parent as select i::text as id from generate_series(0, {PARENT_ROWS - 1}) i")

    def run(sql: str) -> tuple[list[str], list[list[Any]]]:
        cur.execute(sql)
        return [d[0] for d in cur.description], [[_json_value(v) for v in r] for r in cur.fetchall()]

    def scans(sql: str) -> int:
        cur.execute("explain " + sql)
        return sum("Seq Scan on child" in r[0] for r in cur.fetchall())

    try:
        check_value_sample(run, "postgres", FakeRelation("value_sample", "s", "child"),
                           FakeRelation("value_sample", "s", "parent"),
                           {"bigint": "integer", "int": "integer", "text": "text"}, scans)
    finally:
        con.close()


# --- Spark -----------------------------------------------------------------------------------


@pytest.mark.spark
def test_spark_value_sample(tmp_path) -> None:
    _require_spark()  # a skip outside CI, a failure in it
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("value_sample")
             .config("spark.sql.warehouse.dir", str(tmp_path / "wh"))
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.ui.enabled", "false").getOrCreate())
    try:
        spark.sql("create database if not exists s")
        spark.sql(f"create table s.child using parquet as select id % 20000 as parent_id, cast(id % 7 as int) as kind, "
                  f"case when id % 3 = 0 then null else concat('c', cast(id % 5000 as string)) end as code "
                  f"from range({CHILD_ROWS})")
        spark.sql(f"create table s.parent using parquet as select cast(id as string) as id from range({PARENT_ROWS})")

        def run(sql: str) -> tuple[list[str], list[list[Any]]]:
            df = spark.sql(sql)
            return list(df.columns), [[_json_value(v) for v in r] for r in df.collect()]

        # Spark's relations are schema.identifier (FakeRelation renders three parts)
        child, parent = FakeRelation("spark_catalog", "s", "child", "`"), FakeRelation("spark_catalog", "s", "parent", "`")
        def scans(sql: str) -> int:
            plan = spark.sql("explain " + sql).collect()[0][0]
            return sum("Scan" in line and "s.child" in line for line in plan.splitlines())

        check_value_sample(run, "spark", child, parent, {"bigint": "bigint", "int": "int", "text": "string"}, scans)
    finally:
        spark.stop()
