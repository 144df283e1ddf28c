"""Validation before writing, and `write_back` in its three modes."""

from __future__ import annotations

import subprocess
from dataclasses import replace

import pytest

from dbt_schema_link.artifacts.manifest import read_project
from dbt_schema_link.dbt_runner import DbtInvocation
from dbt_schema_link.errors import YamlWriteError
from dbt_schema_link.writers import WriteMode, WriteOptions, plan_writes, write_back
from dbt_schema_link.writers.records import ChangeKind, FileChange
from dbt_schema_link.writers.validate import (
    ValidationReport,
    bundled_schema,
    check_schema,
    installed_dbt_version,
    schema_errors,
)
from tests.conftest import DBT, base_env
from tests.writers.tinyshop import standard_links, synthetic_project, write_project


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    """tinyshop after `dbt parse` only (no warehouse needed)."""
    root = write_project(tmp_path_factory.mktemp("validate") / "tinyshop")
    res = subprocess.run([DBT, "parse", "--project-dir", str(root), "--profiles-dir", str(root)],
                         capture_output=True, text=True, env=base_env(), cwd=root)
    assert res.returncode == 0, res.stdout[-2000:]
    return root, read_project(root / "target", require_catalog=False, project_dir=root)


def _files(root):
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "target" not in p.parts}


@pytest.mark.skipif(bundled_schema() is None, reason="the installed dbt ships no JSON schema")
def test_schema_check_reports_only_new_violations(tmp_path):
    schema = bundled_schema()
    assert schema_errors({"models": [{"name": "a", "columns": [{"name": "b", "config": {"meta": {}}}]}]}, schema) == set()
    old = b"models:\n  - name: a\n    bogus_old: 1\n"
    new = old + b"    columns:\n      - name: b\n        data_tests:\n          - relationships:\n" \
                b"              arguments: {to: ref('x'), field: id}\n              config: {severity: warn, colour: red}\n"
    plan = plan_writes(synthetic_project(write_project(tmp_path / "p")), [])
    plan.changes = [FileChange(tmp_path / "p" / "models" / "x.yml", "models/x.yml", old, new, ChangeKind.YAML)]
    plan.dbt_version = ".".join(map(str, installed_dbt_version()))
    report = ValidationReport()
    check_schema(plan, report)
    assert len(report.problems) == 1 and "data_tests" in report.problems[0]  # bogus_old is the user's


@pytest.mark.dbt
def test_dbt_parse_catches_new_deprecations(parsed):
    """Legacy test syntax (what dbt 1.8 needs) warns on the installed dbt: refused, nothing written."""
    root, project = parsed
    inv = DbtInvocation(project_dir=root)
    before = _files(root)
    with pytest.raises(YamlWriteError, match="nothing written: dbt parse warns"):
        write_back(replace(project, dbt_version="1.8.10"), standard_links(), WriteOptions(), inv=inv)
    assert _files(root) == before


@pytest.mark.dbt
def test_write_back_modes(parsed, tmp_path):
    root, project = parsed
    before = _files(root)
    dry = write_back(project, standard_links(), mode=WriteMode.DRY_RUN)
    assert dry.exit_code == 0 and "+++ b/models/schema.yml" in dry.diff and _files(root) == before
    check = write_back(project, standard_links(), mode=WriteMode.CHECK)
    assert check.exit_code == 1 and any("would change" in m for m in check.messages)
    done = write_back(project, standard_links(), inv=DbtInvocation(project_dir=root))
    assert "models/schema.yml" in done.written and done.validation.ok
    assert any("dbt parse" in c for c in done.validation.checked)
    assert write_back(project, standard_links(), mode=WriteMode.CHECK).exit_code == 0
    again = write_back(project, standard_links())
    assert again.written == () and "up to date" in again.messages[-1]
