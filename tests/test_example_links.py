"""`dbt-schema-link link` on the example shop project: every planted join found with the right
direction, no trap reported, lineage copies only as lineage; links.json / links.md pinned."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.dbt

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("SCHEMA_LINK_UPDATE_GOLDEN") == "1"
EXPECTED = json.loads((REPO / "examples" / "shop" / "expected_links.json").read_text())


def _node(uid: str) -> str:
    return uid.split(".")[-1]


def _col(ref: dict) -> str:
    return f"{_node(ref['relation'])}.{ref['column']}".lower()


class _Classes:
    """Union-find over expected lineage copies: a column and its pass-through copies are one."""

    def __init__(self, lineage):
        self.parent: dict[str, str] = {}
        for item in lineage:
            self.union(item["upstream"].lower(), item["downstream"].lower())

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def _run_link(project) -> dict:
    project.cli("link", *project.project_args(), "--quiet")
    return json.loads((project.path / "target" / "schema_link" / "links.json").read_text())


@pytest.fixture(scope="module")
def duck_links(shop_duckdb):
    return _run_link(shop_duckdb)


def _check_against_ground_truth(links: dict) -> None:
    classes = _Classes(EXPECTED["lineage"])
    joins = [l for l in links["links"] if l["kind"] in ("inferred", "declared")]
    found = {(_col(l["child"]), _col(l["parent"])) for l in joins}
    for join in EXPECTED["joins"]:
        pair = (join["child"].lower(), join["parent"].lower())
        assert pair in found, f"planted join {pair} not found with the right direction"
    for trap in EXPECTED["traps"]:
        a, b = classes.find(trap["a"].lower()), classes.find(trap["b"].lower())
        for link in joins:
            ends = {classes.find(_col(link["child"])), classes.find(_col(link["parent"]))}
            assert ends != {a, b}, f"trap {trap['kind']} reported: {link['child']} -> {link['parent']}"
    # Nothing beyond the planted joins (each counted once, at the layer where it is planted).
    assert len(joins) == len(EXPECTED["joins"]), sorted(found)
    lineage = {(_col(l["parent"]), _col(l["child"])) for l in links["links"] if l["kind"] == "lineage"} | {
        (_col(l["child"]), _col(l["parent"])) for l in links["links"] if l["kind"] == "lineage"}
    for item in EXPECTED["lineage"]:
        pair = (item["upstream"].lower(), item["downstream"].lower())
        assert pair in lineage, f"lineage copy {pair} not reported as lineage"
    for link in joins:
        assert classes.find(_col(link["child"])) != classes.find(_col(link["parent"])), \
            f"a lineage copy was reported as a join: {link['child']} -> {link['parent']}"


def test_example_links_match_ground_truth_on_duckdb(duck_links):
    _check_against_ground_truth(duck_links)


def test_example_links_match_ground_truth_on_postgres(shop_postgres):
    _check_against_ground_truth(_run_link(shop_postgres))


def _golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if UPDATE or not path.exists():
        if not UPDATE and os.environ.get("CI"):
            pytest.fail(f"golden file {path} is missing; create it with SCHEMA_LINK_UPDATE_GOLDEN=1")
        path.write_text(actual)
    assert actual == path.read_text(), f"{name} changed; review and re-run with SCHEMA_LINK_UPDATE_GOLDEN=1"


def test_links_json_golden(duck_links, shop_duckdb):
    text = (shop_duckdb.path / "target" / "schema_link" / "links.json").read_text()
    _golden("shop_links.json", text.replace(str(shop_duckdb.path), "<project>"))


def test_links_md_golden(duck_links, shop_duckdb):
    text = (shop_duckdb.path / "target" / "schema_link" / "links.md").read_text()
    _golden("shop_links.md", text.replace(str(shop_duckdb.path), "<project>"))


def test_second_link_run_is_stable(duck_links, shop_duckdb):
    again = _run_link(shop_duckdb)
    assert again == duck_links


def test_link_without_the_warehouse_reuses_cached_signatures(shop_duckdb, duck_links, tmp_path):
    """`link --no-profile` reads target/schema_link/profiles.json: links still carry MinHash
    containment estimates (no exact check: that needs the warehouse)."""
    before = (shop_duckdb.path / "target" / "schema_link" / "links.json").read_bytes()
    try:
        shop_duckdb.cli("link", *shop_duckdb.project_args(), "--no-profile", "--quiet")
        offline = json.loads((shop_duckdb.path / "target" / "schema_link" / "links.json").read_text())
    finally:
        (shop_duckdb.path / "target" / "schema_link" / "links.json").write_bytes(before)
    inferred = [l for l in offline["links"] if l["kind"] == "inferred"]
    signals = {e["signal"] for l in inferred for e in l["evidence"]}
    assert "value_containment_estimate" in signals and "exact_containment" not in signals, signals
    found = {(_col(l["child"]), _col(l["parent"])) for l in inferred}
    assert any("opened_by" in child for child, _ in found), sorted(found)
