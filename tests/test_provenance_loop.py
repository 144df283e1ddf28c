"""The loop a user repeats, on a seed-and-models project of its own (not the shop example):
`link → write → dbt test → link → index → ask`, and the MCP tools over it.

- a count (`customers.number_of_orders`, computed by `count(...)` in the model) is never linked to
  `orders.order_id`, although its values are order ids too;
- the tests `write` generates stay *written* (same confidence, never "declared, 1.00"), and the
  `ask` answer is the same before and after `write`;
- a join declared only between the marts holds between their staging copies: `join_path` and
  `ask` join staging models directly, without detours through the marts or the seeds.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import anyio
import pytest

from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import write_project

pytestmark = [pytest.mark.dbt, pytest.mark.slow]
pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

EXE = str(Path(sys.executable).parent / "dbt-schema-link")
QUESTION = "How many orders does each customer have, by customer first name?"

MODELS = {
    "models/staging/stg_customers.sql": "select id as customer_id, first_name, last_name from {{ ref('raw_customers') }}\n",
    "models/staging/stg_orders.sql": ("select id as order_id, user_id as customer_id, order_date, status\n"
                                      "from {{ ref('raw_orders') }}\n"),
    "models/staging/stg_payments.sql": ("select id as payment_id, order_id, payment_method, amount\n"
                                        "from {{ ref('raw_payments') }}\n"),
    "models/marts/customers.sql": """\
with orders as (select * from {{ ref('stg_orders') }}),
customer_orders as (
    select customer_id, count(order_id) as number_of_orders from orders group by customer_id
)
select c.customer_id, c.first_name, c.last_name, coalesce(o.number_of_orders, 0) as number_of_orders
from {{ ref('stg_customers') }} c
left join customer_orders o on c.customer_id = o.customer_id
""",
    "models/marts/orders.sql": """\
with payments as (
    select order_id, sum(amount) as amount from {{ ref('stg_payments') }} group by order_id
)
select o.order_id, o.customer_id, o.order_date, o.status, p.amount
from {{ ref('stg_orders') }} o
left join payments p on o.order_id = p.order_id
""",
    # the one hand-written join: between the marts only
    "models/marts/marts.yml": """\
version: 2
models:
  - name: customers
    description: One row per customer.
    columns:
      - name: customer_id
        description: The customer.
        data_tests: [unique, not_null]
  - name: orders
    description: One row per order.
    columns:
      - name: order_id
        data_tests: [unique, not_null]
      - name: customer_id
        description: Who placed the order.
        data_tests:
          - relationships:
              arguments:
                to: ref('customers')
                field: customer_id
""",
}


def _seeds() -> dict[str, str]:
    rng = random.Random(7)
    customers = ["id,first_name,last_name"] + [f"{i},First{i},Last{i}" for i in range(1, 41)]
    orders = ["id,user_id,order_date,status"]
    for i in range(1, 151):
        orders.append(f"{i},{rng.randint(1, 40)},2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},"
                      f"{rng.choice(['placed', 'shipped', 'returned'])}")
    payments = ["id,order_id,payment_method,amount"]
    for i in range(1, 181):
        payments.append(f"{i},{rng.randint(1, 150)},{rng.choice(['card', 'coupon', 'transfer'])},{rng.randint(1, 90)}")
    return {f"seeds/{name}.csv": "\n".join(rows) + "\n"
            for name, rows in (("raw_customers", customers), ("raw_orders", orders), ("raw_payments", payments))}


@pytest.fixture(scope="module")
def shopfront(tmp_path_factory) -> BuiltProject:
    root = write_project(tmp_path_factory.mktemp("loop") / "shopfront", "shopfront", {**MODELS, **_seeds()})
    env = base_env(RELIABILITY_DUCKDB_PATH=str(root.parent / "shopfront.duckdb"))
    project = BuiltProject(root, "duckdb", env)
    project.dbt("deps")
    project.dbt("build")
    project.dbt("docs", "generate")
    return project


def _links(project: BuiltProject) -> list[dict]:
    return json.loads((project.path / "target" / "schema_link" / "links.json").read_text())["links"]


def _short(ref: dict) -> str:
    return f"{ref['relation'].rsplit('.', 1)[-1]}.{ref['column']}"


def _joins(project: BuiltProject, carried: bool = False) -> dict[tuple[str, str], dict]:
    """Join records by (child, parent); with `carried`, also by the lineage-copy pairs they hold for."""
    out = {}
    for link in _links(project):
        if link["kind"] == "lineage":
            continue
        out[(_short(link["child"]), _short(link["parent"]))] = link
        for pair in link["collapsed"] if carried else ():
            out.setdefault((_short(pair["child"]), _short(pair["parent"])), link)
    return out


def _ask(project: BuiltProject) -> dict:
    out = project.cli("ask", QUESTION, "--format", "json", *project.project_args(), "--quiet")
    answer = json.loads(out.stdout)
    return {"relations": [r["unique_id"] for r in answer["relations"]],
            "columns": [(r["unique_id"], [c["name"] for c in r["columns"]]) for r in answer["relations"]],
            "joins": [(j["on"], j["kind"]) for j in answer["joins"]]}


def _mcp(project: BuiltProject, stderr: Path, calls):
    params = StdioServerParameters(command=EXE, args=["mcp", *project.project_args()], env=project.env,
                                   cwd=str(project.path))

    async def run():
        with stderr.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await calls(session)

    return anyio.run(run)


def _join_path(project: BuiltProject, tmp_path: Path, pairs: list[tuple[str, str]]) -> list:
    async def calls(session):
        out = []
        for a, b in pairs:
            result = await session.call_tool("join_path", {"from": a, "to": b})
            out.append((result.content[0].text, result.structured_content))
        return out

    return _mcp(project, tmp_path / "mcp.err", calls)


def test_write_then_dbt_test_keeps_provenance_and_the_answer(shopfront, tmp_path):
    shopfront.cli("link", *shopfront.project_args(), "--quiet")
    before = _joins(shopfront)
    assert not [pair for pair in before if pair[0].endswith(".number_of_orders")], "a count was linked as a key"
    inferred = {pair: l for pair, l in before.items() if l["provenance"] in ("inferred", "sql")}
    assert _joins(shopfront, carried=True)[("stg_orders.customer_id", "stg_customers.customer_id")][
        "provenance"] == "declared"  # the marts' declared join, carried to the staging copies
    assert ("stg_payments.order_id", "stg_orders.order_id") in inferred
    shopfront.cli("index", *shopfront.project_args(), "--quiet")
    asked_before = _ask(shopfront)

    shopfront.cli("write", *shopfront.project_args(), "--quiet")
    shopfront.dbt("test", "-s", "tag:schema_link")
    shopfront.cli("link", *shopfront.project_args(), "--quiet")
    after = _joins(shopfront)
    written = {pair: l for pair, l in after.items() if l["provenance"] == "written"}
    assert written, "the generated tests were not recognised as written"
    assert not [pair for pair in written if before[pair]["kind"] == "declared"]
    for pair, link in written.items():
        assert link["kind"] == "inferred" and link["written_confidence"] == pytest.approx(before[pair]["confidence"], abs=1e-3)
        assert link["confidence"] == before[pair]["confidence"], pair  # re-inferred from the same data
        assert any(e["signal"] == "written_test" and "written by dbt-schema-link at" in e["detail"] for e in link["evidence"])
    assert {p for p, l in after.items() if l["provenance"] == "declared"} == {
        p for p, l in before.items() if l["provenance"] == "declared"}
    links_md = (shopfront.path / "target" / "schema_link" / "links.md").read_text()
    assert "written by dbt-schema-link at" in links_md

    shopfront.cli("index", *shopfront.project_args(), "--quiet")
    assert _ask(shopfront) == asked_before

    pair = next(iter(sorted(written)))
    (text, data), = _join_path(shopfront, tmp_path, [(pair[0].split(".")[0], pair[1].split(".")[0])])
    hop = data["hops"][0]
    assert hop["provenance"] == "written" and "written by dbt-schema-link at" in text
    assert hop["confidence"] == written[pair]["confidence"]


def test_a_join_declared_on_marts_holds_on_staging(shopfront, tmp_path):
    shopfront.cli("link", *shopfront.project_args(), "--quiet")
    shopfront.cli("index", *shopfront.project_args(), "--quiet")
    (direct_text, direct), (two_text, two) = _join_path(
        shopfront, tmp_path, [("stg_orders", "stg_customers"), ("stg_payments", "stg_customers")])
    assert direct["found"] and len(direct["hops"]) == 1, direct_text
    assert direct["hops"][0]["on"] == "stg_orders.customer_id = stg_customers.customer_id"
    assert direct["hops"][0]["provenance"] == "declared" and "declared" in direct_text
    assert two["found"], two_text
    assert [(h["from"], h["to"]) for h in two["hops"]] == [("stg_payments", "stg_orders"), ("stg_orders", "stg_customers")]

    out = shopfront.cli("ask", "Which payment methods did each customer use, by customer last name?", "--format", "json",
                        *shopfront.project_args(), "--quiet")
    answer = json.loads(out.stdout)
    names = {r["model"] for r in answer["relations"]}
    assert "stg_payments" in names and not answer["unjoined"], answer
    assert not [r for r in names if r.startswith("raw_")], names  # never through the seeds
    joined = {j["child"]["name"] for j in answer["joins"]} | {j["parent"]["name"] for j in answer["joins"]}
    assert joined == names and len(answer["joins"]) == len(names) - 1, answer["joins"]  # a tree, no detour


def test_a_written_link_the_data_no_longer_supports_is_reported_and_not_joined_on(shopfront, tmp_path):
    import shutil

    dest = tmp_path / "shopfront"
    shutil.copytree(shopfront.path, dest, symlinks=True, ignore=shutil.ignore_patterns("logs"))
    project = BuiltProject(dest, shopfront.target, {**shopfront.env, "RELIABILITY_DUCKDB_PATH": str(tmp_path / "db.duckdb")})
    project.dbt("build")
    project.cli("link", *project.project_args(), "--quiet")
    project.cli("write", *project.project_args(), "--quiet")
    pair = ("stg_payments.order_id", "stg_orders.order_id")
    # every order id now appears twice: stg_orders.order_id is no key any more
    seed = dest / "seeds" / "raw_orders.csv"
    rows = seed.read_text().splitlines()
    seed.write_text("\n".join(rows + rows[1:]) + "\n")
    project.dbt("build", "--exclude", "test_type:data")
    project.dbt("docs", "generate")
    out = project.cli("link", "--refresh", *project.project_args())  # the data changed, not the code
    links = _joins(project)
    link = links[pair]
    assert link["provenance"] == "written" and link["confidence"] < 0.7, link
    assert f"written link no longer holds: model.shopfront.{pair[0]} -> model.shopfront.{pair[1]}" in out.stderr
    project.cli("index", *project.project_args(), "--quiet")
    (text, data), = _join_path(project, tmp_path, [("stg_payments", "stg_orders")])
    assert not any(h["on"] == "stg_payments.order_id = stg_orders.order_id" for h in data["hops"]), text
