"""Composite keys in discovery (discovery/composite.py), with tuple containment computed from the
rows: which tuple a column belongs to, and what a key part's numbering does not make."""

from __future__ import annotations

import random

from dbt_schema_link.discovery import DiscoverySettings, discover
from tests.discovery.builders import Warehouse, pairs

INT, TEXT = "INTEGER", "VARCHAR"


def run(w: Warehouse):
    return discover(w.project(), w.profiles(), DiscoverySettings(), verify=w.verifier(),
                    verify_tuples=w.tuple_verifier())


def partitioned(codes: dict[str, int]) -> tuple[list[str], list[int]]:
    """A key numbered 1..n again inside each partition: (code column, number column)."""
    code = [c for c, n in codes.items() for _ in range(n)]
    number = [i for n in codes.values() for i in range(1, n + 1)]
    return code, number


def composites(links) -> set[tuple[tuple[str, ...], str]]:
    """{((child columns, sorted), parent relation)} of the composite links."""
    return {(tuple(sorted(c.column for c, _ in link.column_pairs())), link.parent.relation.split(".")[-1])
            for link in links if link.is_composite}


def test_a_column_matched_by_its_own_name_is_no_part_of_a_key_it_only_resembles():
    # courses(site_code, course_id) and enrolment_courses(region_code, student_course_id): both
    # numbered 1..5 inside each partition, so every (site_code, student_course_id) tuple of
    # transcript_contents is also a courses tuple; its name says which key it is part of
    w = Warehouse()
    site, course = partitioned({"A": 5, "B": 5, "C": 5})
    w.table("courses", {"site_code": (TEXT, site), "course_id": (INT, course),
                        "title": (TEXT, [f"t{i}" for i in range(15)])})
    region, student_course = partitioned({"X": 5, "Y": 5, "Z": 5})
    w.table("enrolment_courses", {"region_code": (TEXT, region), "student_course_id": (INT, student_course),
                                  "grade": (TEXT, [f"g{i % 4}" for i in range(15)])})
    tsite, transcript = partitioned({"A": 4, "B": 4, "C": 4})
    w.table("transcripts", {"site_code": (TEXT, tsite), "transcript_id": (INT, transcript),
                            "issued": (TEXT, [f"d{i}" for i in range(12)])})
    rows = 40
    w.table("transcript_contents", {
        "region_code": (TEXT, [region[i % 15] for i in range(rows)]),
        "student_course_id": (INT, [student_course[i % 15] for i in range(rows)]),
        "site_code": (TEXT, [tsite[(7 * i) % 12] for i in range(rows)]),
        "transcript_id": (INT, [transcript[(7 * i) % 12] for i in range(rows)]),
    })
    assert composites(run(w).inferred) == {
        (("region_code", "student_course_id"), "enrolment_courses"),
        (("site_code", "transcript_id"), "transcripts"),
    }


def test_a_part_of_a_composite_key_gets_no_link_by_its_values_alone():
    # race is keyed by (region_code, id), id numbered 1..21 / 1..15 / 1..10 in three regions:
    # the run 1..21 sits inside colour's keys 1..35 by numbering, not by reference
    w = Warehouse()
    region, race = partitioned({"A": 21, "B": 15, "C": 10})
    w.table("race", {"region_code": (TEXT, region), "id": (INT, race), "label": (TEXT, [f"r{i}" for i in range(46)])})
    w.table("colour", {"id": (INT, list(range(1, 36))), "colour": (TEXT, [f"c{i}" for i in range(35)])})
    w.table("regions", {"region_code": (TEXT, ["A", "B", "C", "D"]), "region": (TEXT, ["north", "south", "east", "west"])})
    heroes = 120
    w.table("superhero", {"hero_id": (INT, list(range(1000, 1000 + heroes))),
                          "region_code": (TEXT, [region[(5 * i) % 46] for i in range(heroes)]),
                          "race_id": (INT, [race[(5 * i) % 46] for i in range(heroes)])})
    links = run(w).inferred
    assert composites(links) == {(("race_id", "region_code"), "race")}
    single = pairs([link for link in links if not link.is_composite])
    assert not [p for p in single if p[1] == "colour.id"], single
    # a part that its name links elsewhere keeps that link (`sr_item_sk`: part of a returns key, an item)
    assert ("superhero.region_code", "regions.region_code") in single


def test_sibling_fact_tables_do_not_crowd_a_returns_key_out_of_the_budget():
    # two sales tables share every column name but their prefix; the tuples of their references
    # (sold date, item, customer...) are candidates in both directions. The returns table's
    # (item, order number) key, whose order number references nothing, is checked first
    rng = random.Random(21)
    w = Warehouse()
    dims = {"item": 60, "customer": 80, "date": 90, "promo": 12}
    for name, n in dims.items():
        w.table(name if name != "date" else "date_dim", {f"{name[0]}_{name}_sk": (INT, list(range(1, n + 1))),
                                                         f"{name[0]}_label": (TEXT, [f"{name}{i}" for i in range(n)])})

    def sales(prefix: str, orders: int) -> dict[str, list]:
        rows = [(o, i) for o in range(1, orders + 1) for i in rng.sample(range(1, dims["item"] + 1), 3)]
        cols = {f"{prefix}_order_number": [o for o, _ in rows], f"{prefix}_item_sk": [i for _, i in rows]}
        for name in ("customer", "date", "promo"):
            per_order = {o: rng.randint(1, dims[name]) for o in range(1, orders + 1)}
            cols[f"{prefix}_{name}_sk"] = [per_order[o] for o, _ in rows]
        return cols

    web, catalog = sales("ws", 70), sales("cs", 120)
    w.table("web_sales", {c: (INT, v) for c, v in web.items()})
    w.table("catalog_sales", {c: (INT, v) for c, v in catalog.items()})
    returned = rng.sample(range(len(web["ws_order_number"])), 40)
    w.table("web_returns", {"wr_order_number": (INT, [web["ws_order_number"][r] for r in returned]),
                            "wr_item_sk": (INT, [web["ws_item_sk"][r] for r in returned]),
                            "wr_reason": (TEXT, [f"r{r % 5}" for r in returned])})
    links = discover(w.project(), w.profiles(), DiscoverySettings(composite_max_candidates=8), verify=w.verifier(),
                     verify_tuples=w.tuple_verifier())
    assert (("wr_item_sk", "wr_order_number"), "web_sales") in composites(links.inferred)
