"""Localization units on a real dbt project with three schemas and links.json written as
`dbt-schema-link link` writes it: a unit is one schema whatever links say; a confident link
between two units lets an answer span them only when the question's evidence is in both; a
weak link never does; a `db` restriction keeps to its unit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbt_schema_link.linker import index, open_session

from tests.linker.conftest import SCHOOL, SHOP, DatabaseSpec, _t, build_dbt_project, write_profiles

pytestmark = pytest.mark.dbt

CRM = DatabaseSpec("crm", [
    _t("tickets", [("ticket_id", "number", ""), ("customer_id", "number", "Customer who opened the ticket"),
                   ("subject", "text", "Subject line of the support ticket"),
                   ("opened_at", "time", "When the ticket was opened")],
       "ticket_id", "Support tickets opened by shop customers"),
], [])


def quiet(_msg: str) -> None:
    pass


def _link(child: str, ccol: str, parent: str, pcol: str, confidence: float) -> dict:
    return {"child": {"relation": f"source.threeschema.{child}", "column": ccol},
            "parent": {"relation": f"source.threeschema.{parent}", "column": pcol},
            "provenance": "inferred", "kind": "inferred", "confidence": confidence, "cardinality": "many_to_one",
            "evidence": []}


@pytest.fixture(scope="module")
def three_schema(tmp_path_factory, embedder) -> Path:
    dest = tmp_path_factory.mktemp("units") / "threeschema"
    build_dbt_project(dest, "threeschema", [SHOP, SCHOOL, CRM])
    write_profiles(dest)
    links = [
        _link("crm.tickets", "customer_id", "shop.customers", "customer_id", 0.99),  # a real cross-unit join
        _link("school.students", "student_id", "shop.customers", "customer_id", 0.97),  # stray, confident
        _link("school.enrollments", "course_id", "shop.products", "product_id", 0.5),  # stray, weak
    ]
    out = dest / "target" / "schema_link" / "links.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"format": "dbt_schema_link/links", "format_version": 2, "links": links}), encoding="utf-8")
    report = index([dest], notice=quiet)
    assert report.groups == 3  # linked schemas are not merged into one unit
    return dest


def test_links_never_merge_units(three_schema):
    s = open_session([three_schema], refresh=False, notice=quiet)
    assert sorted(g.schema for g in s.index.corpus.groups) == ["crm", "school", "shop"]
    a = s.ask("What is the final grade of each student in the course?")
    assert a.group.schema == "school" and a.spans == []
    assert {r.unique_id.split(".")[2] for r in a.relations} == {"school"}
    assert "spans" not in a.to_dict()


def test_an_answer_spans_two_units_through_a_confident_link(three_schema):
    s = open_session([three_schema], refresh=False, notice=quiet, settings={"span_ratio": 0.0})
    a = s.ask("Which customers from Paris opened support tickets?")
    units = {a.group.schema} | {c.schema for c in a.spans}
    assert units == {"shop", "crm"}
    assert "tickets.customer_id = customers.customer_id" in {j.on for j in a.joins}
    d = a.to_dict()
    assert d["schema"] in ("shop", "crm") and [c["schema"] for c in d["spans"]] == sorted(units - {d["schema"]})
    assert '"crm"."tickets"' in a.context and '"shop"."customers"' in a.context
    # the same question restricted to one unit stays in it
    b = s.ask("Which customers from Paris opened support tickets?", db="crm")
    assert b.spans == [] and {r.unique_id.split(".")[2] for r in b.relations} == {"crm"}


def test_weak_cross_unit_links_are_never_used(three_schema):
    s = open_session([three_schema], refresh=False, notice=quiet, settings={"span_ratio": 0.0})
    linked = s.index.graph.unit_links
    school = next(i for i, g in enumerate(s.index.corpus.groups) if g.schema == "school")
    assert max(linked[school].values()) == pytest.approx(0.97)
    # with span_confidence above the confident stray link, no link leaves the school unit
    strict = open_session([three_schema], refresh=False, notice=quiet,
                          settings={"span_ratio": 0.0, "span_confidence": 0.98})
    for session in (s, strict):
        a = session.ask("Which courses of which product category do students enrol in?")
        for j in a.joins:
            assert j.confidence >= session.linker.settings.span_confidence or \
                j.child_uid.split(".")[2] == j.parent_uid.split(".")[2]
    a = strict.ask("Which students are also customers living in Paris?")
    assert all(j.child_uid.split(".")[2] == j.parent_uid.split(".")[2] for j in a.joins)
    assert a.spans == []
