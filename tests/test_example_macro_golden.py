"""Golden checks for what `dbt run-operation link_schemas` prints on the example project:
the envelope (minus the hash values themselves) and the suggested relationships YAML."""

from __future__ import annotations

import json
import subprocess

import pytest

from dbt_schema_link.profiling.envelope import assemble_relation, parse_envelope, parse_log_line, relation_profile_to_json
from tests.conftest import DBT
from tests.test_example_links import _golden

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def operation(shop_duckdb):
    cmd = [DBT, "--log-format", "json", "--no-write-json", "run-operation", "link_schemas",
           *shop_duckdb.project_args()]
    res = subprocess.run(cmd, capture_output=True, text=True, env=shop_duckdb.env, cwd=shop_duckdb.path)
    assert res.returncode == 0, res.stdout[-3000:]
    return res.stdout.splitlines()


def _normalise(envelope) -> dict:
    relations = []
    for raw in sorted(envelope.relations, key=lambda r: r["unique_id"]):
        # the profile as Python assembles it from the statement rows (envelope v3)
        rel = {**relation_profile_to_json(assemble_relation(raw)), "schema": raw["schema"],
               "identifier": raw["identifier"], "duplicates": raw["duplicates"]}
        rel["relation"] = rel["relation"].split(".", 1)[-1]  # the DuckDB file name differs per test run
        rel["columns"] = [
            {**c, "minhash": None if c["minhash"] is None else f"<{len(c['minhash'].split(','))} hashes>",
             # approx_top_k orders equally frequent values arbitrarily: compare the set
             "top_values": None if c["top_values"] is None else sorted(c["top_values"])}
            for c in rel["columns"]
        ]
        relations.append(rel)
    header = {k: v for k, v in envelope.header.items()}
    return {"begin": header, "relations": relations, "end": envelope.end}


def test_envelope_golden(operation):
    envelope = parse_envelope(operation)
    assert envelope.complete
    _golden("shop_envelope.json", json.dumps(_normalise(envelope), indent=1, sort_keys=True) + "\n")


def test_suggested_yaml_golden(operation):
    messages = [m.msg for m in map(parse_log_line, operation) if m is not None]
    [suggestion] = [m for m in messages if "suggested relationships" in m]
    _golden("shop_suggested_relationships.yml", suggestion + "\n")
