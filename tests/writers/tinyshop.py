"""A tiny dbt project for write-back tests: seeds, models, a source, and a hand-written
schema.yml with comments, odd quoting, `tests:` on one column and `data_tests:` on another, a
differently indented `sources:` block, and a model (`stores`) with no YAML entry at all."""

from __future__ import annotations

import os
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import DBT

SCHEMA_YML = """\
# Shop models: hand-written docs. Keep this comment.
version: 2

models:
  - name: customers
    description: "One row per customer"   # keep me
    columns:
      - name: customer_id
        description: 'Primary key'
        tests: [unique, not_null]
      - name: name
  - name: orders
    description: >-
      Orders placed by customers,
      folded.
    columns:
      - name: order_id
        data_tests:
          - unique
          - not_null
      - name: "customer_id"
        tests:
          - not_null   # must exist
      - name: store_id
        description: "Human-written: the store"
      # status is free text

  - name: payments
    columns:
      - name: payment_id
        data_tests: [unique]

sources:
- name: raw
  schema: "{{ target.schema }}"
  tables:
  - name: payments
    identifier: raw_payments
    columns:
    - name: order_id
"""

SEEDS = {
    "raw_customers.csv": "customer_id,name\n1,Ada\n2,Bob\n3,Cy\n",
    "raw_stores.csv": "store_id,name,owner_id\n10,North,1\n20,South,2\n",
    "raw_orders.csv": (
        "order_id,customer_id,store_id,status,ordered_at\n100,1,10,done,2024-01-01\n101,2,20,done,2024-01-02\n"
        "102,2,10,open,2024-01-02\n103,3,20,done,2024-01-03\n"
    ),
    "raw_payments.csv": "payment_id,order_id,amount\n1000,100,5.5\n1001,101,7\n1002,103,1\n",
}

MODELS = {
    "customers.sql": "select * from {{ ref('raw_customers') }}\n",
    "orders.sql": "select * from {{ ref('raw_orders') }}\n",
    "stores.sql": "select * from {{ ref('raw_stores') }}\n",
    # the source is the seed raw_payments: the hint orders them in `dbt build`
    "payments.sql": "-- depends_on: {{ ref('raw_payments') }}\nselect * from {{ source('raw', 'payments') }}\n",
}

PROFILES = """\
tinyshop:
  target: duckdb
  outputs:
    duckdb:
      type: duckdb
      path: "{{ env_var('TINYSHOP_DUCKDB_PATH', 'tinyshop.duckdb') }}"
      threads: 1
    postgres:
      type: postgres
      host: "{{ env_var('SCHEMA_LINK_PG_HOST', '127.0.0.1') }}"
      port: "{{ env_var('SCHEMA_LINK_PG_PORT', '5432') | as_number }}"
      user: "{{ env_var('SCHEMA_LINK_PG_USER', 'postgres') }}"
      password: "{{ env_var('SCHEMA_LINK_PG_PASSWORD', '') }}"
      dbname: "{{ env_var('SCHEMA_LINK_PG_DBNAME', 'postgres') }}"
      schema: tinyshop
      threads: 1
"""

PROJECT = """\
name: tinyshop
version: "1.0.0"
config-version: 2
profile: tinyshop
model-paths: ["models"]
seed-paths: ["seeds"]
flags:
  send_anonymous_usage_stats: false
"""


def write_project(root: Path) -> Path:
    (root / "models").mkdir(parents=True, exist_ok=True)
    (root / "seeds").mkdir(exist_ok=True)
    (root / "dbt_project.yml").write_text(PROJECT)
    (root / "profiles.yml").write_text(PROFILES)
    (root / "models" / "schema.yml").write_text(SCHEMA_YML)
    for name, body in MODELS.items():
        (root / "models" / name).write_text(body)
    for name, body in SEEDS.items():
        (root / "seeds" / name).write_text(body)
    return root


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# --- the same project as `read_project` would describe it, without running dbt ---------------

def _columns(*names: str) -> dict:
    from dbt_schema_link.artifacts.records import Column

    return {n.lower(): Column(name=n, data_type="INTEGER", index=i) for i, n in enumerate(names)}


def synthetic_project(root: Path, dbt_version: str = "1.11.16"):
    """A `Project` for the files `write_project(root)` wrote (patch paths as dbt sets them)."""
    from dbt_schema_link.artifacts.records import Project, Relation, ResourceType

    def model(name: str, cols: tuple[str, ...], patched: bool = True) -> Relation:
        return Relation(
            unique_id=f"model.tinyshop.{name}", resource_type=ResourceType.MODEL, name=name,
            package_name="tinyshop", database="db", schema="main", identifier=name,
            relation_name=f'"db"."main"."{name}"', columns=_columns(*cols),
            patch_path="tinyshop://models/schema.yml" if patched else None,
            original_file_path=f"models/{name}.sql",
        )

    relations = [
        model("customers", ("customer_id", "name")),
        model("orders", ("order_id", "customer_id", "store_id", "status", "ordered_at")),
        model("payments", ("payment_id", "order_id", "amount")),
        model("stores", ("store_id", "name", "owner_id"), patched=False),
        Relation(
            unique_id="source.tinyshop.raw.payments", resource_type=ResourceType.SOURCE, name="raw.payments",
            package_name="tinyshop", database="db", schema="main", identifier="raw_payments",
            relation_name='"db"."main"."raw_payments"', columns=_columns("payment_id", "order_id", "amount"),
            original_file_path="models/schema.yml",
        ),
    ]
    relations[0].primary_key = ("customer_id",)
    relations[1].primary_key = ("order_id",)
    return Project(
        project_name="tinyshop", dbt_version=dbt_version, adapter_type="duckdb",
        relations={r.unique_id: r for r in relations}, project_dir=str(root),
    )


def link(child: str, parent: str, confidence: float = 0.9, **kwargs):
    """`link("orders.customer_id", "customers.customer_id")`; `raw.payments.x` is the source."""
    from dbt_schema_link.artifacts.records import ColumnRef
    from dbt_schema_link.writers import AcceptedLink

    def ref(text: str) -> ColumnRef:
        if text.startswith("raw."):
            _, table, column = text.split(".")
            return ColumnRef(f"source.tinyshop.raw.{table}", column)
        relation, column = text.split(".")
        return ColumnRef(f"model.tinyshop.{relation}", column)

    return AcceptedLink(ref(child), ref(parent), confidence, **kwargs)


def standard_links():
    """The links the golden files are written from."""
    return [
        link("orders.customer_id", "customers.customer_id", 0.95, evidence_summary="name match; all values found"),
        link("orders.store_id", "stores.store_id", 0.9),
        link("payments.order_id", "orders.order_id", 0.4, declared_elsewhere=True),
        link("raw.payments.order_id", "orders.order_id", 0.88),
        link("stores.owner_id", "customers.customer_id", 0.9, relationship_type="11"),
        link("orders.status", "customers.name", 0.5),  # below the threshold: not written
    ]


# --- running dbt (any installed version) against the project ---------------------------------

DBT_EXE = DBT  # SCHEMA_LINK_DBT chooses another dbt version (tests/conftest.py)
#: Semantic-model spellings to exercise: "legacy" always, "model" too where dbt >= 1.12.
SEMANTIC_SPECS = tuple(s for s in os.environ.get("SCHEMA_LINK_SEMANTIC_SPECS", "legacy").split(",") if s)


@dataclass
class DbtProject:
    path: Path
    target: str
    env: dict
    executable: str = DBT_EXE

    def dbt(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [self.executable, *args, "--project-dir", str(self.path), "--profiles-dir", str(self.path),
               "--target", self.target]
        res = subprocess.run(cmd, capture_output=True, text=True, env=self.env, cwd=self.path)
        if check and res.returncode != 0:
            raise AssertionError(f"dbt {' '.join(args)} failed:\n{res.stdout[-4000:]}\n{res.stderr[-2000:]}")
        return res
