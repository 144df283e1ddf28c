"""The linker end to end on real dbt projects (dbt docs generate), the real embedding model, and
the product's index: retrieval, localization, join completion, rendering within budget, the JSON
answer, batch mode, incremental rebuild and the lexical fallback."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from dbt_schema_link.embedding_spec import DEFAULT_MODEL
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.linker import ask_batch, index, open_session, read_questions
from dbt_schema_link.evaluation.harness import run_dbt
from dbt_schema_link.linker.tokens import count_tokens
from dbt_schema_link.links import Provenance

pytestmark = pytest.mark.dbt
GOLDEN = Path(__file__).parent / "golden"
UPDATE_GOLDEN = os.environ.get("SCHEMA_LINK_UPDATE_GOLDEN") == "1"


def quiet(_msg: str) -> None:
    pass


@pytest.fixture(scope="module")
def indexed(two_schema_project, embedder) -> Path:
    report = index([two_schema_project], notice=quiet)
    assert report.model == DEFAULT_MODEL and report.columns == 30 and report.edges == 5
    return two_schema_project


@pytest.fixture(scope="module")
def session(indexed):
    return open_session([indexed], notice=quiet)


def names(answer) -> dict[str, set[str]]:
    return {r.name: {c.name for c in r.columns} for r in answer.relations}


def test_index_files_and_format(indexed):
    d = indexed / "target" / "schema_link" / "index"
    meta = json.loads((d / "index.json").read_text())
    assert meta["format"] == "dbt_schema_link/index" and meta["format_version"] == 4
    assert meta["counts"] == {"relations": 7, "columns": 30, "groups": 2, "edges": 5, "values": 14, "families": 0}
    for name in ("docs.json", "col_vectors.npy", "rel_vectors.npy", "lexical.npz", "values.npz"):
        assert (d / name).exists()


def test_retrieval_grounds_columns_and_localizes_the_schema(session):
    a = session.ask("What is the final grade of each student in the course?")
    assert a.group.schema == "school"
    got = names(a)
    assert "final_grade" in got["enrollments"]
    assert a.retrieval == "dense+lexical+values"


def test_join_completion_adds_the_bridge_model_and_keys(session):
    a = session.ask("Which product names did customers from each city buy?")
    got = names(a)
    assert {"customers", "products", "order_items"} <= set(got)
    assert "orders" in got  # the bridge between customers and order_items
    bridge = next(r for r in a.relations if r.name == "orders")
    assert {"order_id", "customer_id"} <= {c.name for c in bridge.columns}
    ons = {j.on for j in a.joins}
    assert "orders.customer_id = customers.customer_id" in ons
    assert "order_items.product_id = products.product_id" in ons
    assert "order_items.order_id = orders.order_id" in ons
    assert a.unjoined == []


def test_time_grain_questions_keep_the_date_column(indexed):
    """With a tight column budget the date column makes it only because the question asks per month."""
    question = "What is the total order amount per month?"
    tight = {"max_columns": 4}
    with_grain = names(open_session([indexed], notice=quiet, settings=tight).ask(question))
    without = names(open_session([indexed], notice=quiet, settings={**tight, "time_key": 0}).ask(question))
    assert "order_date" in with_grain["orders"] and "amount" in with_grain["orders"], with_grain
    assert "order_date" not in without.get("orders", set()), without


def test_value_index_matches_question_literals(session):
    a = session.ask("How many orders were cancelled?")
    cols = {c.name: c for r in a.relations for c in r.columns}
    assert "status" in cols
    assert any("value 'cancelled'" in reason for reason in cols["status"].reasons)
    b = session.ask("List the courses taught by the Mathematics department")
    assert b.group.schema == "school"
    assert "department" in names(b)["courses"]


def test_json_answer_shape(session):
    a = session.ask("Total order amount per customer city", hint="city is where the customer lives")
    d = json.loads(json.dumps(a.to_dict()))
    for key in ("id", "question", "hint", "project", "database", "schema", "group", "unsure", "candidates",
                "relations", "joins", "unjoined", "context", "render", "tokens", "budget", "retrieval", "latency_ms"):
        assert key in d, key
    assert d["schema"] == "shop" and d["candidates"][0]["schema"] == "shop"
    assert all({"group", "score", "support"} <= set(c) for c in d["candidates"])
    rel = d["relations"][0]
    assert {"unique_id", "name", "model", "relation_name", "score", "reasons", "columns"} <= set(rel)
    assert rel["unique_id"].startswith("source.twoschema.shop.")
    assert {"name", "score", "reasons"} <= set(rel["columns"][0])
    j = d["joins"][0]
    assert set(j["child"]) == {"unique_id", "name", "column"} and " = " in j["on"]
    assert d["tokens"] == count_tokens(d["context"]) and d["latency_ms"] > 0


def test_render_full_schema_when_it_fits(session):
    a = session.ask("How many students take each course?")
    assert a.render == "full"
    for table in ("students", "courses", "enrollments"):
        assert f'."school"."{table}"' in a.context
    assert "shop" not in a.context.split("Question:")[0]
    assert a.tokens <= a.budget


def test_render_never_exceeds_the_budget_and_keeps_join_keys(indexed):
    question = "Which product names did customers from each city buy?"
    full = open_session([indexed], budget=None, refresh=False, notice=quiet).ask(question)
    for budget in (90, 120, 160, 220, 300, 420, full.tokens - 1):
        s = open_session([indexed], budget=budget, refresh=False, notice=quiet)
        a = s.ask(question)
        assert a.tokens == count_tokens(a.context) <= budget, budget
        assert a.render == "linked"
        for j in a.joins:
            if budget >= 420:
                assert f"JOIN {j.on}" in a.context  # the whole join path once the budget allows
            if f"JOIN {j.on}" in a.context:  # a rendered join always comes with both keys
                for name, side in ((j.child_name, j.child_column), (j.parent_name, j.parent_column)):
                    block = a.context.split(f'"{name}" --', 1)[1].split("TABLE", 1)[0]
                    assert f"  {side} " in block
    with pytest.raises(SchemaLinkError, match="budget"):
        open_session([indexed], budget=5, refresh=False, notice=quiet).ask(question)


def test_written_joins_do_not_change_what_fits_the_budget(indexed):
    """After `write`, a join carries its provenance note; at any budget the schema lines are the
    same as when it was inferred (the note is added only where room is left), and the context
    still fits."""
    question = "Which product names did customers from each city buy?"
    full = open_session([indexed], budget=None, refresh=False, notice=quiet).ask(question)
    assert full.joins and all(j.provenance is not Provenance.WRITTEN for j in full.joins)
    noted = 0
    for budget in range(90, full.tokens + 60, 7):
        s = open_session([indexed], budget=budget, refresh=False, notice=quiet)
        before = s.ask(question)
        after = replace(before, joins=[replace(j, provenance=Provenance.WRITTEN, written_confidence=j.confidence)
                                       for j in before.joins])
        rendered = s.renderer.render(after, budget, after.scores)
        assert rendered.tokens == count_tokens(rendered.text) <= budget, budget
        assert rendered.mode == before.render, budget
        was, now = before.context.splitlines(), rendered.text.splitlines()
        assert [line.split(" -- written by")[0] for line in now] == was, budget
        noted += sum("-- written by dbt-schema-link" in line for line in now)
    assert noted  # where the budget has room, the written joins say so


def test_golden_rendered_contexts(indexed):
    """Pins the rendered context (lexical retrieval: deterministic everywhere) for a few questions."""
    s = open_session([indexed], budget=260, refresh=False, lexical=True, notice=quiet)
    cases = {
        "city_products": ("Which product names did customers from each city buy?", None),
        "cancelled": ("How many orders were cancelled?", None),
        "grades": ("Average final grade per course title in Fall 2023", "semester is like 'Fall 2023'"),
    }
    GOLDEN.mkdir(exist_ok=True)
    for name, (q, hint) in cases.items():
        text = s.ask(q, hint).context + "\n"
        path = GOLDEN / f"{name}.txt"
        if UPDATE_GOLDEN or not path.exists():
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8"), f"{name}: rerun with SCHEMA_LINK_UPDATE_GOLDEN=1 if intended"


def test_batch_mode_reads_jsonl_and_restricts_to_a_database(indexed, tmp_path):
    qfile = tmp_path / "q.jsonl"
    rows = [{"id": "a", "question": "Which customers live in Paris?"},
            {"id": "b", "question": "Which customers live in Paris?", "db": "school"},
            {"id": "c", "question": "final grade per student", "hint": "grades are marks"}]
    qfile.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    items = read_questions(qfile)
    out = list(ask_batch(items, project_dirs=[indexed], refresh=False, notice=quiet))
    assert [a.id for a in out] == ["a", "b", "c"]
    assert out[0].group.schema == "shop" and out[1].group.schema == "school"
    assert [c.schema for c in out[1].candidates] == ["school"]
    assert out[2].hint == "grades are marks"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n')
    with pytest.raises(SchemaLinkError, match="bad.jsonl:1"):
        read_questions(bad)
    with pytest.raises(SchemaLinkError, match="no indexed database"):
        open_session([indexed], refresh=False, notice=quiet).ask("x", db="nowhere")


def test_localization_across_two_projects(two_schema_project, hospital_project, embedder, tmp_path):
    out = tmp_path / "multi_index"
    report = index([two_schema_project, hospital_project], index_dir=out, notice=quiet)
    assert report.groups == 2  # one group per project when several are indexed
    s = open_session([two_schema_project, hospital_project], index_dir=out, refresh=False, notice=quiet)
    a = s.ask("Which diagnosis was made in each ward for patient visits?")
    assert a.group.project == "hospital"
    assert {"visits"} <= set(names(a))
    b = s.ask("Which customers ordered garden products?")
    assert b.group.project == "twoschema" and "products" in names(b)


def test_incremental_rebuild_embeds_only_changed_texts(two_schema_project, embedder, tmp_path):
    proj = tmp_path / "copy"
    shutil.copytree(two_schema_project, proj, ignore=shutil.ignore_patterns("index"))
    duck = proj / "warehouse.duckdb"
    profiles = yaml.safe_load((proj / "profiles.yml").read_text())
    profiles["schema_link_eval"]["outputs"]["dev"]["path"] = str(duck)
    (proj / "profiles.yml").write_text(yaml.safe_dump(profiles))
    first = index([proj], notice=quiet)
    assert first.embedded == 37 and first.reused == 0  # 30 columns + 7 relations
    again = index([proj], notice=quiet)
    assert again.up_to_date
    doc = proj / "models" / "shop.yml"
    doc.write_text(doc.read_text().replace("Fulfilment status of the order", "Where the parcel is in delivery"))
    run_dbt(proj, "docs", "generate")
    third = index([proj], notice=quiet)
    assert not third.up_to_date
    assert third.embedded == 1 and third.reused == 36  # only the edited column's text
    a = open_session([proj], refresh=False, notice=quiet).ask("Where is the parcel in delivery?")
    assert "status" in names(a)["orders"]


def test_lexical_fallback_without_embeddings(two_schema_project, tmp_path):
    out = tmp_path / "lexical_index"
    messages: list[str] = []
    report = index([two_schema_project], index_dir=out, model="none", notice=messages.append)
    assert report.model is None and report.embedded == 0
    s = open_session([two_schema_project], index_dir=out, refresh=False, notice=messages.append)
    assert any("no dense vectors" in m for m in messages)
    a = s.ask("How many orders were cancelled?")
    assert a.retrieval == "lexical+values"
    assert "status" in names(a)["orders"]
    # the same notice path when the extra is missing: load_embedder says so in one line
    from dbt_schema_link.linker.embedder import load_embedder

    assert load_embedder("none").embedder is None


def test_missing_index_and_bad_options_are_one_line_errors(two_schema_project, tmp_path):
    from dbt_schema_link.linker.store import LinkIndexError, load_index

    with pytest.raises(LinkIndexError, match="run `dbt-schema-link index`"):
        load_index(tmp_path / "nothing")
    with pytest.raises(SchemaLinkError, match="column limit") as bad_top:
        open_session([two_schema_project], top=0, refresh=False, notice=quiet)
    assert bad_top.value.option == "top"  # the CLI names --top
    with pytest.raises(SchemaLinkError, match="unknown linker setting"):
        open_session([two_schema_project], settings={"nope": 1}, refresh=False, notice=quiet)


def test_cli_index_and_ask_take_the_common_project_flags(two_schema_project, tmp_path, capsys):
    """index and ask accept the same project/profiles/target flags as every command, and a bad
    option is one line naming its flag (the library names the setting, the CLI the flag)."""
    from dbt_schema_link import cli

    common = ["--project-dir", str(two_schema_project), "--profiles-dir", str(two_schema_project),
              "--target", "dev", "--quiet", "--index-dir", str(tmp_path / "idx")]
    assert cli.main(["index", *common, "--model", "none"]) == 0
    assert cli.main(["ask", "Total order amount per customer city", *common, "--no-refresh"]) == 0
    out, _ = capsys.readouterr()
    assert "orders" in out
    assert cli.main(["ask", "x", *common, "--no-refresh", "--top", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: --top: ") and "column limit" in err[-1]
    assert cli.main(["index", *common, "--model", "none", "--group-by", "schema", "--project-dir",
                     str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("error: --project-dir: ")
