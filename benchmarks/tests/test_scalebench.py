"""The scale benchmark's generator and scoring (benchmarks/scalebench), at a tiny size.

No timing assertions: the generator is deterministic, its planted truth matches the schema it
generates, and real `discover()` on a tiny metadata-only warehouse finds the planted joins.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb
import pytest

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

from scalebench import duck, metadata  # noqa: E402
from scalebench.spec import Kind, build  # noqa: E402
from scalebench.truth import links_pairs, score_pairs  # noqa: E402


def test_generator_is_deterministic():
    a, b = build("tiny", seed=11), build("tiny", seed=11)
    assert a.spec_json() == b.spec_json()
    assert a.truth_json() == b.truth_json()
    assert metadata.synthetic_profiles(a, k=32) == metadata.synthetic_profiles(b, k=32)
    assert build("tiny", seed=12).spec_json() != a.spec_json()


def test_planted_truth_matches_the_schema():
    w = build("tiny")
    kinds = {p.kind for p in w.planted}
    assert {"name_pattern", "name_exact", "code", "text_int", "bridge", "role", "hierarchy"} <= kinds
    for p in w.planted:
        child, parent = w.rel(p.child[0]).col(p.child[1]), w.rel(p.parent[0]).col(p.parent[1])
        assert not w.rel(p.child[0]).is_model and not w.rel(p.parent[0]).is_model
        assert parent.kind in (Kind.SERIAL, Kind.CODE) and parent is w.rel(p.parent[0]).cols[0]
        assert child.kind is (Kind.CODE_REF if parent.kind is Kind.CODE else Kind.REF)
        assert 0 < child.n <= parent.n == w.rel(p.parent[0]).rows  # values inside the parent's key range
        if child.kind is Kind.CODE_REF:
            assert child.prefix == parent.prefix
        assert (child.sql_type == "VARCHAR") == (p.kind in ("text_int", "code", "nameless"))
    for (model, col), (up, up_col) in w.copies.items():
        assert w.rel(model).is_model
        w.rel(model).col(col), w.rel(up).col(up_col)  # both exist
    names = [r.name for r in w.relations]
    assert len(names) == len(set(names))
    for r in w.relations:
        cols = [c.name for c in r.cols]
        assert len(cols) == len(set(cols)), r.name


def test_duckdb_data_keeps_the_planted_values(tmp_path):
    w = build("tiny")
    db = tmp_path / "w.duckdb"
    duck.generate(w, db)
    con = duckdb.connect(str(db), read_only=True)
    try:
        for p in w.planted[:12]:
            c, pa = w.rel(p.child[0]), w.rel(p.parent[0])
            orphans = con.execute(
                f"select count(*) from {c.schema}.{c.name} x where x.{p.child[1]} is not null and "
                f"cast(x.{p.child[1]} as varchar) not in (select cast({p.parent[1]} as varchar) from {pa.schema}.{pa.name})"
            ).fetchone()[0]
            assert orphans == 0, p
        rel = w.relations[1]
        assert con.execute(f"select count(*) from {rel.schema}.{rel.name}").fetchone()[0] == rel.rows
    finally:
        con.close()


@pytest.fixture(scope="module")
def tiny_links(tmp_path_factory):
    from dbt_schema_link.artifacts.manifest import read_project
    from dbt_schema_link.discovery import discover
    from dbt_schema_link.profiling.cache import ProfileCache
    from dbt_schema_link.profiling.records import ProfileSet

    w = build("tiny")
    project_dir = tmp_path_factory.mktemp("tiny_meta")
    cache = metadata.write_artifacts(w, project_dir, k=64)
    project = read_project(project_dir / "target", require_catalog=True, project_dir=project_dir)
    loaded = ProfileCache.load(project_dir / "target" / "schema_link" / "profiles.json")
    profiles = ProfileSet("duckdb", cache["k"], "", {u: loaded.profile(u) for u in loaded.keys})
    assert len(profiles.relations) == len(w.relations) == len(project.relations)
    return w, discover(project, profiles)


def test_discover_recovers_the_planted_name_matched_joins(tiny_links):
    w, links = tiny_links
    score = score_pairs(w, links_pairs(links.to_dict()))
    by_kind = score.by_kind
    for kind in ("name_pattern", "name_exact", "bridge", "code"):
        found, planted = by_kind[kind]
        assert found == planted, (kind, score.missed)
    assert score.recall >= 0.9 and score.precision >= 0.8, score.to_dict()
    assert links.timings is not None and [s for s, _ in links.timings.stages][0] == "features"
    assert json.loads(links.to_json())["links"]  # timings stay out of links.json
    assert "timings" not in json.loads(links.to_json())


def test_link_verbose_prints_stage_timings(tmp_path, capsys):
    from dbt_schema_link import cli

    metadata.write_artifacts(build("tiny"), tmp_path, k=32)
    assert cli.main(["link", "--project-dir", str(tmp_path), "--no-profile", "--verbose", "--quiet",
                     "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "discovery stages (wall seconds):" in captured.err
    assert "candidates by name" in captured.err and "total" in captured.err
    assert json.loads(captured.out)["links"]
