"""Value lookups as a relational join (discovery/bands.py): the band relations, joined as the
`schema_link_band_candidates` macro joins them, give every lookup the LSH index's own answer, and
candidate generation through them gives the same pairs as lookups in Python. The join here is a
plain reading of the macro's SQL; tests/test_band_candidates.py runs the macro on DuckDB and
tests/test_spark.py on Spark."""

from __future__ import annotations

import random

import numpy as np
import pytest

from dbt_schema_link.discovery import bands
from dbt_schema_link.discovery.bands import band_keys, band_tables, hits_by_partition
from dbt_schema_link.discovery.candidates import EXACT_VALUE_LOOKUP_PARENTS, generate, value_index
from dbt_schema_link.discovery.features import build_features
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.values import ContainmentIndex
from tests.discovery.builders import K, Warehouse
from tests.support.bands import ensemble_case, join_like_the_macro, tightest

INT, TEXT = "INTEGER", "VARCHAR"


@pytest.fixture(scope="module")
def ensemble():
    return ensemble_case()


@pytest.mark.parametrize("max_bucket", [None, 2])
def test_the_join_of_the_band_relations_answers_each_lookup_as_the_index_does(ensemble, max_bucket):
    index, parents, lookups, widths = ensemble
    tables = band_tables(index, parents, lookups, max_bucket)
    got = hits_by_partition(join_like_the_macro(tables), len(lookups))
    want = [[part for part in index.query_partitions(look.signature, look.size, look.min_upper, max_bucket) if part]
            for look in lookups]
    assert got == want
    assert sum(len(parts) for parts in want) > 10  # lookups that find parents, in several partitions
    assert any(len(parts) > 1 for parts in want)


@pytest.mark.parametrize("cap", [1, 3])
def test_with_a_cap_the_join_returns_the_partitions_the_python_lookup_reads(ensemble, cap):
    index, parents, lookups, widths = ensemble
    every = hits_by_partition(join_like_the_macro(band_tables(index, parents, lookups, 2, 0, widths)), len(lookups))
    capped = hits_by_partition(join_like_the_macro(band_tables(index, parents, lookups, 2, cap, widths)), len(lookups))
    python = [index.query_partitions(look.signature, look.size, look.min_upper, 2) for look in lookups]
    assert tightest(capped, lookups, cap, widths) == tightest(python, lookups, cap, widths)
    assert sum(map(len, capped)) < sum(map(len, every))  # partitions past the cap are not returned


def test_a_bucket_larger_than_max_bucket_is_not_read(ensemble):
    index, parents, lookups, widths = ensemble
    every = join_like_the_macro(band_tables(index, parents, lookups, None))
    capped = join_like_the_macro(band_tables(index, parents, lookups, 2))
    assert len(capped) < len(every)  # the four keys of the same ids share buckets of four
    assert {12, 13, 14, 15} <= {int(p) for c, _, p, _ in every.tolist() if c == len(lookups) - 1}


def test_band_keys_fold_each_band_of_r_minima_in_order():
    sigs = np.array([[1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 6, 5, 7]], dtype=np.uint64)
    one, three = band_keys(sigs, 1), band_keys(sigs, 3)
    assert one.dtype == np.int64 and one.shape == (2, 7) and (one[0] == np.arange(1, 8)).all()
    assert three.shape == (2, 2)  # the 7th minimum fills no band of three
    assert three[0, 0] == three[1, 0] and three[0, 1] != three[1, 1]  # (4, 5, 6) is not (4, 6, 5)


def test_the_relations_hold_what_the_macro_reads(ensemble):
    index, parents, lookups, widths = ensemble
    tables = band_tables(index, parents, lookups, 256)
    assert tables.parents.shape[1] == len(bands.PARENT_COLUMNS)
    assert tables.children.shape[1] == len(bands.CHILD_COLUMNS)
    assert tables.queries.shape[1] == len(bands.QUERY_COLUMNS)
    assert tables.max_bucket == 256 and tables.rows == sum(map(len, (tables.parents, tables.children, tables.queries)))
    # every parent is indexed once per band width, in one partition
    widths = index.rows_per_band()
    assert len(tables.parents) == len(parents) * sum(K // r for r in widths)
    assert {int(p) for p in tables.parents[:, 0]} == set(range(len(parents)))


def warehouse(parents: int) -> Warehouse:
    """``parents`` keyed relations of overlapping and disjoint id ranges, and children that hold
    values of some of them under names that say nothing."""
    rng = random.Random(parents)
    w = Warehouse()
    for i in range(parents):
        start = 1 + (i % 7) * 1_000 if i % 3 else 50_000 + 997 * i
        w.table(f"entity_{i}", {"id": (INT, list(range(start, start + 40 + 13 * i)))})
    for j in range(25):
        start = 1 + (j % 7) * 1_000 if j % 3 else 50_000 + 997 * j
        w.table(f"event_{j}", {"event_id": (INT, list(range(900_000 + 100 * j, 900_000 + 100 * j + 60))),
                               "thing": (INT, [start + rng.randrange(40) for _ in range(60)])})
    return w


@pytest.mark.parametrize("parents", [30, EXACT_VALUE_LOOKUP_PARENTS + 20])
def test_candidates_through_the_join_are_the_candidates_of_python_lookups(parents):
    w = warehouse(parents)
    project, profiles = w.project(), w.profiles()
    python = DiscoverySettings()
    engine = DiscoverySettings(engine_lookup_min_columns=1)
    features = build_features(project, profiles, python)
    lsh, indexed = value_index(features, python)
    calls = []

    def join(tables):
        calls.append(tables)
        return join_like_the_macro(tables)
    by_python, counts = generate(features, python, [], lambda c, p: False)
    by_engine, engine_counts = generate(build_features(project, profiles, engine), engine, [], lambda c, p: False,
                                        band_join=join)
    assert len(calls) == 1  # one join for every lookup
    assert (calls[0].max_bucket == 0) == (len(indexed) <= EXACT_VALUE_LOOKUP_PARENTS)
    assert list(by_engine) == list(by_python) and engine_counts == counts
    assert counts["candidates_by_value"] > 0
    # below the threshold the join is not asked for
    small = DiscoverySettings(engine_lookup_min_columns=10 ** 6)
    generate(build_features(project, profiles, small), small, [], lambda c, p: False, band_join=join)
    assert len(calls) == 1


def test_an_index_without_band_tables_has_the_same_layout_and_answers_no_lookup(ensemble):
    index, parents, lookups, widths = ensemble
    entries = [(i, s, size) for i, (s, size) in enumerate(zip(parents, index._indexed_sizes.values()))]
    banded = ContainmentIndex(entries, k=K, threshold=0.7, num_part=8, m=8)
    layout = ContainmentIndex(entries, k=K, threshold=0.7, num_part=8, m=8, bands=False)
    assert banded.has_bands and not layout.has_bands
    assert layout.partitions() == banded.partitions() == index.partitions()
    assert [layout.plan(look.size, look.min_upper) for look in lookups] == \
        [banded.plan(look.size, look.min_upper) for look in lookups]
    assert (band_tables(layout, parents, lookups, 2).parents == band_tables(banded, parents, lookups, 2).parents).all()
    with pytest.raises(RuntimeError, match="without band tables"):
        list(layout.query_partitions(lookups[0].signature, lookups[0].size))
