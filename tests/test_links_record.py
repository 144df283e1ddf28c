"""The one link record (dbt_schema_link/links.py): its JSON, its one reader, its enums."""

from __future__ import annotations

import json

import pytest

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.links import (
    LINKS_FORMAT, LINKS_FORMAT_VERSION, Cardinality, Evidence, Link, LinkKind, LinkSetFormatError, Provenance, Signal,
    read_links_file,
)

WRITTEN = Link(ColumnRef("model.p.orders", "customer_id"), ColumnRef("model.p.customers", "customer_id"),
               Provenance.WRITTEN, 0.8312, Cardinality.MANY_TO_ONE,
               (Evidence(Signal.WRITTEN_TEST, 0.0, "written by dbt-schema-link at 0.91"),),
               collapsed=((ColumnRef("model.p.stg_orders", "customer_id"), ColumnRef("model.p.stg_customers", "id")),),
               written_confidence=0.91)


def _file(tmp_path, links, version=LINKS_FORMAT_VERSION):
    path = tmp_path / "links.json"
    path.write_text(json.dumps({"format": LINKS_FORMAT, "format_version": version, "links": links}))
    return path


def test_a_record_survives_its_json_and_says_where_it_comes_from(tmp_path):
    (again,) = read_links_file(_file(tmp_path, [WRITTEN.to_json()]))
    assert again == WRITTEN
    assert again.kind is LinkKind.INFERRED and again.is_join
    assert again.pairs()[1] == (ColumnRef("model.p.stg_orders", "customer_id"), ColumnRef("model.p.stg_customers", "id"))
    assert again.provenance_text() == "written by dbt-schema-link at 0.910, confidence now 0.831"


def test_the_reader_is_strict_about_the_format_version(tmp_path):
    assert read_links_file(tmp_path / "missing.json") is None
    with pytest.raises(LinkSetFormatError, match=r"format_version 1.*run `dbt-schema-link link` again"):
        read_links_file(_file(tmp_path, [], version=1))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LinkSetFormatError, match="not valid JSON"):
        read_links_file(bad)
    with pytest.raises(LinkSetFormatError, match="malformed"):
        read_links_file(_file(tmp_path, [{"child": {"relation": "x", "column": "y"}}]))


def test_one_cardinality_enum_with_dbterd_spellings():
    assert Cardinality.parse("n1") is Cardinality.parse("many-to-one") is Cardinality.MANY_TO_ONE
    assert Cardinality.ONE_TO_ONE.code == "11" and Cardinality.ONE_TO_ONE.meta_value == "one-to-one"
    with pytest.raises(ValueError, match="unknown relationship type"):
        Cardinality.parse("sideways")


def test_provenance_is_told_in_the_one_confidence_format():
    declared = Link(WRITTEN.child, WRITTEN.parent, Provenance.DECLARED, 1.0, Cardinality.MANY_TO_ONE)
    assert declared.provenance_text() == "declared, confidence 1.000"
    sql = Link(WRITTEN.child, WRITTEN.parent, Provenance.SQL, 0.9981, Cardinality.MANY_TO_ONE)
    assert sql.provenance_text() == "inferred and joined in the project's SQL, confidence 0.998"


COMPOSITE = Link(ColumnRef("seed.p.rooms", "floor"), ColumnRef("seed.p.bins", "floor"), Provenance.INFERRED, 0.9777,
                 Cardinality.MANY_TO_ONE, (Evidence(Signal.EXACT_CONTAINMENT, 1.0, "12 of 12 child tuples"),),
                 extra_pairs=((ColumnRef("seed.p.rooms", "code"), ColumnRef("seed.p.bins", "code")),))


def test_a_composite_link_keeps_its_further_pairs_and_an_older_file_still_reads(tmp_path):
    (again,) = read_links_file(_file(tmp_path, [COMPOSITE.to_json()]))
    assert again == COMPOSITE and again.is_composite
    assert [(c.column, p.column) for c, p in again.column_pairs()] == [("floor", "floor"), ("code", "code")]
    assert again.columns_text() == "seed.p.rooms(floor, code) -> seed.p.bins(floor, code)"
    assert "extra_pairs" not in WRITTEN.to_json()  # one-column links are written as before
    # a format-2 file (no composite links) is read as it was
    (old,) = read_links_file(_file(tmp_path, [WRITTEN.to_json()], version=2))
    assert old == WRITTEN and not old.is_composite and old.column_pairs() == ((WRITTEN.child, WRITTEN.parent),)
