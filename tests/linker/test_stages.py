"""The database stage and the column budget on a real dbt project (two schemas, the product's
index, the real embedding model): candidates carry confidences that sum to 1 and follow the
scores, `unsure` follows the sure bar, the lexical router and unit document move the unit
scores, a question whose evidence spans several relations gets the wide budget; and the
settings reject what is out of range."""

from __future__ import annotations

import pytest

from dbt_schema_link.linker import LinkSettings, index, open_session
from dbt_schema_link.linker.settings import LinkSettingsError

pytestmark = pytest.mark.dbt
WIDE = "For each customer, list the order date, amount, status, and every product name, category and unit price"


def quiet(_msg: str) -> None:
    pass


@pytest.fixture(scope="module")
def indexed(two_schema_project, embedder):
    index([two_schema_project], notice=quiet)
    return two_schema_project


def session(project, **settings):
    return open_session([project], notice=quiet, settings=LinkSettings().with_overrides(settings))


def test_candidates_carry_calibrated_confidence(indexed):
    answer = session(indexed).ask("Which students got the best final grade in each course?")
    conf = [c.confidence for c in answer.candidates]
    assert len(conf) == 2 and abs(sum(conf) - 1.0) < 1e-6
    assert conf == sorted(conf, reverse=True) and answer.group.schema == "school"
    assert not answer.unsure and answer.choices_note("--db") is None
    colder = session(indexed, unit_temperature=50.0).ask("Which students got the best final grade in each course?")
    assert colder.candidates[0].confidence < answer.candidates[0].confidence  # a higher temperature flattens
    doubtful = session(indexed, sure_confidence=1.0).ask("Which students got the best final grade in each course?")
    assert doubtful.unsure and "school" in doubtful.choices_note("--db") and "shop" in doubtful.choices_note("--db")


def test_router_and_unit_document_move_the_unit_scores(indexed):
    question = "total amount of orders per customer city"
    plain = {c.schema: c.score for c in session(indexed, l_router=0.0, l_unit_lex=0.0).ask(question).candidates}
    routed = {c.schema: c.score for c in session(indexed, l_router=1.0, l_unit_lex=0.0).ask(question).candidates}
    summed = {c.schema: c.score for c in session(indexed, l_router=0.0, l_unit_lex=1.0).ask(question).candidates}
    # the best unit of either feature gets its full weight (a share of the best unit's score)
    assert routed["shop"] == pytest.approx(plain["shop"] + 1.0, abs=1e-4)
    assert summed["shop"] == pytest.approx(plain["shop"] + 1.0, abs=1e-4)


def test_wide_questions_get_the_wide_budget(indexed):
    narrow = session(indexed, max_columns=6).ask(WIDE, db="shop")
    wide = session(indexed, max_columns=6, wide_relations=2, wide_columns=3, wide_max_columns=12).ask(WIDE, db="shop")
    terminals = [r for r in wide.relations if not r.bridge]
    assert len(terminals) >= 2
    assert narrow.n_columns() <= 6 < wide.n_columns() <= 12


@pytest.mark.parametrize("overrides, message", [
    ({"max_columns": 0}, "'max_columns' must be in [1, 1000]"),
    ({"column_ratio": 1.5}, "'column_ratio' must be in [0.0, 1.0]"),
    ({"max_relations": 2.5}, "'max_relations' must be a whole number"),
    ({"l_router": float("nan")}, "'l_router' must be a number"),
    ({"no_such_knob": 1}, "unknown linker setting 'no_such_knob'"),
    ({"max_columns": 30}, "'wide_max_columns' (20) must be at least max_columns (30)"),
])
def test_settings_reject_out_of_range_values(overrides, message):
    with pytest.raises(LinkSettingsError) as err:
        LinkSettings().with_overrides(overrides)
    assert message in str(err.value)
