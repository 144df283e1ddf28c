"""Reading the on-run-end hook's profiles back out of dbt.log (text and JSON file formats) and
taking them into the profile cache: only hook envelopes, only this project's relations as the
artifacts know them now, each build once."""

from __future__ import annotations

import json

from dbt_schema_link.artifacts.records import Column, Project, Relation, ResourceType
from dbt_schema_link.profiling.build_log import log_files, parse_build_log, read_build_log, take_build_profiles
from dbt_schema_link.profiling.cache import ProfileCache
from dbt_schema_link.profiling.options import ProfileOptions
from dbt_schema_link.profiling.records import ProfileSet
from tests.support.profile_rows import relation_doc

S = "@@schema_link@@ "
OPTIONS = {"select": None, "k": 128, "sample_rows": 1000000, "sample_percent": 10.0, "sample_seed": 42,
           "top_n": ProfileOptions().top_n, "top_max_distinct": ProfileOptions().top_max_distinct,
           "max_columns_per_query": 60, "envelope": True, "suggest": False}


def _begin(invocation: str, hook: bool = True, **extra) -> str:
    header = {"format": "dbt_schema_link/profiles", "format_version": 3, "package_version": "0.1.0",
              "adapter": "duckdb", "options": {**OPTIONS, **extra}}
    if hook:
        header.update({"hook": "on_run_end", "invocation_id": invocation, "target": "dev"})
    return S + "begin " + json.dumps(header)


def _relation(uid: str, name: str, rows: int, duplicates=()) -> str:
    return S + "relation " + json.dumps(relation_doc(uid, f'"shop"."main"."{name}"', [
        {"name": "id", "data_type": "INTEGER", "non_null": rows, "distinct_count": rows, "min_len": 1, "max_len": 3,
         "flag_bad": rows}], row_count=rows, duplicates=tuple(duplicates)))


def _end(relations: int, skipped=()) -> str:
    return S + "end " + json.dumps({"relations": relations, "containment": 0, "skipped": list(skipped)})


def _text(msg: str) -> str:
    """A line as dbt's default (debug) file format writes it, colour codes included."""
    return f"\x1b[0m12:21:51.429604 [info ] [MainThread]: {msg}\n"


def _json(msg: str) -> str:
    return json.dumps({"info": {"level": "info", "name": "JinjaLogInfo", "msg": msg}, "data": {"msg": msg}}) + "\n"


def _project(columns=("id",)) -> Project:
    def rel(name: str) -> Relation:
        return Relation(unique_id=f"model.shop.{name}", resource_type=ResourceType.MODEL, name=name,
                        package_name="shop", database="shop", schema="main", identifier=name,
                        relation_name=f'"shop"."main"."{name}"',
                        columns={c: Column(c, "INTEGER", index=i) for i, c in enumerate(columns)})
    return Project("shop", "1.11.16", "duckdb", {r.unique_id: r for r in (rel("orders"), rel("customers"))})


def test_text_and_json_logs_give_the_hook_envelopes_only():
    lines = [
        _begin("", hook=False), _relation("model.shop.orders", "orders", 99), _end(1),  # link_schemas
        _begin("inv-1"), _relation("model.shop.orders", "orders", 10, ["source.shop.raw.orders"]),
        _end(1, [{"unique_id": "model.shop.gone", "reason": "relation does not exist"}]),
        "12:21:52 [info ] [MainThread]: Finished running 1 project hook\n",
        _begin("inv-2"), _relation("model.shop.customers", "customers", 5),  # stopped part-way
    ]
    for fmt in (_text, _json):
        builds, notices = parse_build_log(fmt(line) if line.startswith(S) else line for line in lines)
        assert notices == []
        assert [b.invocation_id for b in builds] == ["inv-1", "inv-2"]
        first, second = builds
        assert first.complete and not second.complete
        assert set(first.profiles) == {"model.shop.orders", "source.shop.raw.orders"}
        assert first.profiles["model.shop.orders"].row_count == 10
        assert [f.unique_id for f in first.skipped] == ["model.shop.gone"]
        assert set(second.profiles) == {"model.shop.customers"}


def test_an_unreadable_envelope_is_a_notice_not_an_error():
    bad = S + "begin " + json.dumps({"format": "dbt_schema_link/profiles", "format_version": 99, "hook": "on_run_end"})
    builds, notices = parse_build_log([_text(bad), _text(_relation("model.shop.orders", "orders", 3)),
                                       _text(_begin("inv-3")), _text(_end(0))])
    assert [b.invocation_id for b in builds] == ["inv-3"]
    assert len(notices) == 1 and notices[0].startswith("notice:") and "v99" in notices[0]


def test_rotated_logs_are_read_oldest_first(tmp_path):
    (tmp_path / "dbt.log.1").write_text(_text(_begin("old")) + _text(_relation("model.shop.orders", "orders", 1)))
    (tmp_path / "dbt.log").write_text(_text(_end(1)) + _text(_begin("new")) + _text(_end(0)))
    assert [p.name for p in log_files(tmp_path)] == ["dbt.log.1", "dbt.log"]
    builds, _ = read_build_log(tmp_path)
    assert [(b.invocation_id, b.complete, len(b.profiles)) for b in builds] == [("old", True, 1), ("new", True, 0)]
    assert read_build_log(tmp_path / "missing") == ([], [])


def _take(lines, project, cache, options=ProfileOptions()):
    builds, _ = parse_build_log(_text(line) for line in lines)
    return take_build_profiles(builds, project, cache, options)


def test_profiles_go_into_the_cache_once_and_the_newest_wins(tmp_path):
    project, cache = _project(), ProfileCache(tmp_path / "profiles.json")
    lines = [_begin("a"), _relation("model.shop.orders", "orders", 10), _end(1),
             _begin("b"), _relation("model.shop.orders", "orders", 20),
             _relation("model.shop.other", "other", 1), _end(2)]
    reuse = _take(lines, project, cache)
    assert reuse.used == ["model.shop.orders"] and reuse.builds == ["a", "b"]
    assert cache.profile("model.shop.orders").row_count == 20
    assert "model.shop.other" not in cache.keys  # not a relation of this project
    cache.save(ProfileSet("duckdb", 128, "0.1.0"))

    again = ProfileCache.load(tmp_path / "profiles.json")
    assert again.builds == ["a", "b"]
    assert _take(lines, project, again).used == []  # the same builds are not taken in twice


def test_other_options_other_targets_and_changed_columns_are_not_taken(tmp_path):
    cache = ProfileCache(tmp_path / "profiles.json")
    other_options = [_begin("k64", k=64), _relation("model.shop.orders", "orders", 10), _end(1)]
    reuse = _take(other_options, _project(), cache)
    assert reuse.used == [] and "profiled again" in reuse.notices[0]

    other_target = [_begin("t"), _relation("model.shop.orders", "orders", 10).replace('\\"main\\"', '\\"ci\\"'), _end(1)]
    assert _take(other_target, _project(), cache).used == []

    changed = [_begin("c"), _relation("model.shop.orders", "orders", 10), _end(1)]
    assert _take(changed, _project(columns=("id", "added_later")), cache).used == []
    assert cache.keys == {}


def test_a_refresh_notes_the_builds_without_using_them(tmp_path):
    """After `--refresh` profiled everything, an older build must not replace those profiles."""
    project, cache = _project(), ProfileCache(tmp_path / "profiles.json")
    builds, _ = parse_build_log(_text(line) for line in [_begin("a"), _relation("model.shop.orders", "orders", 10),
                                                          _end(1)])
    reuse = take_build_profiles(builds, project, cache, ProfileOptions(), use=False)
    assert reuse.used == [] and cache.builds == ["a"] and cache.keys == {}
    assert take_build_profiles(builds, project, cache, ProfileOptions()).used == []
