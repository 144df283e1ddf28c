"""Keys that drift between types hash and compare as one value: the canonical text of
`schema_link_canonical_text`, executed on DuckDB, a real PostgreSQL and a local Spark session.

17 (INTEGER), 17.0 (REAL / DOUBLE), 17.00 (DECIMAL), '00017' and ' 17 ' (text) are one key; text
that only looks numeric ('1.5', 'A017', '0', '007.5') keeps its own text.
"""

from __future__ import annotations

import pytest

from tests.test_macros_sql import FakeRelation, Harness
from tests.test_spark import _require_spark

#: text value -> its canonical text
TEXTS = {
    "00017": "17", " 17 ": "17", "17": "17", "17.0": "17", "0017.000": "17", "-007": "-7",
    "0": "0", "00": "0", "1.5": "1.5", "A017": "A017", "007.5": "007.5", "0.0": "0", "": "",
    "1.05": "1.05",
}
#: (SQL literal of a typed value, its canonical text) for DuckDB
TYPED = [("17::BIGINT", "17"), ("17.0::DOUBLE", "17"), ("17.0::REAL", "17"), ("17.00::DECIMAL(10,2)", "17"),
         ("17.25::DECIMAL(10,2)", "17.25"), ("0.5::DOUBLE", "0.5"), ("'00017'::VARCHAR", "17"),
         ("'2017-09-08'::DATE", "2017-09-08")]  # a day: the ISO text a calendar's text key holds
ENGINE_TYPE = {"BIGINT": "bigint", "DOUBLE": "double", "REAL": "real", "DECIMAL(10,2)": "decimal(10,2)",
               "VARCHAR": "varchar"}


def _values_sql(texts) -> str:
    return ", ".join("('" + t.replace("'", "''") + "')" for t in texts)


def test_duckdb_canonical_text_of_drifted_keys() -> None:
    duckdb = pytest.importorskip("duckdb")
    h = Harness("duckdb")
    con = duckdb.connect()
    for data_type in (None, "VARCHAR", "TEXT"):
        expr = h.call("schema_link_canonical_text", "v", data_type)
        got = dict(con.execute(f"select v, {expr} from (values {_values_sql(TEXTS)}) t(v)").fetchall())
        assert got == TEXTS, data_type
    for literal, expected in TYPED:
        data_type = literal.split("::")[1]
        for declared in (data_type, None):  # the profile passes the type, the containment check does not
            expr = h.call("schema_link_canonical_text", "v", declared)
            assert con.execute(f"select {expr} from (select {literal} as v)").fetchone()[0] == expected, (literal, declared)


def test_duckdb_containment_matches_drifted_keys_and_counts_orphan_rows() -> None:
    duckdb = pytest.importorskip("duckdb")
    h = Harness("duckdb")
    con = duckdb.connect()
    con.execute("create table parent_real as select i::DOUBLE as id from range(1, 11) r(i)")
    con.execute("create table parent_padded as select lpad(i::VARCHAR, 5, '0') as id from range(1, 11) r(i)")
    # child ids 1..12 (11 and 12 are orphans, in 3 rows), one NULL
    con.execute("create table child as select * from (values (1), (2), (2), (10), (11), (11), (12), (null)) t(parent_id)")
    pairs = [{"child_relation": FakeRelation("memory", "main", "child"), "child_column": "parent_id",
              "parent_relation": FakeRelation("memory", "main", p), "parent_column": "id"}
             for p in ("parent_real", "parent_padded")]
    rows = con.execute(h.call("schema_link_containment_sql", pairs).replace('"memory"."main".', "")).fetchall()
    assert sorted(rows) == [(0, 5, 3, 3), (1, 5, 3, 3)]  # pair, child distinct, matched, orphan rows


def test_postgres_canonical_text_of_drifted_keys(pg_server) -> None:
    h = Harness("postgres")
    expr = h.call("schema_link_canonical_text", "v", None)
    out = pg_server.psql(f"select v || '|' || {expr} from (values {_values_sql(TEXTS)}) t(v)")
    got = dict(line.split("|") for line in out.split("\n") if line != "")
    assert got == TEXTS
    for literal, expected in [("17::bigint", "17"), ("17.0::double precision", "17"), ("17.0::real", "17"),
                              ("17.00::numeric(10,2)", "17"), ("17.25::numeric(10,2)", "17.25"),
                              ("'00017'::text", "17")]:
        assert pg_server.psql(f"select {expr} from (select {literal} as v) t").strip() == expected, literal
    # a declared integer or date type is printed as it is: the same text as the full expression
    for literal, declared in [("-00017", "integer"), ("17", "bigint"), ("0", "smallint"), ("'2024-01-05'", "date")]:
        typed = h.call("schema_link_canonical_text", "v", declared)
        assert "trim" not in typed
        sql = f"select {typed} || '|' || {expr} from (select cast({literal} as {declared}) as v) t"
        full_typed, full = pg_server.psql(sql).strip().split("|")
        assert full_typed == full and full in ("-17", "17", "0", "2024-01-05"), (literal, declared)


@pytest.mark.spark
def test_spark_canonical_text_of_drifted_keys(tmp_path) -> None:
    _require_spark()  # a skip outside CI, a failure in it
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("canonical")
             .config("spark.sql.warehouse.dir", str(tmp_path / "wh"))
             .config("spark.ui.enabled", "false").getOrCreate())
    try:
        h = Harness("databricks")  # databricks__ and spark__ are one implementation
        expr = h.call("schema_link_canonical_text", "v", None)
        got = {r[0]: r[1] for r in spark.sql(f"select v, {expr} from values {_values_sql(TEXTS)} as t(v)").collect()}
        assert got == TEXTS
        for literal, expected in [("cast(17 as bigint)", "17"), ("cast(17.0 as double)", "17"),
                                  ("cast(17.0 as float)", "17"), ("cast(17.00 as decimal(10,2))", "17"),
                                  ("cast(17.25 as decimal(10,2))", "17.25"), ("'00017'", "17")]:
            assert spark.sql(f"select {expr} from (select {literal} as v) t").collect()[0][0] == expected, literal
        for literal, declared in [("-17", "int"), ("17", "bigint"), ("0", "smallint"), ("'2024-01-05'", "date")]:
            typed = h.call("schema_link_canonical_text", "v", declared)
            assert "trim" not in typed
            row = spark.sql(f"select {typed}, {expr} from (select cast({literal} as {declared}) as v) t").collect()[0]
            assert row[0] == row[1] and row[1] in ("-17", "17", "0", "2024-01-05"), (literal, declared)
    finally:
        spark.stop()
