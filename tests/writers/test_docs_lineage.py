"""Descriptions inherited along measured lineage through several layers and renames, on a small
dbt project built here (DuckDB; the dbt executable of tests/writers/multiversion.sh when set):

    raw_accounts (seed, documented by hand)
      -> stg_accounts   id AS account_id, tier, CAST(created_at AS timestamp), inside a CTE
      -> int_accounts   account_id AS acct_key, tier AS service_tier (no YAML entry at all)
      -> dim_accounts   acct_key AS account_id; holder_name documented by hand; upper(...) computed

The mart's renamed keys inherit the seed's words three layers down, a person's description in
between wins over the seed's, computed columns get profile drafts, relations get grain drafts,
meta/tags travel only when asked, and a generated description a person deletes stays deleted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.conftest import REPO, base_env
from tests.writers.tinyshop import DBT_EXE, DbtProject, dedent

pytestmark = pytest.mark.dbt

PROJECT = """\
name: layers
version: "1.0.0"
config-version: 2
profile: layers
model-paths: ["models"]
seed-paths: ["seeds"]
flags:
  send_anonymous_usage_stats: false
"""
PROFILES = """\
layers:
  target: duckdb
  outputs:
    duckdb:
      type: duckdb
      path: "{{ env_var('LAYERS_DUCKDB_PATH', 'layers.duckdb') }}"
      threads: 1
"""
SEEDS_YML = """\
version: 2
seeds:
  - name: raw_accounts
    description: Accounts as exported by billing.
    columns:
      - name: id
        description: Account number.   # the billing system's key
      - name: full_name
        description: Name on the account.
      - name: tier
        description: Service tier.
        meta:
          owner: billing
        tags: [contract]
      - name: created_at
"""
MODELS_YML = """\
version: 2

# Hand-written. Only the mart and staging have entries; int_accounts has none.
models:
  - name: stg_accounts
    columns:
      - name: holder_name
        description: "Display name, shown on invoices."
  - name: dim_accounts
    description: One row per billing account.
    columns:
      - name: account_id
        data_tests: [unique, not_null]
      - name: tier_code
"""
SQL = {
    "stg_accounts.sql": """
        with src as (
            select id, full_name, tier, created_at from {{ ref('raw_accounts') }}
        )
        select id as account_id, full_name as holder_name, tier, cast(created_at as timestamp) as created_at
        from src
        """,
    "int_accounts.sql": """
        select a.account_id as acct_key, a.holder_name, a.tier as service_tier, a.created_at
        from {{ ref('stg_accounts') }} as a
        """,
    "dim_accounts.sql": """
        select acct_key as account_id, holder_name, service_tier, created_at, upper(service_tier) as tier_code
        from {{ ref('int_accounts') }}
        """,
}
ROWS = "id,full_name,tier,created_at\n" + "".join(
    f"{i},Holder {i},{('gold', 'silver', 'bronze')[i % 3]},2024-01-{(i % 28) + 1:02d} 10:00:00\n" for i in range(1, 61))


def _cli(project: DbtProject, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "dbt_schema_link", *args, "--project-dir", str(project.path),
           "--profiles-dir", str(project.path), "--target", project.target, "--dbt", project.executable]
    res = subprocess.run(cmd, capture_output=True, text=True, env=project.env, cwd=project.path)
    if check and res.returncode != 0:
        raise AssertionError(f"dbt-schema-link {' '.join(args)} failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    return res


@pytest.fixture(scope="module")
def layers(tmp_path_factory):
    root = tmp_path_factory.mktemp("layers") / "layers"
    (root / "models").mkdir(parents=True)
    (root / "seeds").mkdir()
    (root / "dbt_project.yml").write_text(PROJECT)
    (root / "profiles.yml").write_text(PROFILES)
    (root / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (root / "seeds" / "raw_accounts.csv").write_text(ROWS)
    (root / "seeds" / "_seeds.yml").write_text(SEEDS_YML)
    (root / "models" / "_models.yml").write_text(MODELS_YML)
    for name, body in SQL.items():
        (root / "models" / name).write_text(dedent(body))
    project = DbtProject(root, "duckdb", base_env(LAYERS_DUCKDB_PATH=str(root.parent / "layers.duckdb")))
    for step in (("deps",), ("build",), ("docs", "generate")):
        project.dbt(*step)
    _cli(project, "link")
    project.before = {p: (root / p).read_text() for p in ("seeds/_seeds.yml", "models/_models.yml")}
    project.dry = _cli(project, "write", "--docs", "inherit", "--docs", "draft", "--inherit-meta", "--dry-run")
    assert not (root / "models" / "_int_accounts__schema_link.yml").exists()  # a dry run writes nothing
    _cli(project, "write", "--docs", "inherit", "--docs", "draft", "--inherit-meta")
    project.dbt("docs", "generate")
    project.manifest = json.loads((root / "target" / "manifest.json").read_text())
    return project


def _column(layers, model: str, column: str) -> dict:
    return layers.manifest["nodes"][f"model.layers.{model}"]["columns"][column]


def _marker(col: dict) -> dict:
    return (col.get("config", {}).get("meta") or col.get("meta") or {}).get("schema_link", {})


def test_renamed_keys_inherit_through_three_layers(layers):
    for model, column in (("stg_accounts", "account_id"), ("int_accounts", "acct_key"), ("dim_accounts", "account_id")):
        col = _column(layers, model, column)
        assert col["description"] == "Account number.", (model, column)
        assert _marker(col)["inherited_from"] == "raw_accounts.id"
    assert _column(layers, "dim_accounts", "service_tier")["description"] == "Service tier."
    assert "inherit dim_accounts.account_id <- raw_accounts.id" in layers.dry.stderr
    # int_accounts had no entry: a new file, the marker where this dbt version wants column meta
    new = YAML(typ="safe").load((layers.path / "models" / "_int_accounts__schema_link.yml").read_text())
    acct = next(c for c in new["models"][0]["columns"] if c["name"] == "acct_key")
    version = tuple(int(p) for p in layers.manifest["metadata"]["dbt_version"].split(".")[:2])
    holder = acct["config"]["meta"] if version >= (1, 10) else acct["meta"]
    assert holder["schema_link"]["inherited_from"] == "raw_accounts.id"
    assert ("config" in acct) == (version >= (1, 10))


def test_a_persons_description_in_between_wins(layers):
    for model in ("int_accounts", "dim_accounts"):
        col = _column(layers, model, "holder_name")
        assert col["description"] == "Display name, shown on invoices."
        assert _marker(col)["inherited_from"] == "stg_accounts.holder_name"
    assert 'description: "Display name, shown on invoices."' in (layers.path / "models" / "_models.yml").read_text()


def test_computed_and_undocumented_columns_get_profile_drafts(layers):
    text = _column(layers, "dim_accounts", "tier_code")["description"]
    head, listed, tail = text.split("; ")
    assert head == "Tier code (text)" and tail == "never null."
    assert listed.startswith("one of ") and set(listed[len("one of "):].split(", ")) == {"GOLD", "SILVER", "BRONZE"}
    created = _column(layers, "dim_accounts", "created_at")
    assert created["description"].startswith("Created at (timestamp); ") and _marker(created)["generated"] == "draft"
    stg = layers.manifest["nodes"]["model.layers.stg_accounts"]
    assert stg["description"] == "One row per account_id."
    dim = layers.manifest["nodes"]["model.layers.dim_accounts"]
    assert dim["description"] == "One row per billing account."  # a person's


def test_meta_and_tags_travel_only_with_the_copy(layers):
    tier = _column(layers, "dim_accounts", "service_tier")
    meta = tier.get("config", {}).get("meta") or tier.get("meta")
    assert meta["owner"] == "billing"
    assert "contract" in (tier.get("tags") or tier.get("config", {}).get("tags") or [])
    assert "owner" not in (_column(layers, "dim_accounts", "tier_code").get("meta") or {})


def test_hand_written_lines_kept_and_second_run_is_a_no_op(layers):
    for name, before in layers.before.items():
        after = iter((layers.path / name).read_text().splitlines())
        assert all(any(line == new for new in after) for line in before.splitlines()), name
    files = {p: p.read_bytes() for p in layers.path.glob("**/*.yml") if "dbt_packages" not in p.parts and "target" not in p.parts}
    again = _cli(layers, "write", "--docs", "inherit", "--docs", "draft", "--inherit-meta")
    assert "nothing to write" in again.stderr
    assert {p: p.read_bytes() for p in files} == files


def test_a_deleted_draft_is_not_written_again(layers):
    path = layers.path / "models" / "_models.yml"
    yaml = YAML()
    doc = yaml.load(path.read_text())
    dim = next(m for m in doc["models"] if m["name"] == "dim_accounts")
    tier = next(c for c in dim["columns"] if c["name"] == "tier_code")
    for key in ("description", "config", "meta"):
        tier.pop(key, None)
    with path.open("w") as handle:
        yaml.dump(doc, handle)
    check = _cli(layers, "write", "--docs", "inherit", "--docs", "draft", "--check")
    assert check.returncode == 0 and "not written again: removed by hand" in check.stderr
    coverage = json.loads(_cli(layers, "docs-coverage", "--format", "json").stdout)
    dim_cov = next(r for r in coverage["relations"] if r["name"] == "dim_accounts")
    assert dim_cov["undocumented"] == ["tier_code"]
    failed = _cli(layers, "docs-coverage", "--fail-under", "1", check=False)
    assert failed.returncode == 1
