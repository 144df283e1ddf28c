"""Rules live once (issue 29): the `link_schemas` run-operation's own suggestions and the
profile's flag counts apply the table prefixes, flag words and thresholds of the Python package
(DiscoverySettings, FLAG_WORDS), and a project's vars.schema_link changes them in both."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbt_schema_link.discovery.features import _is_flag
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.package_macros import discovery_rules
from dbt_schema_link.profiling.records import FLAG_WORDS, ColumnProfile
from tests.test_macros_sql import Harness

MACROS = Path(__file__).resolve().parents[2] / "macros"


def _column(name: str, non_null: int, distinct: int, flag_words: bool = False, approx: bool = False,
            data_type: str = "integer") -> dict:
    return {"name": name, "data_type": data_type, "non_null": non_null, "distinct": distinct,
            "distinct_approx": approx, "flag_words": flag_words, "skipped": None}


def _entry(name: str, columns: list[dict], row_count: int = 100) -> dict:
    uid = f"model.p.{name}"
    return {"unique_id": uid, "resource_type": "model", "name": name, "source_name": None, "relation": name,
            "profile": {"row_count": row_count, "columns": columns}}


def _suggested(harness: Harness, entries: list[dict]) -> set[tuple[str, str, str]]:
    got = harness.call("schema_link_suggest_candidates", entries, [])
    return {(c["child"].split(".")[-1], c["child_column"], c["parent"].split(".")[-1]) for c in got}


def test_the_macro_rules_are_the_python_settings():
    h = Harness("duckdb")
    settings = DiscoverySettings()
    rules = h.call("schema_link__rules")
    assert rules == discovery_rules()
    assert rules["table_prefixes"] == list(settings.table_prefixes)
    assert rules["parent_min_uniqueness"] == settings.parent_min_uniqueness
    assert rules["flag_max_distinct"] == settings.flag_max_distinct
    assert set(rules["flag_words"]) == FLAG_WORDS
    assert set(h.call("schema_link__flag_vocabulary")) == FLAG_WORDS


def test_no_rule_is_written_out_in_the_suggestion_macros():
    for name in ("schema_link_suggest_candidates.sql", "link_schemas.sql", "schema_link_profile_sql.sql",
                 "schema_link_profile_relation.sql"):
        text = (MACROS / name).read_text(encoding="utf-8")
        assert "'stg_'" not in text and "'stg'" not in text and "0.95" not in text and "'yes'" not in text, name


@pytest.mark.parametrize("prefix", DiscoverySettings().table_prefixes)
def test_every_python_table_prefix_names_the_entity(prefix):
    h = Harness("duckdb")
    assert h.call("schema_link__entity_name", f"{prefix}customers", h.call("schema_link__rules")["table_prefixes"]) \
        == "customer"
    orders = _entry("stg_orders", [_column("order_id", 100, 100), _column("customer_id", 100, 40)])
    customers = _entry(f"{prefix}customers", [_column("customer_id", 100, 100)])
    assert _suggested(h, [orders, customers]) == {("stg_orders", "customer_id", f"{prefix}customers")}


def _python_unique(distinct: int, approx: bool, settings: DiscoverySettings) -> bool:
    profile = ColumnProfile("customer_id", "integer", 100, distinct, approx, 1, 3, None, None, False)
    slack = settings.approx_slack if approx else 0.0
    return profile.uniqueness >= settings.parent_min_uniqueness - slack


@pytest.mark.parametrize("approx", [False, True])
def test_parent_uniqueness_is_discoverys(approx):
    distincts = [93, 95, 96, 97, 98, 100]
    h = Harness("duckdb")
    decisions = {}
    for d in distincts:
        entries = [_entry("stg_orders", [_column("customer_id", 100, 40)]),
                   _entry("dim_customers", [_column("customer_id", 100, d, approx=approx)])]
        decisions[d] = bool(_suggested(h, entries))
    settings = DiscoverySettings()
    assert decisions == {d: _python_unique(d, approx, settings) for d in distincts}
    if not approx:
        assert decisions[97] is False and decisions[98] is True  # 0.95 let 0.97 through before
    h.vars = {"schema_link": {"parent_min_uniqueness": 0.95}}
    lowered = DiscoverySettings(parent_min_uniqueness=0.95)
    for d in distincts:
        entries = [_entry("stg_orders", [_column("customer_id", 100, 40)]),
                   _entry("dim_customers", [_column("customer_id", 100, d, approx=approx)])]
        assert bool(_suggested(h, entries)) == _python_unique(d, approx, lowered), d


def test_a_parent_with_nulls_is_no_key_for_either():
    h = Harness("duckdb")
    orders = _entry("stg_orders", [_column("customer_id", 100, 40)])
    customers = _entry("dim_customers", [_column("customer_id", 95, 95)], row_count=100)
    assert _suggested(h, [orders, customers]) == set()
    h.vars = {"schema_link": {"parent_max_null_fraction": 0.1}}
    assert _suggested(h, [orders, customers]) == {("stg_orders", "customer_id", "dim_customers")}


@pytest.mark.parametrize("flag_max_distinct", [1, 2, 3])
def test_flags_follow_flag_max_distinct_in_both(flag_max_distinct):
    """A child column of flag words is skipped as a flag exactly when discovery calls it one."""
    h = Harness("duckdb")
    h.vars = {"schema_link": {"flag_max_distinct": flag_max_distinct}}
    settings = DiscoverySettings(flag_max_distinct=flag_max_distinct)
    decided = {}
    for data_type, words in (("varchar", ("t", "f", "y")), ("integer", ("0", "1", "-1"))):
        for distinct in (1, 2, 3):
            orders = _entry("stg_orders", [_column("status_id", 100, distinct, flag_words=True, data_type=data_type)])
            statuses = _entry("dim_statuses", [_column("status_id", 3, 3, data_type=data_type)], row_count=3)
            suggested = bool(_suggested(h, [orders, statuses]))
            profile = ColumnProfile("status_id", data_type, 100, distinct, False, 1, 1, None, words[:distinct], True)
            assert suggested == (not _python_flag(profile, settings)), (data_type, flag_max_distinct, distinct)
            decided[(data_type, distinct)] = suggested
    # text flag words are a flag up to flag_max_distinct; numbers under an identifier's name are
    # the first keys of a sequence (a one-row dimension's key holds 1), never a flag
    assert [decided[("varchar", d)] for d in (1, 2, 3)] == [d > flag_max_distinct for d in (1, 2, 3)]
    assert all(decided[("integer", d)] for d in (1, 2, 3))


def _python_flag(profile: ColumnProfile, settings: DiscoverySettings) -> bool:
    from types import SimpleNamespace

    from dbt_schema_link.discovery.names import analyse_column
    from dbt_schema_link.discovery.types import TypeFamily

    family = TypeFamily.INTEGER if profile.data_type == "integer" else TypeFamily.TEXT
    info = SimpleNamespace(family=family, profile=profile, parts=analyse_column(profile.name, None, False))
    return _is_flag(info, settings)
