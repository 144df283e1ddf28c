"""Relation families on a real dbt-duckdb project: date-sharded seeds (`events_20210101` …), a
number-sharded seed family beside its unsharded table (`page_views`, `page_views_1` …), sharded
models (`signups_2019` …), and look-alikes that are no family (different columns; only two
shards). Built with `dbt build` + `dbt docs generate`, indexed with the default model, asked
through `ask` and the MCP tools' `find_schema`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from dbt_schema_link import api
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.evaluation.harness import dbt_version, run_dbt
from dbt_schema_link.linker.embedder import DEFAULT_MODEL
from dbt_schema_link.linker.service import input_files
from dbt_schema_link.linker.store import load_index
from dbt_schema_link.project_config import locate

pytestmark = [pytest.mark.dbt]

EVENT_DAYS = [f"202101{d:02d}" for d in range(1, 8)]
#: Shards and look-alikes: seed name -> CSV text.
SEEDS = {
    "customers": "customer_id,full_name,city\n1,Ada Lovelace,London\n2,Alan Turing,Wilmslow\n",
    **{f"events_{day}": f"event_id,customer_id,event_type,amount\n{i},1,click,{i}.5\n{i + 100},2,purchase,9.0\n"
       for i, day in enumerate(EVENT_DAYS)},
    "page_views": "view_id,page_url,seconds_on_page\n1,/home,12\n",
    **{f"page_views_{n}": f"view_id,page_url,seconds_on_page\n{n},/p{n},{n}\n" for n in range(1, 5)},
    "report_2020": "region,revenue\nnorth,1\n",  # same stem, different columns each year: no family
    "report_2021": "region,cost\nnorth,1\n",
    "report_2022": "region,margin\nnorth,1\n",
    "address1": "street,zip\nMain,1\n",  # two of one shape: below min_shards
    "address2": "street,zip\nHigh,2\n",
}
SIGNUP_YEARS = (2019, 2020, 2021)
EVENTS_QUESTION = "What is the total purchase amount per customer full name across events?"


def _relationships(to: str, field: str) -> dict:
    args = {"to": to, "field": field}
    new_style = tuple(int(x) for x in re.findall(r"\d+", dbt_version())[:3]) >= (1, 10, 5)
    return {"relationships": {"arguments": args} if new_style else args}


@pytest.fixture(scope="module")
def sharded(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("families") / "sharded"
    (dest / "seeds").mkdir(parents=True)
    (dest / "models").mkdir()
    (dest / "dbt_project.yml").write_text(yaml.safe_dump({
        "name": "sharded", "version": "1.0.0", "config-version": 2, "profile": "sharded",
        "model-paths": ["models"], "seed-paths": ["seeds"], "target-path": "target"}), encoding="utf-8")
    (dest / "profiles.yml").write_text(yaml.safe_dump({"sharded": {"target": "dev", "outputs": {"dev": {
        "type": "duckdb", "path": str(dest / "warehouse.duckdb"), "threads": 1}}}}), encoding="utf-8")
    for name, text in SEEDS.items():
        (dest / "seeds" / f"{name}.csv").write_text(text, encoding="utf-8")
    # a person declared one shard's join: it holds for the family
    (dest / "seeds" / "schema.yml").write_text(yaml.safe_dump({"version": 2, "seeds": [
        {"name": "customers", "description": "One row per customer",
         "columns": [{"name": "customer_id", "data_tests": ["unique", "not_null"]}]},
        {"name": f"events_{EVENT_DAYS[2]}", "description": "Click and purchase events of one day",
         "columns": [{"name": "customer_id", "data_tests": [_relationships("ref('customers')", "customer_id")]},
                     {"name": "amount", "description": "Purchase amount in dollars"}]},
    ]}), encoding="utf-8")
    for year in SIGNUP_YEARS:
        (dest / "models" / f"signups_{year}.sql").write_text(
            f"select customer_id, full_name, {year} as signup_year from {{{{ ref('customers') }}}}\n", encoding="utf-8")
    run_dbt(dest, "build")
    run_dbt(dest, "docs", "generate")
    return dest


@pytest.fixture(scope="module")
def indexed(sharded, embedder) -> tuple[Path, object]:
    report = api.index([sharded], model=DEFAULT_MODEL, force=True)
    return sharded, report


def _by_name(index) -> dict:
    return {r.short_name: r for r in index.corpus.relations}


def test_shards_of_one_shape_are_one_relation_with_their_range(indexed):
    project, report = indexed
    assert report.families == 3
    assert "3 relation families" in report.summary()
    index = load_index(locate(project).target_dir / "schema_link" / "index")
    rels = _by_name(index)
    # customers, events, page_views, signups, three reports, two addresses
    assert sorted(rels) == ["address1", "address2", "customers", "events", "page_views", "report_2020",
                            "report_2021", "report_2022", "signups"]
    events = rels["events"]
    assert (events.shards, events.shard_first, events.shard_last, events.shard_dated) == \
        (7, "events_20210101", "events_20210107", True)
    assert events.identifier == "events_20210107"  # the latest shard stands for the family
    assert events.col_end - events.col_start == 4  # its columns once, not seven times
    # a person documented one (older) shard: the family carries its words
    assert events.description == "Click and purchase events of one day"
    amount = next(c for c in index.corpus.columns[events.col_start:events.col_end] if c.name == "amount")
    assert amount.description == "Purchase amount in dollars"
    views = rels["page_views"]
    # the unsharded table of the same name and shape stands for its numbered shards
    assert (views.identifier, views.shards, views.shard_first, views.shard_last, views.shard_dated) == \
        ("page_views", 4, "page_views_1", "page_views_4", False)
    signups = rels["signups"]
    assert (signups.resource_type, signups.shards, signups.shard_last) == ("model", 3, "signups_2021")
    assert not any(rels[n].shards for n in ("report_2020", "address1", "customers"))
    # the join declared on one shard is the family's
    cust = rels["customers"]
    joined = {(index.corpus.columns[e.child].relation, index.corpus.columns[e.parent].relation) for e in index.corpus.edges}
    rel_id = {r.short_name: i for i, r in enumerate(index.corpus.relations)}
    assert (rel_id["events"], rel_id["customers"]) in joined
    assert cust.shards == 0


def test_ask_renders_the_family_once_with_its_range(indexed):
    project, _ = indexed
    answer = api.open_session([project], refresh=False).ask(EVENTS_QUESTION)
    names = [r.name for r in answer.relations]
    assert "events_20210107" in names and "customers" in names
    family = next(r for r in answer.relations if r.name == "events_20210107").family
    assert family is not None and (family.name, family.shards, family.first, family.last) == \
        ("events", 7, "events_20210101", "events_20210107")
    assert "family events: 7 dated shards with these columns, events_20210101 … events_20210107" in answer.context
    assert not re.search(r"events_2021010[1-6]\"", answer.context)  # no shard listed on its own
    data = answer.to_dict()
    rel = next(r for r in data["relations"] if r["name"] == "events_20210107")
    assert rel["family"] == {"name": "events", "shards": 7, "first": "events_20210101", "last": "events_20210107",
                             "dated": True}
    assert "family" not in next(r for r in data["relations"] if r["name"] == "customers")
    assert any(j.child_name == "events_20210107" and j.parent_name == "customers" for j in answer.joins)


def test_find_schema_shows_the_family(indexed):
    from dbt_schema_link.agents import AgentSession, AgentTools

    project, _ = indexed
    paths = [locate(project)]
    session = AgentSession(lambda: api.open_session([project], refresh=False), input_files(paths),
                           [p.links_json for p in paths], lambda _message: None)
    result = AgentTools(session).call("find_schema", {"question": "How long do visitors stay on each page url?"})
    views = next(r for r in result.data["relations"] if r["name"] == "page_views")
    assert views["family"]["shards"] == 4 and views["family"]["last"] == "page_views_4"
    assert "family page_views: 4 shards with these columns, page_views_1 … page_views_4" in result.text


def test_min_shards_zero_indexes_every_shard_and_bad_values_are_one_line(sharded, tmp_path):
    report = api.index([sharded], model="none", index_dir=tmp_path / "plain", min_shards=0)
    assert report.families == 0 and report.relations == len(SEEDS) + len(SIGNUP_YEARS)
    report = api.index([sharded], model="none", index_dir=tmp_path / "strict", min_shards=5)
    assert report.families == 1  # only the seven event days reach five shards
    with pytest.raises(SchemaLinkError, match="min_shards must be 0") as err:
        api.index([sharded], model="none", index_dir=tmp_path / "bad", min_shards=1)
    assert err.value.option == "min_shards"
    assert "\n" not in str(err.value)


def test_reindex_embeds_only_changed_texts_and_a_new_shard_none(sharded, embedder, tmp_path):
    import shutil

    proj = tmp_path / "copy"
    shutil.copytree(sharded, proj, ignore=shutil.ignore_patterns("index"))
    profiles = yaml.safe_load((proj / "profiles.yml").read_text())
    profiles["sharded"]["outputs"]["dev"]["path"] = str(proj / "warehouse.duckdb")
    (proj / "profiles.yml").write_text(yaml.safe_dump(profiles))
    first = api.index([proj], model=DEFAULT_MODEL)
    assert first.reused == 0 and first.embedded == first.columns + first.relations
    # a new day arrives: the family's texts are the same, so nothing is embedded again
    (proj / "seeds" / "events_20210108.csv").write_text(SEEDS["events_20210101"], encoding="utf-8")
    run_dbt(proj, "seed")
    run_dbt(proj, "docs", "generate")
    second = api.index([proj], model=DEFAULT_MODEL)
    assert not second.up_to_date and second.embedded == 0
    rels = _by_name(load_index(locate(proj).target_dir / "schema_link" / "index"))
    assert (rels["events"].shards, rels["events"].shard_last) == (8, "events_20210108")
    # one description changes: its column's text only
    doc = proj / "seeds" / "schema.yml"
    doc.write_text(doc.read_text().replace("Purchase amount in dollars", "Basket value in euros"))
    run_dbt(proj, "docs", "generate")
    third = api.index([proj], model=DEFAULT_MODEL)
    assert third.embedded == 1 and third.reused == third.columns + third.relations - 1
    # another model: no vector of the first one is reused
    other = api.index([proj], model="none")
    assert other.model is None and other.embedded == 0
    back = api.index([proj], model=DEFAULT_MODEL)
    assert back.embedded == back.columns + back.relations
