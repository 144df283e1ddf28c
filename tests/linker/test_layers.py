"""Question linking on a layered dbt project (the example shop: seeds in their own schema,
staging and marts in another), through a real `link` and `index`: answers come from the models a
person queries, not from the raw seeds the models copy; a person's name is shown whole; a
compared count keeps the counted relation's key."""

from __future__ import annotations

import shutil

import pytest

from dbt_schema_link.linker import open_session
from dbt_schema_link.linker.service import index as build_index
from tests.conftest import BuiltProject

pytestmark = [pytest.mark.dbt, pytest.mark.slow]


@pytest.fixture(scope="module")
def session(shop_duckdb, tmp_path_factory):
    dest = tmp_path_factory.mktemp("layers") / "shop"
    shutil.copytree(shop_duckdb.path, dest, symlinks=True, ignore=shutil.ignore_patterns("index"))
    project = BuiltProject(dest, shop_duckdb.target, shop_duckdb.env)
    project.cli("link", *project.project_args(), "--quiet")
    build_index([dest])
    return open_session([dest], refresh=False)


def _columns(answer) -> set[str]:
    return {f"{r.name}.{c.name}" for r in answer.relations for c in r.columns}


def test_the_raw_seed_schema_is_indexed_but_never_answers(session):
    corpus = session.index.corpus
    seeds = [r for r in corpus.relations if r.resource_type == "seed"]
    assert seeds and all(r.superseded for r in seeds)  # the premise: every seed is copied by a model
    assert {corpus.groups[r.group].schema for r in seeds} == {"main_raw"}
    for question in ("Which products have the best average review rating?",
                     "How many support tickets did each customer open?",
                     "How many orders did each store take per month?"):
        answer = session.ask(question)
        assert answer.group.schema == "main", (question, answer.group)
        assert not any(r.name.startswith("raw_") for r in answer.relations), (question, _columns(answer))


def test_a_persons_name_is_shown_whole(session):
    cols = _columns(session.ask("Who are our top customers by lifetime gross amount?"))
    assert {"dim_customers.first_name", "dim_customers.last_name", "dim_customers.lifetime_gross_amount"} <= cols


def test_a_compared_count_keeps_the_counted_key(session):
    question = "Which country has the most stores?"
    assert session.linker.evidence(question, None, None).counts  # a count compared, no "how many"
    assert not session.linker.evidence("Which product is the most expensive?", None, None).counts
    cols = _columns(session.ask(question))
    assert {"stg_stores.store_id", "stg_stores.country_code"} <= cols
