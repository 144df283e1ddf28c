"""Huge and tiny counts and lengths never crash the numeric paths: the envelope clamps what a
warehouse cannot report, value-space surprise works in log space (`10.0 ** hi` overflowed past
308 digits), and discovery runs end to end on profiles with extreme numbers."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbt_schema_link.discovery import DiscoverySettings, discover
from dbt_schema_link.discovery.values import (
    common_step, count_on_step, range_density_surprise, step_surprise, value_space_surprise,
)
from dbt_schema_link.profiling.envelope import MAX_COUNT, column_profile, containment_result, relation_profile
from tests.discovery.builders import Warehouse

FUZZ = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
#: Counts and lengths from absent through tiny to far past any float (10**400).
extreme_ints = st.one_of(st.none(), st.integers(-10, 10), st.integers(-(10**400), 10**400),
                         st.sampled_from([0, 1, 2, 308, 309, 2**63 - 1, 2**64, 10**308, 10**309]))


@settings(max_examples=400, **FUZZ)
@given(child_n=extreme_ints, lo=extreme_ints, hi=extreme_ints, parent_n=extreme_ints, numeric=st.booleans())
def test_value_space_surprise_is_finite_and_bounded(child_n, lo, hi, parent_n, numeric):
    s = value_space_surprise(child_n or 0, lo, hi, parent_n or 0, numeric)
    assert math.isfinite(s) and 0.0 <= s <= 1000.0


def test_value_space_surprise_long_numbers():
    # 400-digit numeric strings among a handful of parent values: as surprising as it gets
    assert value_space_surprise(3, 400, 400, 5, True) == 1000.0
    # the same values in a range the parent fills: no surprise
    assert value_space_surprise(3, 1, 2, 10**500, True) == 0.0
    # ordinary sizes keep their meaning: 5 ids among 1,000 4-digit keys
    assert math.isclose(value_space_surprise(5, 4, 4, 1000, True), -5 * math.log10(1000 / 9000))


extreme_json = st.one_of(extreme_ints, st.floats(allow_nan=True, allow_infinity=True),
                         st.sampled_from(["1e999", "-1e999", "nan", "12.5", "", "x"]))


@settings(max_examples=300, **FUZZ)
@given(non_null=extreme_json, distinct=extreme_json, min_len=extreme_json, max_len=extreme_json,
       rows=extreme_json, matched=extreme_json)
def test_envelope_counts_are_clamped(non_null, distinct, min_len, max_len, rows, matched):
    col = column_profile({"name": "c", "non_null": non_null, "distinct": distinct,
                          "min_len": min_len, "max_len": max_len})
    for n in (col.non_null, col.distinct):
        assert 0 <= n <= MAX_COUNT
    for n in (col.min_len, col.max_len):
        assert n is None or 0 <= n <= MAX_COUNT
    assert 0.0 <= col.uniqueness <= 1.0
    rel = relation_profile({"unique_id": "model.p.r", "row_count": rows, "columns": [{"name": "c", "non_null": non_null}]})
    assert 0 <= rel.row_count <= MAX_COUNT and 0.0 <= rel.null_fraction("c") <= 1.0
    res = containment_result({"child_distinct": distinct, "matched": matched})
    assert math.isfinite(res.containment)


def _warehouse() -> Warehouse:
    w = Warehouse()
    w.table("customers", {"customer_id": ("INTEGER", range(1, 51)), "code": ("VARCHAR", [f"C{i:03d}" for i in range(50)])})
    w.table("orders", {"order_id": ("INTEGER", range(1, 201)), "customer_id": ("INTEGER", [i % 50 + 1 for i in range(200)]),
                       "code": ("VARCHAR", [f"C{i % 50:03d}" for i in range(200)])})
    return w


counts = st.sampled_from([0, 1, 2, 3, 10**6, 10**12, 2**63 - 1])
lengths = st.one_of(st.none(), st.sampled_from([0, 1, 2, 12, 13, 40, 308, 309, 400, 10**6, 2**63 - 1]))


@settings(max_examples=60, **FUZZ)
@given(data=st.data())
def test_discovery_survives_extreme_profiles(data):
    """Every column of a small warehouse gets drawn counts and lengths (as the envelope can
    deliver them): discovery returns links, never an arithmetic error."""
    w = _warehouse()
    profiles = w.profiles()
    for uid, prof in list(profiles.relations.items()):
        cols = {}
        for name, col in prof.columns.items():
            distinct = data.draw(counts)
            cols[name] = replace(col, non_null=max(distinct, data.draw(counts)), distinct=distinct,
                                 min_len=data.draw(lengths), max_len=data.draw(lengths))
        profiles.relations[uid] = replace(prof, row_count=data.draw(counts), columns=cols)
    links = discover(w.project(), profiles, DiscoverySettings(), verify=w.verifier())
    for link in links.links:
        assert 0.0 <= link.confidence <= 1.0


def test_range_density_surprise():
    # 1..15 dense: holds most small numbers (scale-free draw) and each of its own: ~1e-2.6 for 12
    assert math.isclose(range_density_surprise(12, 15, 1, 15, 1, 2), -12 * math.log10(math.log(16) / math.log(100)))
    assert range_density_surprise(12, 15, 1, 15, 1, 2) < 8
    # three 4-digit ids inside 2001..2003: landing there at all is improbable
    assert range_density_surprise(3, 3, 2001, 2003, 4, 4) > 8
    # sparse keys: the range and the keys in it both count
    sparse = range_density_surprise(14, 16, 1025, 1934, 4, 4)
    assert math.isclose(sparse, -14 * (math.log10(math.log(1935 / 1025) / math.log(10)) + math.log10(16 / 910)))
    assert range_density_surprise(10**9, 1, 0, 1e300, 1, 400) == 1000.0  # bounded
    assert range_density_surprise(3, 5, 0, float("inf"), 1, 2) == 0.0  # no finite range: no claim
    assert range_density_surprise(0, 5, 1, 100, 1, 2) == 0.0
    assert range_density_surprise(5, 5, 1, 100, None, None) == 0.0  # no lengths: no space to draw from


def test_step_surprise():
    assert common_step(["5", "10.0", "-15", "100"]) == 5
    assert common_step(["5", "7", "x"]) == 1  # 1 after two values: the rest is never read
    assert common_step(["5", "7.5"]) == 0 and common_step(["0", "0"]) == 0 and common_step([]) == 0
    assert count_on_step(["5", "7", "10.0"], 5) == 2 and count_on_step(["5", "a"], 5) is None
    # 20 multiples of 5 among keys 1..167 (33 of them on the step): C(33, 20) / C(167, 20)
    assert step_surprise(20, 5, 167, 1, 167) == pytest.approx(16.8, abs=0.1)
    assert step_surprise(3, 5, 167, 1, 167) < 3  # a few values on a step are chance
    assert step_surprise(20, 5, 167, 5, 835) == 0.0  # the range has room for every key on the step
    assert step_surprise(20, 5, 167, 1, 167, parent_on_step=167) == 0.0  # the keys are all on it
    assert step_surprise(40, 5, 167, 1, 167) == step_surprise(34, 5, 167, 1, 167) > 100  # more than the step holds
    assert step_surprise(20, 1, 167, 1, 167) == 0.0
