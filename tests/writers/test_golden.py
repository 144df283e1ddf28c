"""Golden files for the written YAML: in-place edits of a hand-written schema.yml and new files,
for each dbt syntax generation; plus idempotence (a second run changes zero bytes) and the
`--dry-run` diff. Regenerate with SCHEMA_LINK_UPDATE_GOLDEN=1 after reviewing the change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dbt_schema_link.writers import (
    SemanticSpec,
    WriteOptions,
    apply,
    plan_writes,
    unified_diff,
)
from dbt_schema_link.writers.yaml_io import py_load
from tests.writers.tinyshop import (
    SCHEMA_YML,
    standard_links,
    synthetic_project,
    write_project,
)

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("SCHEMA_LINK_UPDATE_GOLDEN") == "1"

CASES = {
    # name: (dbt version, options)
    "dbt_1_11": ("1.11.16", WriteOptions()),
    "dbt_1_8": ("1.8.10", WriteOptions()),
    "semantic_legacy": ("1.11.16", WriteOptions(tests=False, column_docs=False,
                                                semantic_models=SemanticSpec.LEGACY, create_time_spine=True)),
    "semantic_in_model_1_12": ("1.12.0", WriteOptions(tests=False, column_docs=False,
                                                      semantic_models=SemanticSpec.MODEL, create_time_spine=True)),
}


def _check_golden(path: Path, actual: bytes) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual)
    assert path.exists(), f"missing golden file {path}: run with SCHEMA_LINK_UPDATE_GOLDEN=1"
    assert actual.decode() == path.read_text(), f"{path.name} differs from its golden file"


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_and_idempotent(case, tmp_path):
    version, options = CASES[case]
    root = write_project(tmp_path / "tinyshop")
    project = synthetic_project(root, version)
    plan = plan_writes(project, standard_links(), options)
    assert not plan.refusals, plan.refusals

    written = {c.display: c.new for c in plan.changes}
    for display, data in sorted(written.items()):
        _check_golden(GOLDEN / case / display, data)
    if not UPDATE:
        expected = {p.relative_to(GOLDEN / case).as_posix() for p in (GOLDEN / case).rglob("*") if p.is_file()}
        assert set(written) | {"dry-run.diff"} == expected
    _check_golden(GOLDEN / case / "dry-run.diff", unified_diff(plan).encode())

    apply(plan)
    for display, data in written.items():
        assert (root / display).read_bytes() == data
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    again = plan_writes(project, standard_links(), options)
    assert again.changes == [] and not again.would_change
    apply(again)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_in_place_edit_keeps_every_original_line(tmp_path):
    """Only lines are added to the user's file: every original line survives, in order."""
    root = write_project(tmp_path / "tinyshop")
    plan = plan_writes(synthetic_project(root), standard_links(), WriteOptions())
    change = next(c for c in plan.changes if c.display == "models/schema.yml")
    new_lines = change.new.decode().splitlines()
    pos = 0
    for line in SCHEMA_YML.splitlines():
        pos = new_lines.index(line, pos) + 1  # raises ValueError when a line was lost or moved
    data = py_load(change.new.decode())
    orders = next(m for m in data["models"] if m["name"] == "orders")
    customer_id = next(c for c in orders["columns"] if c["name"] == "customer_id")
    assert customer_id["tests"][0] == "not_null"  # appended to the existing `tests:` list
    assert "data_tests" not in customer_id
    store = next(c for c in orders["columns"] if c["name"] == "store_id")
    assert store["description"] == "Human-written: the store"  # never overwritten


def test_low_confidence_is_skipped_and_declared_gets_error(tmp_path):
    root = write_project(tmp_path / "tinyshop")
    plan = plan_writes(synthetic_project(root), standard_links(), WriteOptions(min_confidence=0.8))
    assert any("below min_confidence" in s.reason and s.link.child.column == "status" for s in plan.skipped)
    data = py_load(next(c for c in plan.changes if c.display == "models/schema.yml").new.decode())
    payments = next(m for m in data["models"] if m["name"] == "payments")
    test = payments["columns"][-1]["data_tests"][0]["relationships"]
    assert test["config"]["severity"] == "error"
    assert test["config"]["meta"]["schema_link"]["declared_elsewhere"] is True
    assert test["config"]["tags"] == ["schema_link"]
