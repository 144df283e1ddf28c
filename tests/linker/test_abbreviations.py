"""Abbreviated column names grounded through their descriptions (issue 31), on a real dbt project
whose tables are empty (schema only: no values to ground on, descriptions are the only
evidence): a question's word names the column its description spells out."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbt_schema_link.linker import index, open_session
from dbt_schema_link.linker.text import spelled_out

from tests.linker.conftest import DatabaseSpec, _t, build_dbt_project

pytestmark = pytest.mark.dbt

FREIGHT = DatabaseSpec("freight", [
    _t("shipments", [("shp_id", "number", "Shipment identifier"), ("cmdty", "text", "Commodity carried"),
                     ("wgt_kg", "number", "Weight in kilograms"), ("orig_cntry", "text", "Country of origin"),
                     ("dep_dt", "time", "Departure date"), ("prt_id", "number", "Port of departure")],
       "shp_id", "One row per shipment"),
    _t("ports", [("prt_id", "number", "Port identifier"), ("prt_nm", "text", "Port name"),
                 ("cntry", "text", "Country the port is in")], "prt_id", "Sea ports"),
], [("shipments", "prt_id", "ports", "prt_id")])


def test_description_spells_out_a_truncated_name():
    assert spelled_out("cmdty", "Commodity carried") == {"cmdty": "commodity"}
    assert spelled_out("cust_nm", "Customer name") == {"cust": "customer", "nm": "name"}
    assert spelled_out("conc", "Concentration of the pollutant") == {"conc": "concentration"}
    # a word the description has as such, or one it does not spell out, stays as it is
    assert spelled_out("port_name", "Name of the port") == {}
    assert spelled_out("wgt", "How heavy it is") == {}
    assert spelled_out("qty", "") == {}


@pytest.fixture(scope="module")
def schema_only(tmp_path_factory, embedder) -> Path:
    dest = tmp_path_factory.mktemp("abbrev") / "freight"
    build_dbt_project(dest, "freight", [FREIGHT])  # no data file: the tables are created empty
    index([dest], notice=lambda _: None)
    return dest


def test_question_words_name_abbreviated_columns_of_a_schema_only_project(schema_only):
    session = open_session([schema_only], refresh=False, notice=lambda _: None)
    answer = session.ask("Which commodity has the largest weight?")
    picks = {c.name: c for r in answer.relations for c in r.columns}
    assert {"cmdty", "wgt_kg"} <= set(picks), picks
    for name in ("cmdty", "wgt_kg"):
        assert any(reason.startswith("name ") for reason in picks[name].reasons), picks[name].reasons
    answer = session.ask("List the name of each port and its country")
    picks = {c.name: c for r in answer.relations for c in r.columns}
    assert {"prt_nm", "cntry"} <= set(picks), picks
    assert any(reason.startswith("name ") for reason in picks["cntry"].reasons), picks["cntry"].reasons
