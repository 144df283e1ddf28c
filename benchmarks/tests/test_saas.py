"""Checks of the SaaS benchmark harness (benchmarks/saas.py, saasbench/) on made-up labels, links
and seeds (no benchmark data needed).

Run: python -m pytest benchmarks/tests/test_saas.py
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
import yaml

import saas
from fkbench.databases import pair
from fkbench.product import FoundLink
from saasbench import labels, project, scoring, split
from saasbench.labels import DataSays, Label
from saasbench.scoring import Verdict

EIGHT = {"hubspot", "shopify", "netsuite", "greenhouse", "lever", "workday", "servicenow", "xero"}


def data(nonnull: int, distinct_orphans: int) -> dict:
    return {"child_nonnull": nonnull, "child_distinct_orphans": distinct_orphans}


LABELS = [
    Label(("order_line", "order_id"), ("order", "id"), "fk", data(3, 0)),  # confirmed
    Label(("refund", "order_id"), ("order", "id"), "fk", data(2, 2)),  # orphans
    Label(("invoice", "account_id"), ("payment", "account_id"), "sibling", data(4, 0)),  # confirmed
    Label(("ticket", "owner_id"), ("owner", "owner_id"), "fk", data(0, 0)),  # all NULL
]


def found(child: str, parent: str, confidence: float, kind: str = "inferred") -> FoundLink:
    c, p = tuple(child.split(".")), tuple(parent.split("."))
    return FoundLink(pair(c, p), c, p, kind, confidence, {"name_pattern": (0.85, 2.0)})


def test_split_covers_the_eight_packages_exactly_once() -> None:
    assert len(split.TUNING) == len(set(split.TUNING)) == 4
    assert len(split.HELD_BACK) == len(set(split.HELD_BACK)) == 4
    assert not set(split.TUNING) & set(split.HELD_BACK)
    assert set(split.TUNING) | set(split.HELD_BACK) == EIGHT
    assert split.half_of("Xero") is split.Half.TUNING
    assert split.half_of("shopify") is split.Half.HELD_BACK
    assert split.half_of("stripe") is None


def test_data_says_follows_the_readme_classes() -> None:
    assert [x.data_says for x in LABELS] == [DataSays.CONTAINED, DataSays.ORPHANS, DataSays.CONTAINED,
                                             DataSays.ALL_NULL]


def test_an_fk_label_matches_one_orientation_a_sibling_both() -> None:
    fk, _, sibling, _ = LABELS
    assert fk.matches(("order_line", "order_id"), ("order", "id"))
    assert not fk.matches(("order", "id"), ("order_line", "order_id"))
    assert sibling.matches(("invoice", "account_id"), ("payment", "account_id"))
    assert sibling.matches(("payment", "account_id"), ("invoice", "account_id"))


def test_read_labels_lower_cases_and_keeps_the_data(tmp_path: Path) -> None:
    path = tmp_path / "truth.json"
    path.write_text(json.dumps([{"child": "Order_Line.Order_ID", "parent": "order.id", "kind": "fk",
                                 "trace": "strict", "evidence": "m.sql: a = b", "data": data(1, 0)}]))
    (label,) = labels.read_labels(path)
    assert (label.child, label.parent, label.kind) == (("order_line", "order_id"), ("order", "id"), "fk")
    assert label.data_says is DataSays.CONTAINED


def test_names_and_keys() -> None:
    assert {"category", "categories"} <= scoring.name_forms("category")
    assert "order" in scoring.name_forms("orders") and "orders" in scoring.name_forms("order")
    assert scoring.designates("owner_user_id", "users")
    assert scoring.designates("order_id", "order")
    assert not scoring.designates("reorder_id", "order")  # a word, not a suffix of one
    assert not scoring.designates("name", "order")
    keys = scoring.table_keys("deal_pipeline", LABELS)
    assert {"id", "fivetran_id", "deal_pipeline_id", "pipeline_id"} <= keys and "deal_id" not in keys
    assert "owner_id" in scoring.table_keys("owner", LABELS)  # the parent of a label
    assert "account_id" not in scoring.table_keys("payment", LABELS)  # a sibling's parent is no key


def test_verdicts() -> None:
    links = [
        found("order_line.order_id", "order.id", 0.95),  # label
        found("payment.account_id", "invoice.account_id", 0.8),  # sibling label, other orientation
        found("order.id", "order_line.order_id", 0.75),  # an fk label reversed: false
        found("shipment.order_id", "order.id", 0.72),  # unlabelled, named key: allowed
        found("shipment.parent_order_id", "orders.order_id", 0.6),  # plural table, own-name key: allowed
        found("order.order_id", "order.id", 0.91),  # a row's own key, not a join: false
        found("refund.order_id", "order_line.order_id", 0.55),  # two children of order.id: allowed
        found("order.note", "refund.reason", 0.99),  # free text: false
        found("shipment.order_id", "order.name", 0.7),  # parent no key: false
    ]
    verdicts = {(x.child, x.parent): x for x in scoring.judge(links, LABELS)}
    v = lambda c, p: verdicts[(tuple(c.split(".")), tuple(p.split(".")))].verdict  # noqa: E731
    assert v("order_line.order_id", "order.id") is Verdict.LABEL
    assert v("payment.account_id", "invoice.account_id") is Verdict.LABEL
    assert v("order.id", "order_line.order_id") is Verdict.FALSE
    assert verdicts[(("order", "id"), ("order_line", "order_id"))].reversed_label
    assert v("shipment.order_id", "order.id") is Verdict.NAMED_KEY
    assert v("shipment.parent_order_id", "orders.order_id") is Verdict.NAMED_KEY
    assert v("order.order_id", "order.id") is Verdict.FALSE
    assert v("refund.order_id", "order_line.order_id") is Verdict.SIBLING_OF_LABEL
    assert v("order.note", "refund.reason") is Verdict.FALSE
    assert v("shipment.order_id", "order.name") is Verdict.FALSE


def test_a_pair_written_twice_counts_once_at_its_highest_confidence_case_insensitive() -> None:
    links = [found("Order_Line.order_id", "order.ID", 0.6), found("order_line.ORDER_ID", "Order.id", 0.93)]
    (only,) = scoring.judge(links, LABELS)
    assert only.confidence == 0.93 and only.verdict is Verdict.LABEL


def test_tally() -> None:
    links = [
        found("order_line.order_id", "order.id", 0.95),  # label (confirmed), band 0.9-1.0
        found("invoice.account_id", "payment.account_id", 0.5),  # label (confirmed), band 0.5-0.7
        found("shipment.order_id", "order.id", 0.72),  # allowed, band 0.7-0.9
        found("ticket.subject", "owner.name", 0.88),  # false, band 0.7-0.9, child all NULL
        found("ticket.owner_id", "owner.name", 0.3),  # false, <0.5, child all NULL
    ]
    null = {("ticket", "subject"): True, ("ticket", "owner_id"): True, ("order_line", "order_id"): False}
    scored = scoring.judge(links, LABELS, null)
    t = scoring.tally(LABELS, scored)
    assert (t.labels, t.labels_found, t.recall) == (4, 2, 0.5)
    assert (t.nonnull, t.nonnull_found) == (3, 2)
    assert (t.confirmed, t.confirmed_found, t.recall_confirmed) == (2, 2, 1.0)
    assert (t.found, t.strict, t.allowed) == (5, 2, 3)
    assert t.precision == pytest.approx(0.4) and t.precision_allowed == pytest.approx(0.6)
    assert (t.bar, t.bar_strict, t.bar_allowed) == (3, 1, 2)
    assert (t.all_null, t.all_null_bar) == (2, 1)
    assert t.bands == ((1, 0, 0), (1, 1, 1), (2, 0, 1), (1, 1, 1))
    bands = {x.to_dict()["child"]: x.to_dict()["band"] for x in scored}
    assert bands == {"order_line.order_id": "0.9-1.0", "invoice.account_id": "0.5-0.7", "shipment.order_id": "0.7-0.9",
                     "ticket.subject": "0.7-0.9", "ticket.owner_id": "<0.5"}
    assert [m.child for m in scoring.missed(LABELS, scored)] == [("refund", "order_id"), ("ticket", "owner_id")]
    both = t + t
    assert (both.labels, both.strict, both.bands[2]) == (8, 4, (4, 0, 2))
    assert both.precision == t.precision


def test_a_package_without_links_scores_no_precision() -> None:
    t = scoring.tally(LABELS, [])
    assert (t.found, t.precision, t.recall) == (0, None, 0.0)


def _seeds(tmp_path: Path) -> labels.Package:
    pkg = tmp_path / "saas_dev" / "shop"
    (pkg / "seeds").mkdir(parents=True)
    (pkg / "truth.json").write_text("[]")
    (pkg / "seeds" / "order.csv").write_text("id,Note,big_id\n1,a,12345678901234\n2,,12345678901235\n")
    (pkg / "seeds" / "order_line.csv").write_text("id,order_id,empty\n10,1,\n11,2,\n")
    return labels.Package("shop", pkg)


def test_load_write_and_all_null(tmp_path: Path) -> None:
    package = _seeds(tmp_path)
    assert [p.name for p in labels.discover(tmp_path)] == ["shop"]
    out = tmp_path / "work" / "shop"
    out.mkdir(parents=True)
    db = out / "warehouse.duckdb"
    tables = project.load_seeds(package, db)
    assert tables == ["order", "order_line"]
    project.write_project(out, "shop", tables, db, tmp_path)
    sources = yaml.safe_load((out / "models" / "sources.yml").read_text())["sources"][0]
    assert (sources["name"], sources["schema"]) == ("shop", "shop")
    by_name = {t["name"]: t for t in sources["tables"]}
    assert by_name["order"]["quoting"] == {"identifier": True}  # a reserved word
    assert "quoting" not in by_name["order_line"]
    assert yaml.safe_load((out / "packages.yml").read_text()) == {"packages": [{"local": str(tmp_path.resolve())}]}
    con = duckdb.connect(str(db), read_only=True)
    types = dict(con.execute("SELECT column_name, data_type FROM information_schema.columns "
                             "WHERE table_name = 'order'").fetchall())
    con.close()
    assert types["big_id"] == "BIGINT" and "Note" in types  # header case kept
    null = project.all_null_columns(db, "shop",
                                    [("order", "Note"), ("order_line", "empty"), ("order_line", "order_id")])
    assert null == {("order", "note"): False, ("order_line", "empty"): True, ("order_line", "order_id"): False}


def test_reuse_needs_docs_and_an_unchanged_stamp(tmp_path: Path) -> None:
    package = _seeds(tmp_path)
    folder = tmp_path / "work" / "shop"
    wanted = project.stamp(package, tmp_path)
    assert project.reusable(folder, wanted) == "warehouse.duckdb missing"
    for rel in ("warehouse.duckdb", "target/manifest.json", "target/catalog.json"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("{}")
    assert project.reusable(folder, wanted) == "no prepared.json"
    (folder / "bench_logs").mkdir()
    (folder / "bench_logs" / "prepared.json").write_text(json.dumps(wanted))
    assert project.reusable(folder, wanted) is None
    (package.dir / "seeds" / "order.csv").write_text("id\n1\n2\n3\n")  # a seed changed
    assert project.reusable(folder, project.stamp(package, tmp_path)) is not None


def test_without_data_or_with_an_unknown_package_exit_2(tmp_path: Path, capsys) -> None:
    assert saas.main(["--data", str(tmp_path)]) == 2
    assert "not available" in capsys.readouterr().err
    _seeds(tmp_path)
    assert saas.main(["--data", str(tmp_path), "--only", "nosuch"]) == 2
    assert "unknown package" in capsys.readouterr().err
