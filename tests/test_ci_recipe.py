"""The CI recipe (examples/ci/) and the pre-commit hook on copies of the example project, with
real dbt and DuckDB: `link --check` / `write --check` exit codes before and after `write`; the
shell script passes on the written project and fails once a written link no longer holds; the
GitHub Actions workflow runs the same steps; .pre-commit-hooks.yaml validates and its hook runs."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import DBT, REPO, BuiltProject, copy_built

pytestmark = pytest.mark.dbt

CI = REPO / "examples" / "ci"
SCHEMA_LINK = str(Path(sys.executable).parent / "dbt-schema-link")
#: A link `write` writes on the example: orders reference promotions by promo_id.
BROKEN = "model.shop.stg_orders.promo_id -> model.shop.stg_promotions.promo_id"


@pytest.fixture(scope="module")
def fresh(shop_duckdb, tmp_path_factory) -> BuiltProject:
    return copy_built(shop_duckdb, tmp_path_factory.mktemp("ci_fresh") / "shop")


@pytest.fixture(scope="module")
def written(fresh, tmp_path_factory) -> BuiltProject:
    """The example as a project that committed `write`'s output (and its state file), and the
    on-run-end hook `init --on-run-end` added (the recipe's build switches it on)."""
    project = copy_built(fresh, tmp_path_factory.mktemp("ci_written") / "shop")
    project.cli("init", *project.project_args(), "--on-run-end")
    project.cli("link", *project.project_args(), "--quiet")
    project.cli("write", *project.project_args())
    project.dbt("parse")
    return project


def _generated_tests(project: BuiltProject) -> set[str]:
    """'child_column -> to' of the relationships tests `write` generated (from the manifest)."""
    manifest = json.loads((project.path / "target" / "manifest.json").read_text())
    out = set()
    for node in manifest["nodes"].values():
        meta = node.get("test_metadata") or {}
        if meta.get("name") == "relationships" and "schema_link" in (node.get("config", {}).get("meta") or {}):
            out.add(f"{node['attached_node']}.{meta['kwargs']['column_name']} -> {meta['kwargs']['to']}")
    return out


def test_checks_fail_before_write_and_pass_after(fresh, written):
    link = fresh.cli("link", "--check", *fresh.project_args(), "--quiet", check=False)
    assert link.returncode == 1, link.stderr
    new = [line for line in link.stdout.splitlines() if line.startswith("new join: ")]
    # exactly the tests `write` then generates
    assert len(new) == len(link.stdout.splitlines()) == len(_generated_tests(written)) > 0, link.stdout
    assert fresh.cli("write", "--check", *fresh.project_args(), check=False).returncode == 1

    link = written.cli("link", "--check", *written.project_args(), "--quiet", check=False)
    assert link.returncode == 0 and link.stdout == "", link.stdout + link.stderr
    assert "the written links match" in link.stderr
    assert written.cli("write", "--check", *written.project_args(), check=False).returncode == 0


def _script(project: BuiltProject, artifacts: Path) -> subprocess.CompletedProcess:
    env = {**project.env, "PROJECT_DIR": str(project.path), "PROFILES_DIR": str(project.path),
           "DBT_TARGET": project.target, "DBT": DBT, "SCHEMA_LINK": SCHEMA_LINK, "ARTIFACTS_DIR": str(artifacts)}
    return subprocess.run(["bash", str(CI / "schema_link_ci.sh")], capture_output=True, text=True, env=env,
                          cwd=project.path)


def test_ci_script_passes_on_the_written_example(written, tmp_path):
    res = _script(written, tmp_path / "artifacts")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "schema_link CI passed" in res.stderr
    # link took the build's profiles: no relation scanned twice
    assert "profiling 0 relations in the warehouse (" in res.stderr and " from the build, " in res.stderr, res.stderr
    assert (tmp_path / "artifacts" / "links.md").read_text().startswith("#")


def test_ci_script_fails_when_a_written_link_no_longer_holds(written, tmp_path):
    project = copy_built(written, tmp_path / "shop")
    assert f"- name: promo_id" in (project.path / "models" / "staging" / "_staging.yml").read_text()
    promotions = project.path / "seeds" / "raw_promotions.csv"
    with promotions.open(newline="") as handle:
        rows = list(csv.reader(handle))
    promotions.write_text("\n".join(",".join(r) for r in rows[:3]) + "\n")  # 2 of 20 promotions left

    res = _script(project, tmp_path / "artifacts")
    assert res.returncode == 1, res.stdout[-3000:] + res.stderr[-3000:]
    assert "FAILED: dbt-schema-link link --check" in res.stderr
    assert f"written link no longer holds: {BROKEN} (" in res.stdout, res.stdout[-3000:]
    assert (tmp_path / "artifacts" / "links.md").exists()  # the report is kept for the failed run too


def _script_steps() -> list[tuple[str, str]]:
    """(name, command) of each `step` line of the script, the command as a user would type it."""
    out = []
    for line in (CI / "schema_link_ci.sh").read_text().splitlines():
        if line.startswith("step "):
            _, name, command = line.split('"', 2)
            command = command.strip().replace('"$dbt"', "dbt").replace('"$schema_link"', "dbt-schema-link")
            out.append((name, " ".join(command.replace('"${common[@]}"', "").split())))
    return out


def test_workflow_runs_the_same_steps_as_the_script():
    workflow = yaml.safe_load((CI / "github-actions.yml").read_text())
    steps = workflow["jobs"]["schema-link"]["steps"]
    runs = [(s["name"], " ".join(s["run"].replace("--project-dir .", "").split()))
            for s in steps if "run" in s and s["name"] != "install"]
    assert runs == _script_steps()
    upload = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert upload and upload[0]["with"]["path"] == "target/schema_link/links.md"


def test_pre_commit_manifest_validates():
    pre_commit = [sys.executable, "-m", "pre_commit"]
    ok = subprocess.run([*pre_commit, "validate-manifest", str(REPO / ".pre-commit-hooks.yaml")],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"]: h["entry"] for h in hooks} == {
        "dbt-schema-link-check": "dbt-schema-link write --check",
        "dbt-schema-link-check-system": "dbt-schema-link write --check",
    }


def test_pre_commit_validator_rejects_a_broken_manifest(tmp_path):
    bad = tmp_path / ".pre-commit-hooks.yaml"
    bad.write_text("- id: x\n  entry: dbt-schema-link write --check\n  language: no-such-language\n")
    res = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", str(bad)],
                         capture_output=True, text=True)
    assert res.returncode != 0


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd,
                   check=True, capture_output=True)


def test_pre_commit_hook_runs_write_check(written, tmp_path):
    """`pre-commit try-repo` with the system hook (nothing to install, so it runs offline): passes
    on the written project, fails once a generated test is removed from the YAML."""
    hooks_repo = tmp_path / "hooks"
    hooks_repo.mkdir()
    (hooks_repo / ".pre-commit-hooks.yaml").write_bytes((REPO / ".pre-commit-hooks.yaml").read_bytes())
    _git(hooks_repo, "init", "-q")
    _git(hooks_repo, "add", ".pre-commit-hooks.yaml")
    _git(hooks_repo, "commit", "-q", "-m", "hooks")

    project = copy_built(written, tmp_path / "shop")
    (project.path / ".gitignore").write_text("target/\ndbt_packages/\nlogs/\n*.duckdb\n")
    _git(project.path, "init", "-q")
    _git(project.path, "add", ".")
    _git(project.path, "commit", "-q", "-m", "project")
    env = {**project.env, "DBT_PROFILES_DIR": str(project.path), "PRE_COMMIT_HOME": str(tmp_path / "pc"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    def try_repo() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hooks_repo),
                               "dbt-schema-link-check-system", "--all-files"],
                              capture_output=True, text=True, env=env, cwd=project.path)

    ok = try_repo()
    assert ok.returncode == 0, ok.stdout[-3000:] + ok.stderr[-2000:]
    assert "dbt-schema-link write --check (installed)" in ok.stdout and "Passed" in ok.stdout, ok.stdout

    # A generated test removed by hand counts as rejected (state file): remove the state as well,
    # as in a project that never ran write, so the check has something to report.
    (project.path / "schema_link_state.json").unlink()
    staging = project.path / "models" / "staging" / "_staging.yml"
    original = written.path / "models" / "staging" / "_staging.yml"
    staging.write_text((REPO / "examples" / "shop" / "models" / "staging" / "_staging.yml").read_text())
    assert staging.read_text() != original.read_text()
    failed = try_repo()
    assert failed.returncode == 1 and "Failed" in failed.stdout, failed.stdout[-3000:]
