"""Generated drafts rank below descriptions people wrote (issue 34): on a project built here (real
dbt, real DuckDB), `write --docs draft` documents the seeds; the index knows who wrote each
description, weighs a draft below a person's words, and the question is answered from the mart
whose columns a person described."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dbt_schema_link.linker import open_session, service
from dbt_schema_link.linker.documents import DESCRIPTION_WEIGHT, text_key
from dbt_schema_link.linker.store import load_index
from dbt_schema_link.project_config import locate
from dbt_schema_link.writers.doc_records import DocOrigin
from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import build, cli, write_project

pytestmark = pytest.mark.dbt

USERS = [f"user{i}" for i in range(12)]
FILES = {
    "seeds/raw_issue.csv": "id,repository_id,user_login,state,created_at,title\n" + "".join(
        f"{i},{1 + i % 3},{USERS[i % 12]},{('open', 'closed')[i % 2]},2024-0{1 + i % 9}-1{i % 10},Issue {i}\n"
        for i in range(1, 121)),
    "seeds/raw_user.csv": "login,name,company\n" + "".join(f"{u},Name {i},Co {i % 4}\n" for i, u in enumerate(USERS)),
    "models/issue_creators.sql": ("select user_login as creator_login, count(*) as issues_opened,\n"
                                  "       min(created_at) as first_issue_at\nfrom {{ ref('raw_issue') }} group by 1\n"),
    "models/schema.yml": (
        "version: 2\nmodels:\n  - name: issue_creators\n    description: One row per person who opened issues.\n"
        "    columns:\n      - name: creator_login\n        description: Login of the person who opened the issues.\n"
        "      - name: issues_opened\n        description: Number of issues this person opened.\n"
        "      - name: first_issue_at\n        description: When this person opened their first issue.\n"),
}


@pytest.fixture(scope="module")
def drafted(tmp_path_factory) -> BuiltProject:
    root = tmp_path_factory.mktemp("docorigin") / "docorigin"
    write_project(root, "docorigin", FILES, "models:\n  docorigin:\n    +materialized: table\n")
    project = build(BuiltProject(root, "duckdb", base_env(RELIABILITY_DUCKDB_PATH=str(root.parent / "o.duckdb"))))
    cli(project, "link", "--quiet")
    cli(project, "write", "--docs", "draft", "--quiet")
    project.dbt("docs", "generate")
    return project


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_the_index_weighs_drafted_seed_descriptions_below_the_marts_own(drafted, embedder):
    report = service.index([drafted.path], notice=lambda _: None)
    assert report.columns == 12, report.summary()
    index = load_index(locate(drafted.path).target_dir / "schema_link" / "index")
    corpus = index.corpus
    by_name = {f"{corpus.relations[c.relation].name}.{c.name}": (i, c) for i, c in enumerate(corpus.columns)}
    _, state = by_name["raw_issue.state"]
    _, opened = by_name["issue_creators.issues_opened"]
    assert state.origin is DocOrigin.DRAFTED and "one of" in state.description, state
    assert opened.origin is DocOrigin.PERSON, opened
    rels = {r.name: r for r in corpus.relations}
    assert rels["raw_issue"].origin is DocOrigin.DRAFTED and rels["issue_creators"].origin is DocOrigin.PERSON

    # the drafted column's vector is the blend: name-only text mostly, the draft at its weight
    i, col = by_name["raw_issue.state"]
    rel = corpus.relations[col.relation]
    session = open_session([drafted.path], refresh=False, notice=lambda _: None)
    assert session.linker.embedder is not None and session.linker.embedder.name == embedder.name == index.model
    plain, full = session.linker.embedder.encode([col.embed_text(rel, described=False), col.embed_text(rel)])
    weight = DESCRIPTION_WEIGHT[DocOrigin.DRAFTED]
    assert weight < DESCRIPTION_WEIGHT[DocOrigin.INHERITED] < DESCRIPTION_WEIGHT[DocOrigin.PERSON] == 1.0
    # (int8 vectors of one text differ a little between encode batches: compare directions)
    stored = np.asarray(index.col_vectors[i])
    assert _cos(stored, (1 - weight) * plain + weight * full) > _cos(stored, full) + 0.05
    # a person's description is embedded as one text, as before
    j, mart = by_name["issue_creators.issues_opened"]
    assert index.col_keys[j] == text_key(index.model, mart.embed_text(corpus.relations[mart.relation]))

    answer = json.loads(json.dumps(session.ask("Who opened the most issues?").to_dict()))
    first = answer["relations"][0]
    assert first["name"] == "issue_creators", answer["relations"]
    assert {c["name"] for c in first["columns"]} >= {"creator_login", "issues_opened"}, first
