"""`link` after one relation changed, as a user runs it: the second run takes the first run's
scores for what did not change (target/schema_link/scores.memo), and writes exactly the links a
run without them writes."""

from __future__ import annotations

import random

import pytest

from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import write_project

pytestmark = [pytest.mark.dbt, pytest.mark.slow]

MODELS = {
    "models/stg_customers.sql": "select id as customer_id, name from {{ ref('raw_customers') }}\n",
    "models/stg_orders.sql": "select id as order_id, user_id as customer_id, store_id from {{ ref('raw_orders') }}\n",
}


def _seeds(orders: int) -> dict[str, str]:
    rng = random.Random(11)
    customers = ["id,name"] + [f"{i},Name{i}" for i in range(1, 61)]
    stores = ["store_id,city"] + [f"{i},City{i}" for i in range(1, 9)]
    staff = ["staff_id,store_id"] + [f"{i},{rng.randint(1, 8)}" for i in range(1, 31)]
    rng = random.Random(orders)  # the orders alone change with their count
    order_rows = ["id,user_id,store_id"] + [f"{i},{rng.randint(1, 60)},{rng.randint(1, 8)}" for i in range(1, orders + 1)]
    return {f"seeds/{name}.csv": "\n".join(rows) + "\n" for name, rows in (
        ("raw_customers", customers), ("raw_stores", stores), ("raw_staff", staff), ("raw_orders", order_rows))}


def test_a_second_link_after_one_seed_changed_reuses_scores_and_equals_a_full_run(tmp_path):
    root = write_project(tmp_path / "relink", "relink", {**MODELS, **_seeds(200)})
    project = BuiltProject(root, "duckdb", base_env(RELIABILITY_DUCKDB_PATH=str(tmp_path / "relink.duckdb")))
    project.dbt("deps")
    project.dbt("build")
    project.dbt("docs", "generate")
    project.cli("link", *project.project_args(), "--quiet")
    memo = root / "target" / "schema_link" / "scores.memo"
    assert memo.exists()

    for path, text in _seeds(260).items():  # more orders, more customers' ids among them
        (root / path).write_text(text)
    project.dbt("seed", "-s", "raw_orders")
    project.dbt("docs", "generate")
    relinked = project.cli("link", *project.project_args())
    said = relinked.stdout + relinked.stderr
    assert "reused from the last run" in said, said
    links = (root / "target" / "schema_link" / "links.json").read_text()

    memo.unlink()  # the same profiles, every candidate scored afresh
    project.cli("link", *project.project_args(), "--quiet")
    assert (root / "target" / "schema_link" / "links.json").read_text() == links
    assert "raw_orders" in links and '"kind": "inferred"' in links
    assert memo.exists()

    # above relink_max_columns no memo is kept (its memory), and a stale one is not left behind
    project.cli("link", *project.project_args(), "--quiet", "--set", "relink_max_columns=1")
    assert not memo.exists()

    # a memo that cannot be written costs the next run its time, never this run's links
    memo.mkdir()
    (root / "target" / "schema_link" / "links.json").unlink()
    blocked = project.cli("link", *project.project_args())
    assert "not written" in blocked.stdout + blocked.stderr
    assert (root / "target" / "schema_link" / "links.json").read_text() == links
