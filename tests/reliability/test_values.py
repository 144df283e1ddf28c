"""Hostile values through `profile` on DuckDB and PostgreSQL: NULL-only columns, an empty
relation, very long strings, and JSON / array / binary / struct columns (skipped with a reason)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import build, cli, write_project

pytestmark = pytest.mark.dbt

LONG = 100_000
FILES = {
    "models/all_null.sql": """
select i as id, cast(null as integer) as nothing_int, cast(null as varchar(10)) as nothing_text,
       case when i = 3 then 'only' end as mostly_null
from (select 1 as i union all select 2 union all select 3) t
""",
    "models/empty.sql": "select 1 as id, 'x' as name, cast(null as integer) as n from (select 1 as one) t where 1 = 0\n",
    "models/long_strings.sql": f"""
select i as id, repeat('ü', {LONG} - i) as long_text, repeat('x', i) as short_text
from (select 1 as i union all select 2 union all select 3) t
""",
    "models/odd_types.sql": """
{% if target.type == 'postgres' %}
select i as id, cast('{"a": 1}' as json) as j, cast('{"a": 1}' as jsonb) as jb, array[i, 2] as arr,
       cast('\\x0102' as bytea) as bin, 'ok' as fine
from (select 1 as i union all select 2) t
{% else %}
select i as id, cast('{"a": 1}' as json) as j, [i, 2] as arr, {'a': i} as st, map([1], [i]) as mp,
       cast('\\x01\\x02' as blob) as bin, 'ok' as fine
from (select 1 as i union all select 2) t
{% endif %}
""",
}
#: column -> kind named in the skip reason, per adapter
SKIPPED = {
    "duckdb": {"j": "json", "arr": "array", "st": "struct", "mp": "map", "bin": "binary"},
    "postgres": {"j": "json", "jb": "json", "arr": "array", "bin": "binary"},
}


@pytest.fixture(scope="module", params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def values_project(request, tmp_path_factory) -> BuiltProject:
    root = tmp_path_factory.mktemp(f"values_{request.param}") / "valuesproj"
    write_project(root, "valuesproj", FILES, "models:\n  valuesproj:\n    +materialized: table\n")
    if request.param == "duckdb":
        env = base_env(RELIABILITY_DUCKDB_PATH=str(root.parent / "v.duckdb"))
    else:
        server = request.getfixturevalue("pg_server")
        server.create_database("valuesproj")
        env = base_env(**server.env("valuesproj"))
    return build(BuiltProject(root, request.param, env))


def test_profile_hostile_values(values_project):
    res = cli(values_project, "profile", "--json", "--quiet", check=False)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    data = json.loads(res.stdout)
    assert data["failures"] == []
    rels = {uid.split(".")[-1]: entry["profile"] for uid, entry in data["relations"].items()}
    cols = {name: {c["name"]: c for c in prof["columns"]} for name, prof in rels.items()}

    assert rels["all_null"]["row_count"] == 3
    for name in ("nothing_int", "nothing_text"):
        col = cols["all_null"][name]
        assert col["skipped"] is None, col  # profiled, not skipped
        assert (col["non_null"], col["distinct"]) == (0, 0), col
        assert col["minhash"] is None and col["top_values"] is None and col["min_len"] is None, col
        assert col["flag_words"] is False
    mostly = cols["all_null"]["mostly_null"]
    assert (mostly["non_null"], mostly["distinct"], mostly["top_values"]) == (1, 1, ["only"])

    assert rels["empty"]["row_count"] == 0
    assert set(cols["empty"]) == {"id", "name", "n"}
    for col in cols["empty"].values():
        assert (col["non_null"], col["distinct"], col["minhash"]) == (0, 0, None), col

    long_text = cols["long_strings"]["long_text"]
    assert (long_text["min_len"], long_text["max_len"]) == (LONG - 3, LONG - 1), long_text
    assert long_text["non_null"] == 3 and long_text["minhash"]
    # frequent values of long text are not shipped whole into the JSON (or are, but then intact)
    for value in long_text["top_values"] or []:
        assert value.startswith("ü")

    for name, kind in SKIPPED[values_project.target].items():
        col = cols["odd_types"][name]
        assert col["skipped"] and col["skipped"].startswith("unsupported type:") and f"({kind})" in col["skipped"], col
        assert col["non_null"] == 0 and col["minhash"] is None and col["flag_words"] is False, col
    assert cols["odd_types"]["fine"]["skipped"] is None and cols["odd_types"]["fine"]["non_null"] == 2
    assert cols["odd_types"]["id"]["distinct"] == 2


def test_link_on_hostile_values_does_not_crash(values_project):
    res = cli(values_project, "link", "--quiet", check=False)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "Traceback" not in res.stderr
