"""What a new user trips over in the first week (issue 28), each on a small project built here
(real dbt, real DuckDB): SQL facts after `dbt test`, the staleness notice, drafts and the output
of `write` / `ask` / links.md."""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path

import pytest

from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import build, cli, write_project

pytestmark = pytest.mark.dbt

STORES = [(str(uuid.uuid5(uuid.NAMESPACE_DNS, f"store{i}")), f"Store {i}", ("north", "south")[i % 2])
          for i in range(6)]
SEEDS = {
    "seeds/raw_stores.csv": "store_id,store_name,region\n" + "".join(f"{s},{n},{r}\n" for s, n, r in STORES),
    "seeds/raw_customers.csv": "customer_id,name\n" + "".join(f"{i},Name {i}\n" for i in range(1, 41)),
    "seeds/raw_orders.csv": "order_id,customer_id,store_id,status\n" + "".join(
        f"{i},{1 + i % 40},{STORES[i % 6][0]},{('placed', 'shipped', 'returned')[i % 3]}\n" for i in range(1, 301)),
}
MODELS = {
    # a CTE whose body is a macro call: without dbt's compiled SQL the reader sees `(NULL)` there
    "macros/select_all.sql": "{% macro select_all(rel) %}select * from {{ rel }}{% endmacro %}\n",
    "models/order_customers.sql": (
        "with o as ({{ select_all(ref('raw_orders')) }}),\n"
        "     c as (select * from {{ ref('raw_customers') }})\n"
        "select o.order_id, o.customer_id, c.name\nfrom o join c on o.customer_id = c.customer_id\n"),
    "models/schema.yml": "version: 2\nmodels:\n  - name: order_customers\n    columns:\n      - name: order_id\n"
                         "        data_tests: [unique]\n      - name: customer_id\n        data_tests:\n"
                         "          - relationships:\n              arguments: {to: \"ref('raw_customers')\", field: customer_id}\n",
}


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> BuiltProject:
    root = tmp_path_factory.mktemp("firstweek") / "firstweek"
    write_project(root, "firstweek", {**SEEDS, **MODELS}, "models:\n  firstweek:\n    +materialized: table\n")
    return build(BuiltProject(root, "duckdb", base_env(RELIABILITY_DUCKDB_PATH=str(root.parent / "fw.duckdb"))))


def _links(project: BuiltProject) -> dict:
    return json.loads((project.path / "target/schema_link/links.json").read_text())


def _compiled_code(project: BuiltProject) -> str | None:
    manifest = json.loads((project.path / "target/manifest.json").read_text())
    return manifest["nodes"]["model.firstweek.order_customers"].get("compiled_code")


def test_sql_joins_survive_dbt_test_and_library_warnings_stay_off_the_terminal(small):
    small.dbt("test")
    assert not _compiled_code(small), "dbt test kept compiled SQL: the case no longer reproduces"
    res = cli(small, "link", "--no-profile")
    counts = _links(small)["counts"]
    assert counts.get("sql_models_compiled") == 1 and not counts.get("sql_warnings"), counts
    assert "Cannot traverse" not in res.stderr, res.stderr
    assert "1 SQL joins" in res.stderr, res.stderr

    # Without dbt's compiled files the raw SQL is read: sqlglot's warning goes to the notes, not stderr.
    compiled = small.path / "target/compiled"
    compiled.rename(compiled.with_name("compiled.away"))
    run = small.path / "target/run"
    run.rename(run.with_name("run.away"))
    try:
        res = cli(small, "link", "--no-profile")
    finally:
        compiled.with_name("compiled.away").rename(compiled)
        run.with_name("run.away").rename(run)
    links = _links(small)
    assert "Cannot traverse" not in res.stderr, res.stderr
    assert links["counts"].get("sql_warnings", 0) >= 1, links["counts"]
    assert any("SQL reader warned" in note and "Cannot traverse scope" in note for note in links["notes"]), links["notes"]


def _notices(res) -> list[str]:
    return [line for line in res.stderr.splitlines() if line.startswith("notice:")]


def test_staleness_follows_content_not_clocks(small):
    # `write` edits YAML, then `dbt test` rewrites the manifest (not the catalog): nothing is stale.
    schema = small.path / "models/schema.yml"
    original = schema.read_text()
    schema.write_text(original.replace("      - name: order_id\n", "      - name: order_id\n"
                                       "        description: The order.\n"))
    small.dbt("test")
    assert _notices(cli(small, "link", "--no-profile", "--quiet")) == []

    # A model touched but unchanged, newer than the manifest: its checksum there still matches.
    model = small.path / "models/order_customers.sql"
    later = model.stat().st_mtime + 60
    os.utime(model, (later, later))
    os.utime(small.path / "target/catalog.json", (later + 1, later + 1))
    assert _notices(cli(small, "link", "--no-profile", "--quiet")) == []

    # A model whose text changed: the manifest no longer reflects it.
    text = model.read_text()
    model.write_text(text + "-- changed\n")
    try:
        notes = _notices(cli(small, "link", "--no-profile", "--quiet"))
    finally:
        model.write_text(text)
    assert len(notes) == 1 and "manifest.json is older than models/order_customers.sql" in notes[0], notes


def test_a_file_replaced_under_a_running_command_is_one_line_not_a_traceback(small):
    """Another run (or `dbt deps`) can remove or replace a file between the checks and the read:
    links.json turned into a directory is the reproducible shape of that race."""
    cli(small, "link", "--no-profile", "--quiet")
    links = small.path / "target/schema_link/links.json"
    saved = links.read_bytes()
    links.unlink()
    links.mkdir()
    try:
        results = [cli(small, command, "--quiet", check=False) for command in ("index", "write")]
    finally:
        links.rmdir()
        links.write_bytes(saved)
    for res in results:
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
        assert lines[-1].startswith("error: ") and str(links) in lines[-1], res.stderr


def test_write_skips_a_dangling_symlink_in_the_project(small, tmp_path):
    """A leftover link in the project's root whose target is gone (`target-base -> /Users/...`):
    `write` validates on a scratch copy without it and writes; the link is left as it was and
    nothing is created where it points. A live link to a file outside is copied, not written
    through."""
    gone = tmp_path / "Users" / "someone" / "target"
    link = small.path / "target-base"
    link.symlink_to(gone, target_is_directory=True)
    outside = tmp_path / "notes.md"
    outside.write_text("kept\n")
    (small.path / "notes.md").symlink_to(outside)
    try:
        cli(small, "link", "--quiet")
        res = cli(small, "write")
        assert "wrote " in res.stderr and "dbt parse on a scratch copy" in res.stderr, (res.stdout, res.stderr)
    finally:
        link.unlink()
        (small.path / "notes.md").unlink()
    assert not gone.exists() and not gone.parent.exists() and outside.read_text() == "kept\n"


def _descriptions(project: BuiltProject) -> dict[str, str]:
    project.dbt("parse")
    manifest = json.loads((project.path / "target/manifest.json").read_text())
    return {f"{node['name']}.{name}": column.get("description") or ""
            for node in manifest["nodes"].values() if node["resource_type"] in ("model", "seed")
            for name, column in node["columns"].items()}


def _listed(text: str) -> set[str]:
    """The values a draft enumerates ("...; one of a, b; ...")."""
    part = next((p for p in text.rstrip(".").split("; ") if p.startswith("one of ")), "")
    return set(part[len("one of "):].split(", ")) if part else set()


def test_drafts_list_categories_never_identifiers_and_name_every_join(small):
    cli(small, "link", "--quiet")
    cli(small, "write", "--docs", "draft", "--quiet")
    docs = _descriptions(small)
    # six stores: the UUID key and the unique names are not "one of <6 values>"
    assert "one of" not in docs["raw_stores.store_id"] and "unique" in docs["raw_stores.store_id"], docs
    assert "one of" not in docs["raw_stores.store_name"], docs
    assert _listed(docs["raw_stores.region"]) == {"north", "south"}, docs
    assert _listed(docs["raw_orders.status"]) == {"placed", "shipped", "returned"}, docs
    assert "one of" not in docs["raw_orders.store_id"], docs  # six UUIDs, repeated: still ids
    # every column with an accepted link (inferred or declared) says what it joins to
    assert "Joins to `raw_stores.store_id`" in docs["raw_orders.store_id"], docs
    assert "Joins to `raw_customers.customer_id`" in docs["raw_orders.customer_id"], docs
    assert "Joins to `raw_customers.customer_id`" in docs["order_customers.customer_id"], docs


def test_no_hook_runs_until_init_on_run_end(small):
    """The package declares no on-run-end hook: a project that has not opted in runs none (no
    `OK hook` line, nothing in run_results.json); `init --on-run-end` adds the line and its switch,
    keeping the file's comments, once."""
    def hooks(res) -> tuple[list[str], list[str]]:
        results = json.loads((small.path / "target/run_results.json").read_text())["results"]
        return ([line for line in res.stdout.splitlines() if "hook:" in line],
                [r["unique_id"] for r in results if ".hooks." in r["unique_id"] or "operation." in r["unique_id"]])

    assert hooks(small.dbt("run", "-s", "order_customers")) == ([], [])
    project_yml = small.path / "dbt_project.yml"
    project_yml.write_text("# my project\n" + project_yml.read_text())
    check = cli(small, "init", "--on-run-end", "--check", check=False)
    assert check.returncode == 1 and "would add on-run-end" in check.stdout, check.stdout
    done = cli(small, "init", "--on-run-end")
    assert "added on-run-end `{{ dbt_schema_link.on_run_end() }}`" in done.stdout, done.stdout
    text = project_yml.read_text()
    assert text.startswith("# my project\nname: firstweek\n") and "schema_link_on_run_end: true" in text, text
    again = cli(small, "init", "--on-run-end", "--check")
    assert "✓ the on-run-end hook is in" in again.stdout and project_yml.read_text() == text
    run = small.dbt("run", "-s", "order_customers")
    lines, nodes = hooks(run)
    assert len(lines) == 2 and len(nodes) == 1, (lines, nodes)  # start and end line of the one hook
    assert "on-run-end profiled 1 relations built by this run" in run.stdout, run.stdout[-2000:]


@pytest.fixture(scope="module")
def copies(tmp_path_factory) -> BuiltProject:
    """Orders and customers, and `customers`, a pass-through copy of raw_customers: a join to
    raw_customers holds for its copy too, with the same confidence."""
    root = tmp_path_factory.mktemp("copies") / "copies"
    files = {k: v for k, v in SEEDS.items() if "stores" not in k}
    files["seeds/raw_orders.csv"] = "order_id,customer_id,status\n" + "".join(
        f"{i},{1 + i % 40},{('placed', 'shipped', 'returned')[i % 3]}\n" for i in range(1, 301))
    files["models/customers.sql"] = "select customer_id, name from {{ ref('raw_customers') }}\n"
    write_project(root, "copies", files, "models:\n  copies:\n    +materialized: table\n")
    return build(BuiltProject(root, "duckdb", base_env(RELIABILITY_DUCKDB_PATH=str(root.parent / "c.duckdb"))))


def test_ask_names_one_parent_per_column_line(copies):
    """raw_orders.customer_id joins raw_customers, and so (lineage) its copy `customers`, with the
    same confidence; the column's YAML says "Joins to `raw_customers.customer_id`". The FK marker
    of the line must name that parent, not the copy (the two used to disagree on one line)."""
    cli(copies, "link", "--quiet")
    (copies.path / "seeds/raw_orders.yml").write_text(
        "version: 2\nseeds:\n  - name: raw_orders\n    columns:\n      - name: customer_id\n"
        "        description: Joins to `raw_customers.customer_id` (many-to-one).\n")
    try:
        copies.dbt("docs", "generate")
        cli(copies, "index", "--quiet")
        asked = cli(copies, "ask", "how many orders does each customer name have", "--quiet")
    finally:
        (copies.path / "seeds/raw_orders.yml").unlink()
        copies.dbt("docs", "generate")
    line = next(l for l in asked.stdout.splitlines() if l.strip().startswith("customer_id") and "FK ->" in l)
    parents = {m for pair in re.findall(r"FK -> (\w+)\.customer_id|Joins to `(\w+)\.customer_id`", line)
               for m in pair if m}
    assert parents == {"raw_customers"}, (line, asked.stdout)


def test_write_explains_its_checks_and_confidences_read_the_same_everywhere(copies):
    cli(copies, "link", "--quiet")
    written = cli(copies, "write")
    assert not any(line.startswith("JSON schema:") for line in written.stderr.splitlines()), written.stderr
    assert "checked the new YAML against dbt's JSON schema of project YAML" in written.stderr, written.stderr
    copies.dbt("docs", "generate")
    manifest = json.loads((copies.path / "target/manifest.json").read_text())
    column = manifest["nodes"]["seed.copies.raw_orders"]["columns"]["customer_id"]
    meta = (column.get("config") or {}).get("meta") or column.get("meta")
    written_confidence = meta["schema_link"]["confidence"]
    links_md = (copies.path / "target/schema_link/links.md").read_text()
    row = next(line for line in links_md.splitlines() if line.startswith("| `raw_orders.customer_id`"))
    assert f"| {written_confidence:.3f} |" in row, (row, written_confidence)
