"""The envelope parser: dbt JSON log lines in, typed profiles out."""

import json

import pytest

from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.envelope import (
    SENTINEL,
    parse_envelope,
    relation_profile,
    relation_profile_to_json,
)


def _log(msg: str, level: str = "info", name: str = "JinjaLogInfo") -> str:
    return json.dumps({"info": {"name": name, "level": level, "msg": msg}, "data": {"msg": msg}})


HEADER = {"format": "dbt_schema_link/profiles", "format_version": 3, "package_version": "0.1.0", "adapter": "duckdb"}
RELATION = {
    "unique_id": "model.shop.orders", "database": "d", "schema": "s", "identifier": "orders",
    "relation": '"d"."s"."orders"', "row_count": 10, "sampled": False, "sample_percent": None,
    "columns": [
        {"name": "Order ID", "data_type": "INTEGER", "non_null": 10, "distinct": 10, "distinct_approx": True,
         "min_len": 1, "max_len": 2, "minhash": "1,2,-3", "top_values": None, "flag_words": False, "skipped": None},
        {"name": "payload", "data_type": "JSON", "non_null": 0, "distinct": 0, "distinct_approx": False,
         "min_len": None, "max_len": None, "minhash": None, "top_values": None, "flag_words": False,
         "skipped": "type JSON cannot be compared by value"},
    ],
}


def _lines(*bodies):
    return [_log("Running with dbt=1.11"), *[_log(f"{SENTINEL} {k} {json.dumps(v)}") for k, v in bodies]]


def test_complete_envelope_parses_into_profiles():
    env = parse_envelope(_lines(("begin", HEADER), ("relation", RELATION), ("end", {"relations": 1})))
    assert env.complete
    prof = relation_profile(env.relations[0])
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
    prof = relation_profile(RELATION)
    again = relation_profile(relation_profile_to_json(prof))
    assert again == prof
