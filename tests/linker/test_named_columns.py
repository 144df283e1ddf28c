"""A column the question names in full pulls in its relation when a link joins that relation to
a selected one (issue 31): "the birth date of the player with the highest earnings" needs the
people relation the players reference, though the question names only players. Real dbt project,
real embedding model; the other selection rules are switched off so the rule is seen alone."""

from __future__ import annotations

import pytest

from dbt_schema_link.evaluation.convert import DatabaseSpec
from dbt_schema_link.linker import LinkSettings, index, open_session
from tests.linker.conftest import _t, build_dbt_project

pytestmark = pytest.mark.dbt

CLUB = DatabaseSpec("club", [
    _t("people", [("person_id", "number", ""), ("full_name", "text", ""), ("birth_date", "time", ""),
                  ("height_cm", "number", "")], "person_id"),
    _t("player", [("player_id", "number", ""), ("person_id", "number", ""), ("earnings", "number", ""),
                  ("money_rank", "number", "")], "player_id"),
    _t("sponsor", [("sponsor_id", "number", ""), ("sponsor_name", "text", ""), ("birth_date", "time", "")],
       "sponsor_id"),
], [("player", "person_id", "people", "person_id")])
QUESTION = "What is the birth date of the player with the highest earnings?"
ALONE = dict(seed_columns=0, named_relations=0, max_relations=4)


@pytest.fixture(scope="module")
def club(tmp_path_factory, embedder):
    dest = build_dbt_project(tmp_path_factory.mktemp("named_columns") / "club", "club", [CLUB])
    index([dest], notice=lambda _: None)
    return dest


def _relations(club, **settings) -> dict[str, set[str]]:
    answer = open_session([club], refresh=False, notice=lambda _: None, settings=LinkSettings(**settings)).ask(QUESTION)
    return {r.name: {c.name for c in r.columns} for r in answer.relations}


def test_the_named_column_of_a_joined_relation_comes_in(club):
    got = _relations(club, **ALONE, named_columns=1)
    assert "birth_date" in got.get("people", set()), got
    # only through a link: the sponsor's birth_date is not joined to the player
    assert "sponsor" not in got, got


def test_without_the_rule_the_joined_relation_stays_out(club):
    got = _relations(club, **ALONE, named_columns=0)
    assert "people" not in got, got


def test_a_terminal_holding_the_named_column_needs_no_other(club):
    answer = open_session([club], refresh=False, notice=lambda _: None,
                          settings=LinkSettings(**ALONE, named_columns=1)).ask("What is the money rank of each player by earnings?")
    assert {r.name for r in answer.relations} == {"player"}, [r.name for r in answer.relations]
