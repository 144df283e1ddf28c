"""A partial link on a real dbt + DuckDB project: orders whose customers were never loaded (a
late-arriving dimension). `link` keeps the join with its orphan counts; `write` configures the
relationships test so that it passes on today's data and fails once the orphans grow.
"""

from __future__ import annotations

import json
import random

import pytest
import yaml

from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import write_project

pytestmark = pytest.mark.dbt

#: customers 1..40 were loaded; orders also reference 41..45, which were not
LOADED, MISSING = range(1, 41), range(41, 46)
#: the customers refunds name: 11 ids, none of them loaded
REFUND_CUSTOMERS = tuple(range(900, 911))


def _seeds() -> dict[str, str]:
    rng = random.Random(11)
    customers = ["customer_id,first_name"] + [f"{i},First{i}" for i in LOADED]
    orders = ["order_id,customer_id,amount"]
    for i in range(1, 201):
        who = rng.choice(MISSING) if i % 8 == 0 else rng.choice(LOADED)
        orders.append(f"{1000 + i},{who},{rng.randint(1, 90)}")
    # refunds loaded from another environment: none of their customers is in this one
    refunds = ["refund_id,customer_id"] + [f"{7000 + i},{REFUND_CUSTOMERS[i % len(REFUND_CUSTOMERS)]}" for i in range(30)]
    return {"seeds/customers.csv": "\n".join(customers) + "\n", "seeds/orders.csv": "\n".join(orders) + "\n",
            "seeds/refunds.csv": "\n".join(refunds) + "\n"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> BuiltProject:
    root = write_project(tmp_path_factory.mktemp("partial") / "latearrival", "latearrival", _seeds())
    env = base_env(RELIABILITY_DUCKDB_PATH=str(root.parent / "latearrival.duckdb"))
    project = BuiltProject(root, "duckdb", env)
    project.dbt("deps")
    project.dbt("build")
    project.dbt("docs", "generate")
    return project


def test_partial_link_is_written_to_pass_today_and_fail_on_growth(shop: BuiltProject) -> None:
    who = [int(line.split(",")[1]) for line in _seeds()["seeds/orders.csv"].splitlines()[1:]]
    orphan_rows = sum(1 for w in who if w in MISSING)
    shop.cli("link", *shop.project_args(), "--quiet")
    links = json.loads((shop.path / "target" / "schema_link" / "links.json").read_text())["links"]
    (link,) = [x for x in links if x["kind"] != "lineage" and x["child"]["column"] == "customer_id"]
    assert link["parent"]["relation"].endswith(".customers") and link["parent"]["column"] == "customer_id"
    assert link["orphans"] == {"values": len(MISSING), "of_values": len(set(who)), "rows": orphan_rows}
    report = (shop.path / "target" / "schema_link" / "links.md").read_text()
    assert f"{len(MISSING)} orphan values in {orphan_rows} child rows" in report

    shop.cli("write", *shop.project_args(), "--quiet")
    written = yaml.safe_load((shop.path / "seeds" / "_orders__schema_link.yml").read_text())
    (test,) = written["seeds"][0]["columns"][0]["data_tests"]
    config = test["relationships"]["config"]
    assert (config["warn_if"], config["error_if"]) == (f"> {orphan_rows}", f"> {orphan_rows}")
    assert config["meta"]["schema_link"]["orphan_rows"] == orphan_rows

    shop.dbt("test", "-s", "tag:schema_link")  # passes on today's data
    results = json.loads((shop.path / "target" / "run_results.json").read_text())["results"]
    assert [r["status"] for r in results] == ["pass"]  # dbt reports 0 failures for a passing test

    # one more order of a customer that was never loaded: the test reports the growth
    orders = shop.path / "seeds" / "orders.csv"
    orders.write_text(orders.read_text() + f"9999,{MISSING[0]},5\n")
    shop.dbt("seed", "-s", "orders")
    res = shop.dbt("test", "-s", "tag:schema_link", check=False)
    results = json.loads((shop.path / "target" / "run_results.json").read_text())["results"]
    assert [(r["status"], r["failures"]) for r in results] == [("warn", orphan_rows + 1)], res.stdout[-2000:]


def test_a_named_join_the_data_contradicts_is_recorded_with_its_measured_containment(shop: BuiltProject) -> None:
    """Issue #30/#31: a join the names make and the data refutes is no link and no test, but
    links.json keeps it as a containment rejection (share measured in the warehouse, names-only
    confidence) for join completion, and links.md shows it."""
    shop.cli("link", *shop.project_args(), "--quiet")
    data = json.loads((shop.path / "target" / "schema_link" / "links.json").read_text())
    assert not [x for x in data["links"] if x["kind"] != "lineage" and x["child"]["relation"].endswith(".refunds")]
    (r,) = [r for r in data["rejected"] if r["child"]["relation"].endswith(".refunds")]
    assert r["trap"] == "contradicted" and r["parent"]["relation"].endswith(".customers")
    assert (r["containment"], r["verified"]) == (0.0, True) and r["would_be_confidence"] >= 0.5
    assert r["detail"] == f"named, contradicted by data: 0 of {len(REFUND_CUSTOMERS)} child values found in the parent"
    report = (shop.path / "target" / "schema_link" / "links.md").read_text()
    assert "## Named, contradicted by data" in report and "refunds.customer_id" in report
