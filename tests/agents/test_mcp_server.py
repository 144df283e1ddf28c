"""`dbt-schema-link mcp` on the example shop project, driven by the official SDK's stdio client
(which starts the real command): the four tools with their schemas, find_schema, join_path with the
inferred `opened_by = customer_id` join, describe_relation, list_links, unknown names, stdout
carrying protocol frames only, and a refresh when the artifacts change while serving."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.conftest import BuiltProject

pytestmark = [pytest.mark.dbt, pytest.mark.slow]
pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

EXE = str(Path(sys.executable).parent / "dbt-schema-link")
TICKETS_QUESTION = "How many support tickets did each customer open?"
STORES_QUESTION = "How many orders did each store take last year?"


@pytest.fixture(scope="module")
def linked_shop(shop_duckdb, tmp_path_factory) -> BuiltProject:
    """A copy of the built example with links.json from a real `link` run and no index yet."""
    dest = tmp_path_factory.mktemp("mcp") / "shop"
    shutil.copytree(shop_duckdb.path, dest, symlinks=True, ignore=shutil.ignore_patterns("index"))
    project = BuiltProject(dest, shop_duckdb.target, shop_duckdb.env)
    project.cli("link", *project.project_args(), "--quiet")
    return project


def _copy(project: BuiltProject, dest: Path) -> BuiltProject:
    shutil.copytree(project.path, dest, symlinks=True)
    return BuiltProject(dest, project.target, project.env)


def _params(project: BuiltProject) -> StdioServerParameters:
    return StdioServerParameters(command=EXE, args=["mcp", *project.project_args()], env=project.env,
                                 cwd=str(project.path))


def _session(project: BuiltProject, stderr: Path, calls):
    """Start the server with the SDK client, run `calls(session)` and return what it returns."""

    async def run():
        with stderr.open("w") as errlog:
            async with stdio_client(_params(project), errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await calls(session)

    return anyio.run(run)


@pytest.fixture(scope="module")
def exchange(linked_shop, tmp_path_factory):
    """One client session with every call the tests below look at (the server starts once)."""
    stderr = tmp_path_factory.mktemp("mcp_log") / "stderr.txt"

    async def calls(session):
        out = {"tools": (await session.list_tools()).tools}
        for key, name, args in [
            ("tickets", "find_schema", {"question": TICKETS_QUESTION}),
            ("stores", "find_schema", {"question": STORES_QUESTION, "budget": 400}),
            ("path", "join_path", {"from": "stg_support_tickets", "to": "STG_CUSTOMERS"}),
            ("long_path", "join_path", {"from": "stg_order_items", "to": "stg_countries"}),
            ("describe", "describe_relation", {"name": "stg_support_tickets"}),
            ("links", "list_links", {"relation": "stg_support_tickets"}),
            ("unknown", "join_path", {"from": "stg_tickets", "to": "stg_customers"}),
            ("unknown_describe", "describe_relation", {"name": "customer_table"}),
            ("bad_argument", "find_schema", {"question": TICKETS_QUESTION, "top": 3}),
            ("bad_budget", "find_schema", {"question": TICKETS_QUESTION, "budget": 0}),
        ]:
            out[key] = await session.call_tool(name, args)
        return out

    result = _session(linked_shop, stderr, calls)
    result["stderr"] = stderr.read_text()
    return result


def test_lists_the_four_tools_with_schemas(exchange):
    tools = {t.name: t for t in exchange["tools"]}
    assert set(tools) == {"find_schema", "join_path", "describe_relation", "list_links"}
    for tool in tools.values():
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.output_schema["type"] == "object" and tool.output_schema["properties"]
        for prop in tool.input_schema["properties"].values():
            assert prop.get("description"), f"{tool.name}: every argument is described for the agent"
    assert tools["find_schema"].input_schema["required"] == ["question"]
    assert set(tools["join_path"].input_schema["required"]) == {"from", "to"}


def _models(result) -> set[str]:
    return {r["model"] for r in result.structured_content["relations"]}


def test_find_schema_names_ticket_and_customer_models(exchange):
    result = exchange["tickets"]
    assert not result.is_error, result.content[0].text
    models = _models(result)
    assert any("support_tickets" in m for m in models), models
    assert any("customers" in m for m in models), models
    data = result.structured_content
    assert data["context"] == result.content[0].text.split("\n\nnote:")[0]
    assert data["tokens"] > 0 and data["candidates"]
    # The customer model is joined to the ticket model by a condition the agent can paste.
    joins = [j["on"] for j in data["joins"]]
    assert any("customer" in on for on in joins), joins


def test_find_schema_second_question_with_budget(exchange):
    result = exchange["stores"]
    assert not result.is_error, result.content[0].text
    models = _models(result)
    assert {"fct_orders", "stg_stores"} <= models, models
    data = result.structured_content
    assert data["budget"] == 400 and data["tokens"] <= 400
    assert "fct_orders.store_id = stg_stores.store_id" in [j["on"] for j in data["joins"]]


def test_join_path_uses_the_inferred_opened_by_link(exchange):
    result = exchange["path"]
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert data["found"] and len(data["hops"]) == 1
    hop = data["hops"][0]
    assert hop["on"] == "stg_support_tickets.opened_by = stg_customers.customer_id"
    assert hop["kind"] == "inferred" and 0 < hop["confidence"] < 1
    # The confidence and evidence are the ones `link` wrote to links.json.
    assert {e["signal"] for e in hop["evidence"]} >= {"exact_containment", "role_name"}
    assert "opened_by = stg_customers.customer_id" in result.content[0].text


def test_join_path_walks_several_hops_in_order(exchange):
    data = exchange["long_path"].structured_content
    hops = data["hops"]
    assert data["found"] and len(hops) >= 2
    assert hops[0]["from"] == "stg_order_items" and hops[-1]["to"] == "stg_countries"
    assert all(a["to"] == b["from"] for a, b in zip(hops, hops[1:]))


def test_describe_relation_columns_keys_and_links(exchange):
    result = exchange["describe"]
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    columns = {c["name"]: c for c in data["columns"]}
    assert columns["ticket_id"]["primary_key"]
    assert "stg_customers.customer_id" in columns["opened_by"]["references"]
    assert set(columns["status"]["frequent_values"]) >= {"open", "closed"}
    assert any(link["on"] == "stg_support_tickets.opened_by = stg_customers.customer_id" for link in data["links_out"])


def test_list_links_as_in_links_json(exchange, linked_shop):
    data = exchange["links"].structured_content
    written = json.loads((linked_shop.path / "target" / "schema_link" / "links.json").read_text())
    expected = [l for l in written["links"] if l["kind"] != "lineage"
                and "model.shop.stg_support_tickets" in (l["child"]["relation"], l["parent"]["relation"])]
    assert data["count"] == len(expected) == len(data["links"]) > 0
    assert sorted(json.dumps(l, sort_keys=True) for l in data["links"]) == \
        sorted(json.dumps(l, sort_keys=True) for l in expected)


def test_unknown_name_is_a_tool_error_naming_the_closest(exchange):
    for key in ("unknown", "unknown_describe"):
        result = exchange[key]
        text = result.content[0].text
        assert result.is_error and result.structured_content is None
        assert text.startswith("error: no relation named") and "Traceback" not in text
    assert "stg_support_tickets" in exchange["unknown"].content[0].text.split("closest are")[1]
    assert "customers" in exchange["unknown_describe"].content[0].text.split("closest are")[1]


def test_bad_arguments_are_one_line_tool_errors(exchange):
    assert exchange["bad_argument"].is_error
    assert "no argument 'top'" in exchange["bad_argument"].content[0].text
    assert exchange["bad_budget"].is_error and "`budget`" in exchange["bad_budget"].content[0].text


def test_index_built_first_with_a_notice_on_stderr(exchange, linked_shop):
    assert "no question index" in exchange["stderr"] and "building it first" in exchange["stderr"]
    assert (linked_shop.path / "target" / "schema_link" / "index" / "index.json").exists()


def test_stdout_carries_protocol_frames_only(linked_shop, tmp_path):
    """Raw stdio: every stdout line is a JSON-RPC message answering a request, also while the
    index is built (its notices and progress go to stderr)."""
    project = _copy(linked_shop, tmp_path / "shop")
    shutil.rmtree(project.path / "target" / "schema_link" / "index", ignore_errors=True)
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "find_schema", "arguments": {"question": STORES_QUESTION}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "describe_relation", "arguments": {"name": "nope"}}},
    ]
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as errlog:
        server = subprocess.Popen([EXE, "mcp", *project.project_args()], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=errlog, text=True, env=project.env, cwd=project.path)
        try:
            server.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
            server.stdin.flush()
            lines, answered = [], 0
            while answered < 4:  # stdin stays open until every request is answered
                line = server.stdout.readline()
                assert line, f"the server stopped early:\n{stderr.read_text()[-2000:]}"
                lines.append(line)
                answered += "id" in json.loads(line)  # a line that is not JSON fails here
            server.stdin.close()
            lines += server.stdout.read().splitlines()
            assert server.wait(timeout=60) == 0
        finally:
            if server.poll() is None:
                server.kill()
    messages = [json.loads(line) for line in lines if line.strip()]  # fails on any non-JSON line
    assert len(messages) == len([line for line in lines if line.strip()])
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    assert sorted(m["id"] for m in messages if "id" in m) == [1, 2, 3, 4]
    by_id = {m["id"]: m for m in messages}
    assert by_id[3]["result"]["structuredContent"]["relations"]
    assert by_id[4]["result"]["isError"] is True
    assert "building it first" in stderr.read_text()


def test_changed_artifacts_refresh_the_index(linked_shop, tmp_path):
    """The description of a model edited (as `dbt docs generate` would) while the server runs."""
    project = _copy(linked_shop, tmp_path / "shop")
    manifest = project.path / "target" / "manifest.json"
    stderr = tmp_path / "stderr.txt"

    async def calls(session):
        before = await session.call_tool("describe_relation", {"name": "stg_stores"})
        data = json.loads(manifest.read_text())
        data["nodes"]["model.shop.stg_stores"]["description"] = "Shops, renamed while the server ran."
        manifest.write_text(json.dumps(data))
        after = await session.call_tool("describe_relation", {"name": "stg_stores"})
        return before, after

    before, after = _session(project, stderr, calls)
    assert before.structured_content["description"] != "Shops, renamed while the server ran."
    assert after.structured_content["description"] == "Shops, renamed while the server ran."
    log = stderr.read_text()
    assert "changed since the index was loaded: refreshing the index" in log


# ---------------------------------------------------------------------------------------------
# find_schema over near-identical databases: the top three with their confidence

COPIES = ("shop_east", "shop_north", "shop_west")


@pytest.fixture(scope="module")
def copied_shops(tmp_path_factory) -> BuiltProject:
    """One project holding three copies of one shop schema and a school schema (sources only),
    indexed without a model: a shop question fits the three copies equally, a school one only
    the school."""
    from tests.conftest import base_env
    from tests.linker.conftest import SCHOOL, SHOP, build_dbt_project

    specs = [dataclasses.replace(SHOP, db_id=name) for name in COPIES] + [SCHOOL]
    dest = build_dbt_project(tmp_path_factory.mktemp("mcp_copies") / "copies", "copies", specs)
    project = BuiltProject(dest, "dev", base_env())
    project.cli("index", *project.project_args(), "--model", "none", "--quiet")
    return project


@pytest.fixture(scope="module")
def copies_exchange(copied_shops, tmp_path_factory):
    stderr = tmp_path_factory.mktemp("mcp_copies_log") / "stderr.txt"

    async def calls(session):
        return {key: await session.call_tool("find_schema", {"question": q}) for key, q in (
            ("shop", "What is the total order amount of each customer?"),
            ("school", "What is the final grade of each student in each course?"))}

    return _session(copied_shops, stderr, calls)


def test_find_schema_names_the_top_three_databases_when_unsure(copies_exchange):
    result = copies_exchange["shop"]
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    top = data["candidates"][:3]
    assert data["unsure"] and {c["schema"] for c in top} == set(COPIES), data["candidates"]
    assert abs(sum(c["confidence"] for c in data["candidates"]) - 1.0) < 0.01
    assert all(c["confidence"] < 0.5 for c in top), top
    note = result.content[0].text.split("\n\nnote: ")[1]
    named = dict(re.findall(r"(\S+) \((0\.\d\d)\)", note))
    assert set(named) == {c["group"] for c in top}, note
    assert all(abs(float(named[c["group"]]) - c["confidence"]) <= 0.006 for c in top), (note, top)
    assert "pass `database` to choose" in note


def test_find_schema_is_sure_when_one_database_fits(copies_exchange):
    result = copies_exchange["school"]
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert data["schema"] == "school" and not data["unsure"], data["candidates"]
    assert data["candidates"][0]["confidence"] >= 0.7
    assert "note:" not in result.content[0].text
