"""Property-based fuzzing of everything that parses input we do not control.

* dbt's ``manifest.json`` / ``catalog.json`` through ``read_project`` / ``load_json``;
* the ``@@schema_link@@`` envelope, replayed through the real profiler (``profile_project`` with
  dbt replaced by a stream of fuzzed log lines);
* ``target/schema_link/profiles.json`` (the profile cache).

The contract: either a tolerant read, or a ``SchemaLinkError`` whose message is ONE line (naming
the file, for files) — never another exception. Every test states its number of cases in
``max_examples``; ``CASES`` below is summed into the report.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbt_schema_link.artifacts.manifest import load_json, read_project
from dbt_schema_link.artifacts.records import Project
from dbt_schema_link.errors import ArtifactError, SchemaLinkError

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
#: Hypothesis settings: bounded cases; deterministic in CI so a red build is reproducible.
FUZZ = dict(deadline=None, derandomize=IN_CI, database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                   HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
CASES = {
    "manifest_structure": 700, "manifest_bytes": 500, "catalog": 300, "manifest_schema_version": 200,
    "envelope_stream": 700, "log_line": 500, "profile_cache": 400,
}


# --- shared strategies -------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),  # json.dumps would write NaN; dbt never does
    st.sampled_from([1e308, -1e308, 0.5, 2**63, -(2**63)]),
    st.text(max_size=20),
    st.sampled_from(["", "model", "source", "seed", "test", "ephemeral", "primary_key", "foreign_key",
                     "ref('orders')", "source('raw', 'things')", "relationships", "unique", "not_null",
                     "model.p.orders", "model.p.customers", "source.p.raw.things", "id", "customer_id"]),
)
json_values = st.recursive(
    _scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=12,
)


def _paths(doc, prefix=()):
    """Every (container path, key) in a JSON document."""
    out = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            out.append(prefix + (key,))
            out.extend(_paths(value, prefix + (key,)))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            out.append(prefix + (index,))
            out.extend(_paths(value, prefix + (index,)))
    return out


def _mutate(data: st.DataObject, doc):
    """Delete keys, replace values by other JSON values (wrong types), blow up strings."""
    doc = copy.deepcopy(doc)
    paths = _paths(doc)
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        if not paths:
            break
        path = data.draw(st.sampled_from(paths), label="path")
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed it
        if not isinstance(parent, (dict, list)):
            continue  # an earlier mutation turned the container into a string
        action = data.draw(st.sampled_from(["delete", "replace", "huge", "wrap"]), label="action")
        if action == "delete":
            del parent[path[-1]]
        elif action == "replace":
            parent[path[-1]] = data.draw(json_values, label="value")
        elif action == "huge":
            parent[path[-1]] = data.draw(st.sampled_from(["x", "é", "\u202e", "\x00", "🙂", "'\"\n"]), label="c") * 200_000
        else:
            parent[path[-1]] = [parent[path[-1]]]
    return doc


def _one_line_naming(err: SchemaLinkError, name: str) -> None:
    message = str(err)
    assert message and "\n" not in message and "\r" not in message, repr(message[:300])
    assert name in message, message[:300]


# --- manifest.json / catalog.json ------------------------------------------------------------

def manifest_doc() -> dict:
    """A small manifest touching every reader path: models, ephemeral, seed, snapshot, source,
    relationships tests, unique/not_null keys, constraints (node and column level), semantic
    entities, parent/child maps."""
    nodes = {
        "model.p.orders": {
            "unique_id": "model.p.orders", "resource_type": "model", "name": "orders", "package_name": "p",
            "database": "db", "schema": "s", "alias": "orders", "relation_name": '"db"."s"."orders"',
            "description": "Orders", "tags": ["a"], "meta": {"owner": "x"},
            "columns": {"customer_id": {"name": "customer_id", "description": "who", "data_type": "int",
                                        "config": {"meta": {"x": 1}}, "tags": ["t"],
                                        "constraints": [{"type": "foreign_key", "to": "ref('customers')", "to_columns": ["id"]}]},
                        "order_id": {"name": "order_id", "constraints": [{"type": "primary_key"}]}},
            "config": {"materialized": "table", "enabled": True, "meta": {"m": 2}},
            "constraints": [{"type": "foreign_key", "columns": ["customer_id"], "to": "ref('customers')", "to_columns": ["id"]}],
            "depends_on": {"nodes": ["model.p.customers"]}, "patch_path": "p://models/schema.yml",
            "original_file_path": "models/orders.sql", "raw_code": "select 1", "compiled_code": "select 1",
            "checksum": {"name": "sha256", "checksum": "abc"},
        },
        "model.p.customers": {
            "unique_id": "model.p.customers", "resource_type": "model", "name": "customers", "package_name": "p",
            "database": "db", "schema": "s", "columns": {"id": {"name": "id"}}, "config": {"materialized": "table"},
            "constraints": [{"type": "primary_key", "columns": ["id"]}], "primary_key": ["id"],
        },
        "model.p.eph": {"unique_id": "model.p.eph", "resource_type": "model", "name": "eph", "package_name": "p",
                        "config": {"materialized": "ephemeral"}},
        "seed.p.raw_customers": {"unique_id": "seed.p.raw_customers", "resource_type": "seed", "name": "raw_customers",
                                 "package_name": "p", "database": "db", "schema": "s", "columns": {}},
        "snapshot.p.snap": {"unique_id": "snapshot.p.snap", "resource_type": "snapshot", "name": "snap",
                            "package_name": "p", "database": "db", "schema": "snapshots", "config": {"enabled": False}},
        "test.p.rel": {
            "unique_id": "test.p.rel", "resource_type": "test", "package_name": "p",
            "attached_node": "model.p.orders", "column_name": "customer_id",
            "depends_on": {"nodes": ["model.p.customers", "model.p.orders"]},
            "test_metadata": {"name": "relationships", "kwargs": {"to": "ref('customers')", "field": "id", "column_name": "customer_id"}},
        },
        "test.p.relw": {
            "unique_id": "test.p.relw", "resource_type": "test", "package_name": "p",
            "depends_on": {"nodes": ["model.p.orders"]},
            "test_metadata": {"name": "relationships_where", "kwargs": {"to": "source('raw', 'things')", "field": "thing_id", "column_name": "customer_id"}},
        },
        "test.p.u": {"unique_id": "test.p.u", "resource_type": "test", "attached_node": "seed.p.raw_customers",
                     "test_metadata": {"name": "unique", "kwargs": {"column_name": "id"}}},
        "test.p.nn": {"unique_id": "test.p.nn", "resource_type": "test", "attached_node": "seed.p.raw_customers",
                      "column_name": "id", "test_metadata": {"name": "not_null", "kwargs": {}}},
    }
    sources = {
        "source.p.raw.things": {"unique_id": "source.p.raw.things", "resource_type": "source", "name": "things",
                                "source_name": "raw", "identifier": "Things Table", "package_name": "p",
                                "columns": {"thing_id": {"name": "thing_id"}}},
    }
    semantic_models = {
        "semantic_model.p.orders": {"unique_id": "semantic_model.p.orders", "depends_on": {"nodes": ["model.p.orders"]},
                                    "entities": [{"name": "order", "type": "primary", "expr": "order_id"},
                                                 {"name": "customer", "type": "foreign", "expr": "customer_id"}]},
        "semantic_model.p.customers": {"unique_id": "semantic_model.p.customers", "depends_on": {"nodes": ["model.p.customers"]},
                                       "entities": [{"name": "customer", "type": "primary", "expr": "id"}]},
    }
    return {
        "metadata": {"dbt_version": "1.11.16", "project_name": "p", "adapter_type": "duckdb",
                     "dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"},
        "nodes": nodes, "sources": sources, "semantic_models": semantic_models,
        "parent_map": {"model.p.orders": ["model.p.customers"]}, "child_map": {"model.p.customers": ["model.p.orders"]},
    }


def catalog_doc() -> dict:
    return {
        "metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"},
        "nodes": {
            "model.p.orders": {"metadata": {"type": "BASE TABLE"}, "columns": {
                "CUSTOMER_ID": {"name": "customer_id", "type": "INTEGER", "index": 1},
                "order_id": {"name": "order_id", "type": "INTEGER", "index": 2},
                "amount": {"name": "amount", "type": "DECIMAL(10,2)", "index": 3}}},
            "model.p.customers": {"columns": {"id": {"name": "id", "type": "INTEGER", "index": 1}}},
        },
        "sources": {"source.p.raw.things": {"columns": {"thing_id": {"name": "thing_id", "type": "VARCHAR", "index": 1}}}},
    }


@pytest.fixture(scope="module")
def scratch():
    root = Path(tempfile.mkdtemp(prefix="schema_link_fuzz_"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _fresh(scratch: Path) -> Path:
    for child in scratch.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()
    return scratch


def _read(target: Path, bad_file: str, require_catalog: bool = True) -> Project | None:
    """read_project: a Project, or an ArtifactError that is one line naming ``bad_file``."""
    try:
        project = read_project(target, require_catalog=require_catalog)
    except SchemaLinkError as err:
        assert isinstance(err, ArtifactError), repr(err)
        _one_line_naming(err, bad_file)
        return None
    _check_project(project)
    return project


def _check_project(project: Project) -> None:
    """What downstream code relies on: typed fields, whatever the input said."""
    assert isinstance(project.project_name, str) and isinstance(project.dbt_version, str)
    for uid, rel in project.relations.items():
        assert isinstance(uid, str) and rel.unique_id == uid
        assert isinstance(rel.name, str) and isinstance(rel.identifier, str)
        for key, col in rel.columns.items():
            assert isinstance(col.name, str) and key == col.name.lower()
            assert col.data_type is None or isinstance(col.data_type, str)
            assert isinstance(col.description, str) and isinstance(col.meta, dict)
        assert all(isinstance(c, str) for c in rel.primary_key)
        assert all(isinstance(n, str) for n in rel.depends_on)
        rel.ref_expression()
    for link in project.declared_links:
        assert link.child.relation in project.relations and link.parent.relation in project.relations


@settings(max_examples=CASES["manifest_structure"], **FUZZ)
@given(data=st.data(), which=st.sampled_from(["manifest", "catalog", "both"]))
def test_structurally_mutated_artifacts_are_read_tolerantly(scratch, data, which):
    """Missing keys, wrong types, huge strings anywhere in the tree: read, or one-line error."""
    target = _fresh(scratch)
    manifest, catalog = manifest_doc(), catalog_doc()
    if which in ("manifest", "both"):
        manifest = _mutate(data, manifest)
    if which in ("catalog", "both"):
        catalog = _mutate(data, catalog)
    (target / "manifest.json").write_text(json.dumps(manifest))
    (target / "catalog.json").write_text(json.dumps(catalog))
    project = _read(target, "manifest.json" if which != "catalog" else "catalog.json")
    if which == "catalog":
        # The manifest is intact: only a catalog whose top level is not an object is refused.
        assert project is not None or not isinstance(catalog, dict)
    meta = manifest.get("metadata") if isinstance(manifest, dict) else None
    if project is None and which == "manifest":
        # Refusing an intact-looking manifest is a bug: only these make it unusable.
        unusable = (not isinstance(meta, dict) or not isinstance(meta.get("dbt_version"), str)
                    or not meta.get("dbt_version") or "nodes" not in manifest)
        assert unusable, "a manifest with metadata.dbt_version and nodes was refused"


def _byte_mutation(data: st.DataObject, raw: bytes) -> bytes:
    kind = data.draw(st.sampled_from(["truncate", "bad_utf8", "splice", "deep", "big_int", "bom", "empty_or_junk"]))
    if kind == "truncate":
        return raw[: data.draw(st.integers(0, len(raw) - 1))]
    if kind == "bad_utf8":
        at = data.draw(st.integers(0, len(raw)))
        junk = data.draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80\x80", b"\xfe\xff"]))
        return raw[:at] + junk + raw[at:]
    if kind == "splice":
        at = data.draw(st.integers(0, len(raw)))
        return raw[:at] + data.draw(st.binary(min_size=1, max_size=12)) + raw[at:]
    if kind == "deep":
        depth = data.draw(st.sampled_from([500, 5_000, 100_000]))
        inner = b"[" * depth + b"]" * depth
        return raw.replace(b'"parent_map": {', b'"parent_map": {"deep": ' + inner + b", ", 1)
    if kind == "big_int":
        return raw.replace(b'"index": 1', b'"index": ' + b"9" * data.draw(st.sampled_from([4301, 20_000])), 1).replace(
            b'"dbt_version": "1.11.16"', b'"dbt_version": "1.11.16", "n": ' + b"7" * 5000, 1)
    if kind == "bom":
        return b"\xef\xbb\xbf" + raw
    return data.draw(st.sampled_from([b"", b" ", b"null", b"[]", b"\"manifest\"", b"0", b"{", b"\x00" * 16, b"NaN"]))


@settings(max_examples=CASES["manifest_bytes"], **FUZZ)
@given(data=st.data(), which=st.sampled_from(["manifest.json", "catalog.json"]))
def test_damaged_bytes_give_a_one_line_error_naming_the_file(scratch, data, which):
    """Truncated JSON, non-UTF-8 bytes, binary garbage, absurd nesting and numbers."""
    target = _fresh(scratch)
    docs = {"manifest.json": json.dumps(manifest_doc(), indent=1).encode(),
            "catalog.json": json.dumps(catalog_doc(), indent=1).encode()}
    docs[which] = _byte_mutation(data, docs[which])
    for name, raw in docs.items():
        (target / name).write_bytes(raw)
    _read(target, which)
    # load_json alone: the same promise for any artifact
    try:
        loaded = load_json(target / which, "dbt docs generate")
    except SchemaLinkError as err:
        _one_line_naming(err, which)
    else:
        assert isinstance(loaded, dict)


@settings(max_examples=CASES["catalog"], **FUZZ)
@given(catalog=json_values)
def test_any_json_catalog_is_tolerated(scratch, catalog):
    """Whatever JSON the catalog holds, the (valid) manifest still reads."""
    target = _fresh(scratch)
    (target / "manifest.json").write_text(json.dumps(manifest_doc()))
    (target / "catalog.json").write_text(json.dumps(catalog))
    project = _read(target, "catalog.json")
    assert (project is None) == (not isinstance(catalog, dict))


@settings(max_examples=CASES["manifest_schema_version"], **FUZZ)
@given(version=st.one_of(
    st.from_regex(r"\Ahttps://schemas\.getdbt\.com/dbt/manifest/v[0-9]{1,4}\.json\Z"),
    st.from_regex(r"\Ahttps://schemas\.getdbt\.com/dbt/manifest/v\d+\.json\Z"),  # unicode digits too
    st.text(max_size=40), json_values))
def test_unknown_schema_versions(scratch, version):
    """Older than v10 is refused with the upgrade hint; anything else is read tolerantly."""
    target = _fresh(scratch)
    doc = manifest_doc()
    doc["metadata"]["dbt_schema_version"] = version
    (target / "manifest.json").write_text(json.dumps(doc))
    project = _read(target, "manifest.json", require_catalog=False)
    if project is None:
        message = str(pytest.raises(ArtifactError, read_project, target, require_catalog=False).value)
        assert "dbt >= 1.8" in message
    else:
        assert set(project.relations) == {"model.p.orders", "model.p.customers", "seed.p.raw_customers",
                                          "source.p.raw.things"}


def test_huge_descriptions_are_read_whole(scratch):
    """A 20 MB description (and unicode everywhere) is data, not a problem."""
    target = _fresh(scratch)
    doc = manifest_doc()
    text = "Ünïcödé 🙂 \u202e ' \" \\ " * 1_000_000
    doc["nodes"]["model.p.orders"]["description"] = text
    doc["nodes"]["model.p.orders"]["columns"]["customer_id"]["description"] = text
    (target / "manifest.json").write_text(json.dumps(doc))
    project = read_project(target, require_catalog=False)
    assert project.relations["model.p.orders"].description == text
    assert project.relations["model.p.orders"].column("customer_id").description == text


# --- the profile envelope, through the real profiler --------------------------------------------

from dbt_schema_link.dbt_runner import DbtResult  # noqa: E402
from dbt_schema_link.profiling import profiler as profiler_module  # noqa: E402
from dbt_schema_link.profiling.cache import ProfileCache  # noqa: E402
from dbt_schema_link.profiling.envelope import SENTINEL, parse_log_line  # noqa: E402
from dbt_schema_link.profiling.profiler import profile_project  # noqa: E402
from dbt_schema_link.profiling.records import ProfileSet  # noqa: E402
from tests.support.profile_rows import relation_doc  # noqa: E402

HEADER = {"format": "dbt_schema_link/profiles", "format_version": 3, "package_version": "0.1.0",
          "adapter": "duckdb", "options": {"k": 8}}
REL_IDS = ["model.p.customers", "model.p.orders", "seed.p.raw_customers"]


def _relation_body(uid: str) -> dict:
    name = uid.split(".")[-1]
    return relation_doc(uid, f'"db"."s"."{name}"', [
        {"name": "id", "data_type": "INTEGER", "non_null": 20, "distinct_count": 20, "distinct_approx": True,
         "min_len": 1, "max_len": 2, "minhash": "1,2,-3,18446744073709551615", "minhash_format": "minima",
         "flag_bad": 20},
        {"name": "Status Ü", "data_type": "VARCHAR", "non_null": 20, "distinct_count": 2, "min_len": 4, "max_len": 6,
         "minhash": "0:5,3:6", "minhash_format": "buckets", "top_values": '["open", "closed"]', "flag_bad": 2},
        {"name": "payload", "data_type": "JSON", "skipped": "unsupported type: JSON (json)"},
    ], row_count=20, k=8, duplicates=("source.p.raw.customers",) if uid == "seed.p.raw_customers" else ())


def _log(msg: str, level: str = "info") -> str:
    return json.dumps({"info": {"name": "JinjaLogInfo", "level": level, "msg": msg, "ts": "x"}, "data": {"msg": msg}})


def _stream_docs() -> list[tuple[str, object]]:
    return ([("begin", HEADER)] + [("relation", _relation_body(u)) for u in REL_IDS]
            + [("containment", {"child": REL_IDS[1], "child_column": "id", "parent": REL_IDS[0],
                                "parent_column": "id", "child_distinct": 20, "matched": 19})]
            + [("end", {"relations": 3, "containment": 1, "skipped": []})])


def _fuzzed_stream(data: st.DataObject) -> tuple[list[str], int]:
    docs = [(kind, copy.deepcopy(body)) for kind, body in _stream_docs()]
    for _ in range(data.draw(st.integers(0, 3), label="structural")):
        index = data.draw(st.integers(0, len(docs) - 1))
        kind, body = docs[index]
        if isinstance(body, (dict, list)) and body and data.draw(st.booleans()):
            docs[index] = (kind, _mutate(data, body))
        else:
            docs[index] = (kind, data.draw(json_values))
    lines = [_log("Running with dbt=1.11.16")]
    for kind, body in docs:
        kind = data.draw(st.sampled_from([kind] * 6 + ["begin", "end", "relation", "bogus", ""]), label="kind")
        lines.append(_log(f"{SENTINEL} {kind} {json.dumps(body)}"))
    for _ in range(data.draw(st.integers(0, 3), label="line edits")):
        index = data.draw(st.integers(0, len(lines) - 1))
        edit = data.draw(st.sampled_from(["drop", "truncate", "garbage", "dup", "raw_sentinel", "error_line"]))
        line = lines[index]
        if edit == "drop":
            del lines[index]
        elif edit == "truncate":
            lines[index] = line[: data.draw(st.integers(0, max(0, len(line) - 1)))]
        elif edit == "garbage":
            lines.insert(index, data.draw(st.text(max_size=40)))
        elif edit == "dup":
            lines.insert(index, line)
        elif edit == "raw_sentinel":  # the envelope line outside JSON, or with a truncated payload
            payload = data.draw(st.text(max_size=30))
            lines.insert(index, data.draw(st.sampled_from([f"{SENTINEL} relation {payload}", _log(f"{SENTINEL} relation {{{payload}"),
                                                           _log(f"{SENTINEL} begin " + "[" * 50_000)])))
        else:
            lines.insert(index, _log("Database Error in model x\n  column \"y\" does not exist", level="error"))
    returncode = data.draw(st.sampled_from([0, 0, 1, 2]), label="returncode")
    return lines, returncode


def _fake_project() -> Project:
    from dbt_schema_link.artifacts.records import Column, Relation, ResourceType

    def rel(uid: str) -> Relation:
        rtype = ResourceType(uid.split(".")[0])
        return Relation(unique_id=uid, resource_type=rtype, name=uid.split(".")[-1], package_name="p",
                        database="db", schema="s", identifier=uid.split(".")[-1], relation_name=None,
                        columns={"id": Column("id", "INTEGER")})
    return Project(project_name="p", dbt_version="1.11.16", adapter_type="duckdb",
                   relations={u: rel(u) for u in REL_IDS})


@settings(max_examples=CASES["envelope_stream"], **FUZZ)
@given(data=st.data())
def test_fuzzed_envelope_through_the_profiler(scratch, data, monkeypatch):
    """Truncated runs, wrong types, unknown kinds/versions, garbage lines, dbt errors: the
    profiler returns profiles (+ named failures) or raises a one-line SchemaLinkError, and what it
    saved in profiles.json reads back."""
    _fresh(scratch)
    lines, returncode = _fuzzed_stream(data)

    def fake_run_operation(inv, macro, args, on_message=None):
        messages = []
        for line in lines:
            message = parse_log_line(line)
            if message is not None:
                messages.append(message)
                if on_message is not None:
                    on_message(message)
        return DbtResult(returncode, messages)

    monkeypatch.setattr(profiler_module, "run_operation", fake_run_operation)
    cache_path = scratch / "schema_link" / "profiles.json"
    try:
        profiles = profile_project(_fake_project(), inv=None, cache_path=cache_path, progress=lambda m: None)
    except SchemaLinkError as err:
        assert "\n" not in str(err) and str(err), repr(str(err)[:300])
        return
    assert isinstance(profiles, ProfileSet)
    for uid, prof in profiles.relations.items():
        assert isinstance(uid, str) and isinstance(prof.row_count, int)
        for col in prof.columns.values():
            assert isinstance(col.non_null, int) and isinstance(col.distinct, int)
            assert col.minhash is None or all(0 <= h < 2**64 for h in col.minhash)
    assert {f.unique_id for f in profiles.failures} <= set(REL_IDS)
    assert set(REL_IDS) <= set(profiles.relations) | {f.unique_id for f in profiles.failures}
    cache = ProfileCache.load(cache_path)
    for uid in REL_IDS:
        if uid in profiles.relations and uid not in {f.unique_id for f in profiles.failures}:
            assert uid in cache.keys


@settings(max_examples=CASES["log_line"], **FUZZ)
@given(line=st.one_of(st.text(max_size=200), json_values.map(json.dumps),
                      st.builds(lambda m: json.dumps({"info": {"level": m}, "data": {"msg": m}}), json_values)))
def test_any_log_line_parses_or_is_ignored(line):
    message = parse_log_line(line)
    assert message is None or (isinstance(message.msg, str) and isinstance(message.level, str))


# --- profiles.json (the cache) ----------------------------------------------------------------

@settings(max_examples=CASES["profile_cache"], **FUZZ)
@given(data=st.data())
def test_damaged_profile_cache_is_rebuilt_not_fatal(scratch, data):
    """A damaged cache means "profile again": load/get never raise, and `link --no-profile`
    (api.cached_profiles) still reads whatever entries are usable."""
    from dbt_schema_link.api import cached_profiles
    from dbt_schema_link.profiling.envelope import assemble_relation, relation_profile_to_json

    _fresh(scratch)
    from dbt_schema_link.profiling.cache import CACHE_VERSION

    good = {"format": "dbt_schema_link/profile_cache", "format_version": CACHE_VERSION, "adapter": "duckdb", "k": 8,
            "package_version": "0.1.0",
            "relations": {u: {"key": "k", "profile": relation_profile_to_json(assemble_relation(_relation_body(u)))}
                          for u in REL_IDS},
            "failures": []}
    mode = data.draw(st.sampled_from(["structure", "bytes"]))
    raw = (json.dumps(_mutate(data, good)).encode() if mode == "structure"
           else _byte_mutation(data, json.dumps(good, indent=1).encode()))
    path = scratch / "profiles.json"
    path.write_bytes(raw)
    cache = ProfileCache.load(path)
    for uid in REL_IDS:
        cache.get(uid, "k")
    from dbt_schema_link.project_config import ProjectPaths

    paths = ProjectPaths(scratch, scratch)
    (scratch / "schema_link").mkdir(exist_ok=True)
    shutil.copy(path, paths.profiles_json)
    profiles = cached_profiles(paths, _fake_project())
    # What survived is exactly the entries that still read as a profile of their relation.
    assert set(profiles.relations) == set(cache.keys) & set(REL_IDS)
    if raw == json.dumps(good).encode():
        assert set(profiles.relations) == set(REL_IDS)


def test_case_counts_are_what_runs():
    """`CASES` (the numbers quoted for this suite) is exactly what the fuzz tests run: each entry
    is one test's max_examples and no fuzz test runs outside it."""
    fuzzed = {name: fn._hypothesis_internal_use_settings.max_examples
              for name, fn in globals().items() if name.startswith("test") and hasattr(fn, "hypothesis")}
    assert len(fuzzed) == len(CASES), sorted(fuzzed)
    assert sorted(fuzzed.values()) == sorted(CASES.values()), fuzzed
    assert all(n >= 100 for n in fuzzed.values()), fuzzed  # a property test with a handful of cases proves little
