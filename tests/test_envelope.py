"""The envelope parser: dbt JSON log lines in, typed profiles out."""

import json

import pytest

from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.envelope import (
    PROFILE_FIELDS,
    SENTINEL,
    assemble_relation,
    parse_envelope,
    relation_profile,
    relation_profile_to_json,
)
from dbt_schema_link.profiling.records import SampleMethod
from dbt_schema_link.profiling.sketch import densify, parse_buckets
from tests.support.profile_rows import relation_doc


def _log(msg: str, level: str = "info", name: str = "JinjaLogInfo") -> str:
    return json.dumps({"info": {"name": name, "level": level, "msg": msg}, "data": {"msg": msg}})


HEADER = {"format": "dbt_schema_link/profiles", "format_version": 3, "package_version": "0.1.0", "adapter": "duckdb"}
RELATION = relation_doc("model.shop.orders", '"d"."s"."orders"', [
    {"name": "Order ID", "data_type": "INTEGER", "non_null": 10, "distinct_count": 10, "distinct_approx": True,
     "min_len": 1, "max_len": 2, "minhash": "1,2,-3", "minhash_format": "minima", "flag_bad": 10},
    {"name": "payload", "data_type": "JSON", "skipped": "type JSON cannot be compared by value"},
], row_count=10)


def _lines(*bodies):
    return [_log("Running with dbt=1.11"), *[_log(f"{SENTINEL} {k} {json.dumps(v)}") for k, v in bodies]]


def test_complete_envelope_parses_into_profiles():
    env = parse_envelope(_lines(("begin", HEADER), ("relation", RELATION), ("end", {"relations": 1})))
    assert env.complete
    prof = assemble_relation(env.relations[0])
    col = prof.column("order id")
    assert col.name == "Order ID" and col.distinct == 10 and col.uniqueness == 1.0
    # signed PostgreSQL hashes map to unsigned 64-bit
    assert col.minhash == (1, 2, (1 << 64) - 3)
    assert prof.column("payload").skipped.startswith("type JSON")


def test_truncated_envelope_is_incomplete():
    env = parse_envelope(_lines(("begin", HEADER), ("relation", RELATION)))
    assert not env.complete and len(env.relations) == 1


def test_unknown_format_version_is_a_clear_error():
    with pytest.raises(WarehouseError, match="envelope .* v9"):
        parse_envelope(_lines(("begin", {**HEADER, "format_version": 9})))


def test_malformed_body_is_a_clear_error():
    lines = [_log(f"{SENTINEL} relation {{not json")]
    with pytest.raises(WarehouseError, match="not valid JSON"):
        parse_envelope(lines)


def test_other_log_lines_and_non_json_are_ignored():
    env = parse_envelope(["plain text", "", _log("hello"), "[1,2]"])
    assert env.header is None and env.relations == []


def test_profile_json_round_trip():
    prof = assemble_relation(RELATION)
    again = relation_profile(relation_profile_to_json(prof))
    assert again == prof
    buckets = assemble_relation(relation_doc("model.p.r", "r", [
        {"name": "c", "data_type": "INTEGER", "non_null": 3, "distinct_count": 3, "minhash": "1:10,5:7",
         "minhash_format": "buckets"}], row_count=3, k=8))
    assert buckets.column("c").minhash_borrowed
    assert relation_profile(relation_profile_to_json(buckets)) == buckets


# -- assembly of the statement rows (envelope v3) --------------------------------------------------


def test_the_rows_are_matched_to_columns_by_chunk_position():
    columns = [{"name": f"c{i}", "data_type": "INTEGER", "non_null": 10, "distinct_count": i + 1,
                "minhash": f"{i}:{100 + i}", "minhash_format": "buckets", "flag_bad": 0}
               for i in range(5)]
    columns.insert(2, {"name": "blob", "data_type": "BLOB", "skipped": "unsupported type: BLOB (binary)"})
    prof = assemble_relation(relation_doc("model.p.r", "r", columns, row_count=10, k=8, chunk_size=2))
    assert [prof.column(f"c{i}").distinct for i in range(5)] == [1, 2, 3, 4, 5]
    assert prof.row_count == 10 and prof.column("blob").skipped and prof.column("blob").non_null == 0
    # densified from its one bucket into k positions, 7 borrowed
    assert prof.column("c3").minhash == densify(parse_buckets("3:103"), 8)[0]
    assert len(prof.column("c3").minhash_borrowed) == 7


def test_facts_become_the_profile():
    prof = assemble_relation(relation_doc("model.p.r", "r", [
        {"name": "yn", "data_type": "VARCHAR", "non_null": 8, "distinct_count": 2, "flag_bad": 0,
         "top_values": '["y", "n"]', "minhash": "0:1,1:2", "minhash_format": "buckets", "min_len": 1, "max_len": 1},
        {"name": "status", "data_type": "VARCHAR", "non_null": 80, "distinct_count": 60, "flag_bad": 60,
         "top_values": '["a", "b"]'},
        {"name": "approx", "data_type": "DOUBLE", "non_null": 8, "distinct_count": 9, "distinct_approx": True,
         "min_value": 1.5, "max_value": float("inf")},
        {"name": "active", "data_type": "BOOLEAN", "non_null": 8, "distinct_count": 2, "distinct_approx": True},
        {"name": "pairs", "data_type": "VARCHAR", "non_null": 8, "distinct_count": 3,
         "top_values": '[["x", 5], ["y", 2], ["z", 1]]'},
        {"name": "gone", "data_type": "VARCHAR", "rows": False},
    ], row_count=10, top_n=2, top_max_distinct=50))
    yn, status, approx, active, pairs, gone = (prof.column(n) for n in ("yn", "status", "approx", "active", "pairs",
                                                                      "gone"))
    assert yn.flag_words and yn.top_values == ("y", "n") and yn.minhash is not None
    # more than top_max_distinct values: no top values; values outside the flag words: no flag
    assert status.top_values is None and not status.flag_words
    # an estimate never above the non-null count; a non-finite maximum is no range
    assert approx.distinct == 8 and approx.distinct_approx and approx.min_value == 1.5 and approx.max_value is None
    assert active.flag_words and not approx.flag_words  # a boolean type holds flag words only
    assert pairs.top_values == ("x", "y")  # [value, count] items, cut at top_n
    assert (gone.non_null, gone.distinct, gone.minhash) == (0, 0, None)  # no row: no values


def test_a_sampled_relation_counts_the_estimate():
    doc = relation_doc("model.p.big", "big", [{"name": "id", "data_type": "INTEGER", "non_null": 480,
                                               "distinct_count": 480}],
                       row_count=500, sampled=True, row_estimate=5000, sample_percent=10.0)
    prof = assemble_relation(doc)
    assert (prof.row_count, prof.sampled, prof.sample_percent) == (5000, True, 10.0)
    assert prof.column("id").non_null == 480
    assert prof.sample_method is SampleMethod.ROWS and prof.row_fraction == 0.1


def test_a_value_sample_counts_every_row():
    """A value-coordinated sample read every row: its counted rows are the row count, and its
    statistics need no scaling by the fraction of rows (discovery's sample_fraction)."""
    doc = relation_doc("model.p.big", "big", [{"name": "id", "data_type": "INTEGER", "non_null": 5000,
                                               "distinct_count": 4900, "distinct_approx": True}],
                       row_count=5000, sampled=True, row_estimate=4000, sample_percent=10.0,
                       sample_method="values")
    prof = assemble_relation(doc)
    assert (prof.row_count, prof.sampled, prof.sample_method, prof.row_fraction) == (5000, True, SampleMethod.VALUES, 1.0)
    assert prof.column("id").distinct == 4900 and prof.column("id").distinct_approx
    back = relation_profile(relation_profile_to_json(prof))  # the cache keeps the method
    assert back.sample_method is SampleMethod.VALUES and back.row_fraction == 1.0
    with pytest.raises(WarehouseError, match="sample_method"):
        assemble_relation({**doc, "sample_method": "blocks"})


def test_no_columns_is_the_row_count_alone():
    prof = assemble_relation(relation_doc("model.p.r", "r", [], row_count=7))
    assert prof.row_count == 7 and prof.columns == {}


def test_rows_of_other_fields_are_a_clear_error():
    doc = relation_doc("model.p.r", "r", [{"name": "c", "data_type": "INTEGER", "non_null": 1}], row_count=1)
    doc["chunks"][0]["fields"] = list(PROFILE_FIELDS[:-1])
    with pytest.raises(WarehouseError, match="model.p.r has fields .* upgrade the dbt_schema_link package"):
        assemble_relation(doc)


@pytest.mark.parametrize("form", [None, "k-minima", "buckets"])
def test_a_minhash_reads_only_in_its_stated_format(form):
    prof = assemble_relation(relation_doc("model.p.r", "r", [
        {"name": "c", "data_type": "INTEGER", "non_null": 3, "distinct_count": 3, "minhash": "4,5,6",
         "minhash_format": form}], row_count=3, k=8))
    assert prof.column("c").minhash is None
