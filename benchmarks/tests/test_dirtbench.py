"""Checks of the dirt generator on a small made-up database (no benchmark data, no dbt).

Run: python -m pytest benchmarks/tests/test_dirtbench.py
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from convbench import split
from dirt import DEFAULT_DATABASES
from dirtbench.data_says import DataSays, classify
from dirtbench.inject import DENSE_RANGE, ORPHAN_SHARE, SAMPLE_KEEP, SMALL_INT_NAMES, TINY_ROWS, Variant, generate
from fkbench.databases import connect_readonly, ground_truth

SCHEMA = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, customer_name TEXT, city TEXT);
CREATE TABLE regions (code TEXT PRIMARY KEY, label TEXT);
CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT REFERENCES customers(id),
    region_code TEXT REFERENCES regions(code), total REAL);
"""


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shop") / "shop.sqlite"
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO customers VALUES (?, ?, ?)", [(i, f"c{i}", "Oslo") for i in range(1, 41)])
    con.executemany("INSERT INTO regions VALUES (?, ?)", [(c, c.lower()) for c in ("NO", "SE", "DK")])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)",
                    [(100 + i, 1 + (i * 7) % 40, ("NO", "SE", "DK")[i % 3], i * 1.5) for i in range(200)])
    con.commit()
    con.close()
    return path


def rows(path: Path, sql: str) -> list[tuple]:
    con = connect_readonly(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def make(shop: Path, tmp_path: Path, variant: Variant) -> Path:
    out = tmp_path / f"{variant.value}.sqlite"
    generate(shop, "shop", variant, out, seed=30)
    assert ground_truth(out).pairs == ground_truth(shop).pairs  # the truth travels unchanged
    return out


def test_orphans_share_within_bounds(shop: Path, tmp_path: Path) -> None:
    out = make(shop, tmp_path, Variant.ORPHANS)
    for child, parent in (("customer_id", "select id from customers"), ("region_code", "select code from regions")):
        values = [r[0] for r in rows(out, f"select {child} from orders")]
        parents = {r[0] for r in rows(out, parent)}
        share = sum(v not in parents for v in values) / len(values)
        assert ORPHAN_SHARE[0] - 0.01 <= share <= ORPHAN_SHARE[1] + 0.01, (child, share)


def test_drifted_types_change_one_side(shop: Path, tmp_path: Path) -> None:
    out = make(shop, tmp_path, Variant.DRIFTED_TYPES)
    parent = rows(out, "select typeof(id), id from customers")
    child = rows(out, "select typeof(customer_id), customer_id from orders")
    kinds = {t for t, _ in parent} | {t for t, _ in child}
    assert kinds != {"integer"}, "an integer key pair stays drifted on one side"
    # the values still mean the same integers
    as_int = lambda v: int(float(v))  # noqa: E731
    assert {as_int(v) for _, v in child} <= {as_int(v) for _, v in parent}
    assert rows(out, "select code from regions order by 1") == rows(shop, "select code from regions order by 1")  # text keys untouched


def test_tiny_dimension_keeps_full_containment(shop: Path, tmp_path: Path) -> None:
    out = make(shop, tmp_path, Variant.TINY_DIMENSIONS)
    kept = {r[0] for r in rows(out, "select id from customers")}
    assert TINY_ROWS[0] <= len(kept) <= TINY_ROWS[1]
    assert {r[0] for r in rows(out, "select customer_id from orders")} <= kept
    assert len(rows(out, "select * from regions")) == 3  # already tiny: left alone


def test_dense_surrogates_spread_keys_and_add_small_ints(shop: Path, tmp_path: Path) -> None:
    out = make(shop, tmp_path, Variant.DENSE_SURROGATES)
    keys = sorted(r[0] for r in rows(out, "select id from customers"))
    assert keys == list(range(1, len(keys) + 1)) and len(keys) >= DENSE_RANGE[0]
    children = {r[0] for r in rows(out, "select customer_id from orders")}
    assert children <= set(keys) and max(children) > 40  # spread over the range, not the old 1..40
    columns = [r[1] for r in rows(out, "pragma table_info(orders)")]
    added = [c for c in columns if c in SMALL_INT_NAMES]
    assert len(added) == 2
    for c in added:
        assert max(r[0] for r in rows(out, f"select {c} from orders")) <= 300


def test_same_seed_same_file(shop: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    generate(shop, "shop", Variant.ORPHANS, a, seed=30)
    generate(shop, "shop", Variant.ORPHANS, b, seed=30)
    assert rows(a, "select * from orders") == rows(b, "select * from orders")


def test_default_subset_spans_both_halves() -> None:
    halves = [split.half_of(n) for n in DEFAULT_DATABASES]
    assert None not in halves
    assert halves.count(split.Half.TUNING) == halves.count(split.Half.HELD_BACK) == 5


def test_calendar_keys_cut_dates_to_days_and_key_them_to_a_calendar(tmp_path: Path) -> None:
    src = tmp_path / "kennel.sqlite"
    con = sqlite3.connect(src)
    con.executescript("""
        CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE dogs (dog_id INTEGER PRIMARY KEY, owner_id INT REFERENCES owners(owner_id),
            date_arrived DATETIME, date_of_birth DATE, note TEXT);
    """)
    con.executemany("INSERT INTO owners VALUES (?, ?)", [(i, f"o{i}") for i in range(1, 6)])
    con.executemany("INSERT INTO dogs VALUES (?, ?, ?, ?, ?)",
                    [(i, 1 + i % 5, f"2018-03-{10 + i:02d} 20:10:13", f"2015-0{1 + i % 9}-01", "2018-03-01x")
                     for i in range(12)])
    con.commit()
    con.close()
    out = tmp_path / "calendar.sqlite"
    notes = generate(src, "kennel", Variant.CALENDAR_KEYS, out, seed=30).notes
    truth = ground_truth(out).pairs
    assert ground_truth(src).pairs < truth
    assert truth - ground_truth(src).pairs == {frozenset({("dogs", "date_arrived"), ("calendar", "day_date")}),
                                               frozenset({("dogs", "date_of_birth"), ("calendar", "day_date")})}
    assert rows(out, "SELECT DISTINCT date_arrived FROM dogs ORDER BY 1")[0] == ("2018-03-10",)  # cut to its day
    days = [d for (d,) in rows(out, "SELECT day_date FROM calendar ORDER BY 1")]
    assert days[0] < "2015-01-01" and days[-1] > "2018-03-21" and len(days) == len(set(days))
    assert "note" not in notes[-1]  # not every value a date: no key


def test_sampled_rows_keep_a_share_of_each_table_and_break_containment(shop: Path, tmp_path: Path) -> None:
    out = make(shop, tmp_path, Variant.SAMPLED_ROWS)
    for table, before in (("customers", 40), ("orders", 200)):
        (kept,) = rows(out, f"select count(*) from {table}")[0]
        assert SAMPLE_KEEP[0] * before - 1 <= kept <= SAMPLE_KEEP[1] * before + 1, (table, kept)
    assert len(rows(out, "select * from regions")) == 2  # a sample keeps at least two rows
    says = classify(out, ground_truth(out))
    customer = frozenset({("orders", "customer_id"), ("customers", "id")})
    children = {r[0] for r in rows(out, "select customer_id from orders where customer_id is not null")}
    if not children:
        assert says[customer] is DataSays.EMPTY
        assert {r[0] for r in rows(out, "select typeof(customer_id) from orders")} == {"null"}
    else:  # the customers the sample dropped are orphans now
        assert children - {r[0] for r in rows(out, "select id from customers")}
        assert says[customer] is not DataSays.CONFIRMS


def test_data_says_splits_declared_keys_by_the_share_their_parent_holds(tmp_path: Path) -> None:
    src = tmp_path / "says.sqlite"
    con = sqlite3.connect(src)
    con.executescript("""
        CREATE TABLE p (id INTEGER PRIMARY KEY);
        CREATE TABLE c (a INT REFERENCES p(id), b INT REFERENCES p(id), e TEXT REFERENCES p(id),
                        f TEXT REFERENCES p(id), g INT REFERENCES p(id));
    """)
    con.executemany("INSERT INTO p VALUES (?)", [(i,) for i in range(1, 11)])
    # a: all found; b: half; e: none; f: the same numbers stored as text; g: never filled
    con.executemany("INSERT INTO c VALUES (?, ?, ?, ?, NULL)",
                    [(i, i if i <= 5 else 100 + i, str(50 + i), f"{i}", ) for i in range(1, 11)])
    con.commit()
    con.close()
    says = {tuple(sorted(p))[0][1]: v for p, v in classify(src, ground_truth(src)).items()}
    assert says == {"a": DataSays.CONFIRMS, "b": DataSays.PARTIAL, "e": DataSays.CONTRADICTS,
                    "f": DataSays.CONFIRMS, "g": DataSays.EMPTY}
