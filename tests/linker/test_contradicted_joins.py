"""Join completion through a pair the names join and the data refutes (issue 31): on a project
built here (real dbt, real DuckDB) whose orders name customers none of which are loaded yet, `link`
reports the pair as "named, contradicted by data" (never a link), and `ask` still joins the two
relations through it — labelled, and only because no link connects them."""

from __future__ import annotations

import json

import pytest

from dbt_schema_link.linker import LinkSettings, open_session, service
from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import build, cli, write_project

pytestmark = pytest.mark.dbt

FILES = {
    # a dev load: the customers seed holds other ids than the ones the orders name
    "seeds/customers.csv": "customer_id,customer_name,country\n" + "".join(
        f"{i},Customer {i},{('France', 'Peru', 'Chad')[i % 3]}\n" for i in range(1, 41)),
    "seeds/orders.csv": "order_id,customer_id,order_total\n" + "".join(
        f"{i},{900 + i % 25},{10 + i}\n" for i in range(1, 121)),
    "seeds/order_items.csv": "order_item_id,order_id,quantity\n" + "".join(
        f"{i},{1 + i % 120},{1 + i % 4}\n" for i in range(1, 301)),
}
QUESTION = "What is the order total of each customer name?"


@pytest.fixture(scope="module")
def dev_load(tmp_path_factory) -> BuiltProject:
    root = tmp_path_factory.mktemp("contradicted") / "contradicted"
    write_project(root, "contradicted", FILES)
    project = build(BuiltProject(root, "duckdb", base_env(RELIABILITY_DUCKDB_PATH=str(root.parent / "c.duckdb"))))
    cli(project, "link", "--quiet")
    return project


def _links_json(project: BuiltProject) -> dict:
    return json.loads((project.path / "target" / "schema_link" / "links.json").read_text())


def test_link_reports_the_refuted_pair_and_not_as_a_link(dev_load):
    doc = _links_json(dev_load)
    joins = {(link["child"]["column"], link["parent"]["relation"].rsplit(".", 1)[-1]) for link in doc["links"]}
    assert ("order_id", "orders") in joins, joins  # the loaded join is a link
    refuted = [r for r in doc["rejected"] if r["trap"] == "contradicted"]
    assert [(r["child"]["column"], r["parent"]["column"]) for r in refuted] == [("customer_id", "customer_id")], refuted
    assert "0 of 25 child values" in refuted[0]["detail"], refuted[0]
    assert not any(link["child"]["column"] == "customer_id" for link in doc["links"])


def test_ask_joins_through_the_refuted_pair_only_when_no_link_connects(dev_load, embedder):
    service.index([dev_load.path], notice=lambda _: None)
    session = open_session([dev_load.path], refresh=False, notice=lambda _: None)
    answer = session.ask(QUESTION)
    names = {r.name for r in answer.relations}
    assert {"orders", "customers"} <= names, names
    refuted = [j for j in answer.joins if j.contradicted is not None]
    assert [(j.child_column, j.parent_name) for j in refuted] == [("customer_id", "customers")], answer.joins
    assert not answer.unjoined, answer.unjoined
    line = next(line for line in answer.context.splitlines() if line.startswith("JOIN orders.customer_id"))
    assert "not verified: named, contradicted by data" in line and "no link joins these relations" in line, line
    # the schema lines never show the refuted pair as a foreign key
    assert not any("customer_id" in line and "FK ->" in line for line in answer.context.splitlines()), answer.context
    assert answer.to_dict()["joins"][0]["contradicted"] is not None or len(answer.joins) > 1

    # the loaded join is taken as a link, never the fallback
    items = session.ask("How many items has each order, with its order total?")
    assert {"orders", "order_items"} <= {r.name for r in items.relations}
    assert items.joins and all(j.contradicted is None for j in items.joins), items.joins

    # switched off: the two relations stay unjoined, and the answer says so
    off = open_session([dev_load.path], refresh=False, notice=lambda _: None,
                       settings=LinkSettings(contradicted_joins=0)).ask(QUESTION)
    assert all(j.contradicted is None for j in off.joins), off.joins
    assert any(uid.endswith(".customers") or uid.endswith(".orders") for uid in off.unjoined), off


def test_mcp_join_path_falls_back_on_the_refuted_pair_labelled(dev_load, tmp_path, embedder):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from tests.agents.test_mcp_server import _session

    async def calls(session):
        return {"path": await session.call_tool("join_path", {"from": "orders", "to": "customers"}),
                "describe": await session.call_tool("describe_relation", {"name": "orders"})}

    out = _session(dev_load, tmp_path / "stderr.txt", calls)
    path = out["path"]
    assert not path.is_error, path.content[0].text
    hops = path.structured_content["hops"]
    assert path.structured_content["found"] and len(hops) == 1, hops
    assert hops[0]["on"] == "orders.customer_id = customers.customer_id" and hops[0]["contradicted"], hops
    assert "not verified: named, contradicted by data" in path.content[0].text, path.content[0].text
    columns = {c["name"]: c for c in out["describe"].structured_content["columns"]}
    assert columns["customer_id"]["references"] == [], columns["customer_id"]  # not a foreign key
