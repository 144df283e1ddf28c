"""Measured attributes asked for by adjective or unit (issue 31): "the tallest player" needs
`height`, "heavier than 90 kg" needs `weight`, "the longest match" needs `minutes`, on a real dbt
project whose tables are empty (no values, so only names and descriptions can answer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbt_schema_link.linker import index, open_session
from dbt_schema_link.linker.lexicon import attribute_terms

from tests.linker.conftest import DatabaseSpec, _t, build_dbt_project


def test_adjectives_and_units_name_their_attribute():
    assert attribute_terms("Who is the tallest player?") == ["height"]
    assert attribute_terms("players taller than 200") == ["height"]
    assert attribute_terms("Which models are heavier than 3500 pounds?") == ["weight"]
    assert attribute_terms("the three youngest winners") == ["age"]
    assert attribute_terms("the biggest stadium") == ["size", "area"]
    assert attribute_terms("the priciest room") == ["price", "cost"]
    assert "minute" in attribute_terms("the longest match")
    # words that measure nothing add nothing
    assert attribute_terms("List the names of all players and their ranks") == []


LEAGUE = DatabaseSpec("league", [
    _t("players", [("player_id", "number", ""), ("player_name", "text", "Full name"),
                   ("hand", "text", "Playing hand"), ("country_code", "text", ""),
                   ("height", "number", ""), ("weight", "number", ""), ("age", "number", ""),
                   ("rank_points", "number", "Ranking points")], "player_id", "One row per player"),
    _t("matches", [("match_id", "number", ""), ("winner_id", "number", ""), ("loser_id", "number", ""),
                   ("score", "text", "Final score"), ("minutes", "number", ""), ("round", "text", "")],
       "match_id", "One row per match"),
], [("matches", "winner_id", "players", "player_id"), ("matches", "loser_id", "players", "player_id")])


@pytest.fixture(scope="module")
def session(tmp_path_factory, embedder):
    dest: Path = tmp_path_factory.mktemp("lexicon") / "league"
    build_dbt_project(dest, "league", [LEAGUE])  # no data file: the tables are created empty
    index([dest], notice=lambda _: None)
    return open_session([dest], refresh=False, notice=lambda _: None)


@pytest.mark.dbt
@pytest.mark.parametrize("question, column", [
    ("What is the name of the tallest player?", "players.height"),
    ("Which players are heavier than 90 kg?", "players.weight"),
    ("Name the youngest player of each country.", "players.age"),
    ("Which match lasted the longest?", "matches.minutes"),
])
def test_the_attribute_is_named_by_the_question(session, question, column):
    answer = session.ask(question)
    picks = {f"{r.name}.{c.name}": c for r in answer.relations for c in r.columns}
    assert column in picks, (question, sorted(picks))
    # the question names it (a name reason), not only a nearby embedding
    assert any(reason.startswith("name ") for reason in picks[column].reasons), picks[column].reasons
