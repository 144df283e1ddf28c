"""`write --docs inherit --docs draft` and `docs-coverage` on the example project (examples/shop,
DuckDB), through the CLI a user runs: every column documented afterwards, nothing a person wrote
changed (only lines added), a second run changes no byte, `dbt docs generate` carries the new
descriptions, and an inherited description follows its upstream until a person edits it."""

from __future__ import annotations

import difflib
import json
import shutil

import pytest

from tests.conftest import BuiltProject

pytestmark = pytest.mark.dbt
DOCS = ("--docs", "inherit", "--docs", "draft")


@pytest.fixture(scope="module")
def shop(shop_duckdb, tmp_path_factory):
    """A private copy of the session's example (warehouse included) with links and profiles."""
    dest = tmp_path_factory.mktemp("shop_docs") / "shop"
    shutil.copytree(shop_duckdb.path, dest, symlinks=True, ignore=shutil.ignore_patterns("logs", "*.duckdb", "*.wal"))
    database = dest.parent / "shop.duckdb"
    shutil.copyfile(shop_duckdb.env["SHOP_DUCKDB_PATH"], database)
    built = BuiltProject(dest, shop_duckdb.target, {**shop_duckdb.env, "SHOP_DUCKDB_PATH": str(database)})
    built.cli("link", *built.project_args())
    built.before = _yaml_bytes(built)
    built.coverage_before = _coverage(built)
    built.below = built.cli("docs-coverage", *built.project_args(), "--fail-under", "0.8", check=False)
    built.written = built.cli("write", *built.project_args(), *DOCS)
    built.after = _yaml_bytes(built)
    return built


def _yaml_bytes(shop: BuiltProject) -> dict[str, bytes]:
    files = sorted(shop.path.glob("models/**/*.yml")) + sorted(shop.path.glob("seeds/**/*.yml"))
    return {p.relative_to(shop.path).as_posix(): p.read_bytes() for p in files}


def _coverage(shop: BuiltProject) -> dict:
    return json.loads(shop.cli("docs-coverage", *shop.project_args(), "--format", "json").stdout)


def test_every_column_documented_afterwards(shop):
    before, after = shop.coverage_before, _coverage(shop)
    assert before["counts"]["none"] > 0 and before["share"] < 0.8
    assert shop.below.returncode == 1 and "below --fail-under 0.8" in shop.below.stderr
    assert after["columns"] == before["columns"] and after["counts"]["none"] == 0 and after["share"] == 1.0
    assert after["counts"]["person"] == before["counts"]["person"]  # nobody's text became ours
    assert after["counts"]["inherited"] > 0 and after["counts"]["drafted"] > 0
    passed = shop.cli("docs-coverage", *shop.project_args(), "--fail-under", "0.8")
    assert passed.returncode == 0 and f"{after['columns']} of {after['columns']} columns documented" in passed.stdout
    bad = shop.cli("docs-coverage", *shop.project_args(), "--fail-under", "80", check=False)
    assert bad.returncode == 2 and bad.stderr.strip().startswith("error: --fail-under:") and len(bad.stderr.splitlines()) == 1


def test_hand_written_lines_are_untouched(shop):
    changed = [name for name in shop.before if shop.after[name] != shop.before[name]]
    assert changed
    for name in changed:
        old = shop.before[name].decode().splitlines(keepends=True)
        new = shop.after[name].decode().splitlines(keepends=True)
        ops = {tag for tag, *_ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()}
        assert ops <= {"equal", "insert"}, name  # every original byte kept, lines only added


def test_second_run_changes_no_byte(shop):
    state = (shop.path / "schema_link_state.json").read_bytes()
    again = shop.cli("write", *shop.project_args(), *DOCS)
    assert "nothing to write" in again.stderr
    assert _yaml_bytes(shop) == shop.after and (shop.path / "schema_link_state.json").read_bytes() == state
    assert shop.cli("write", *shop.project_args(), *DOCS, "--check").returncode == 0


def test_dbt_docs_generate_shows_inherited_and_drafted_descriptions(shop):
    shop.dbt("docs", "generate")
    manifest = json.loads((shop.path / "target" / "manifest.json").read_text())
    nodes = manifest["nodes"]
    upstream = nodes["model.shop.stg_support_tickets"]["columns"]["channel"]["description"]
    inherited = nodes["model.shop.fct_support_tickets"]["columns"]["channel"]
    assert upstream and inherited["description"] == upstream
    marker = inherited["config"]["meta"]["schema_link"]
    assert marker["generated"] == "inherited" and marker["inherited_from"] == "stg_support_tickets.channel"
    drafted = nodes["seed.shop.raw_orders"]["columns"]["status"]
    assert drafted["description"].startswith("Status (text); one of ") and drafted["description"].endswith("never null.")
    assert drafted["config"]["meta"]["schema_link"]["generated"] == "draft"
    # still nothing to do on the re-parsed project
    assert shop.cli("write", *shop.project_args(), *DOCS, "--check").returncode == 0


def test_stale_inherited_description_is_reported_then_followed_unless_a_person_edited_it(shop):
    staging = shop.path / "models" / "staging" / "_staging.yml"
    marts = shop.path / "models" / "marts" / "_marts.yml"
    text = staging.read_text()
    assert text.count("description: email, chat or phone.") == 1
    staging.write_text(text.replace("description: email, chat or phone.", "description: email, chat, phone or web form."))
    # a person rewrites another inherited description downstream: it is theirs now
    marts_text = marts.read_text()
    assert marts_text.count("description: low, normal or high.") == 1
    marts.write_text(marts_text.replace("description: low, normal or high.", "description: Triage priority set by support."))
    check = shop.cli("write", *shop.project_args(), *DOCS, "--check", check=False)
    assert check.returncode == 1
    assert "stale inherited description: fct_support_tickets.channel" in check.stderr
    assert "fct_support_tickets.priority" not in check.stderr
    shop.cli("write", *shop.project_args(), *DOCS)
    written = marts.read_text()
    assert "description: email, chat, phone or web form." in written
    assert "description: Triage priority set by support." in written
    coverage = {r["name"]: r for r in _coverage(shop)["relations"]}
    assert coverage["fct_support_tickets"]["counts"]["person"] == 6  # 5 by hand + the edited one
    assert shop.cli("write", *shop.project_args(), *DOCS, "--check").returncode == 0
