"""The LLM stages against a real model: llama.cpp's server with Gemma 3 270M (a base model, so the
completions API), started here on a free loopback port. Runs where the `llm-local` extra is
installed (it is not in `make test`'s install: it builds llama.cpp); the scripted-server tests
beside it cover the protocol's failure paths everywhere.

What a real model must not break: the yes/no reranking reads real next-token log-probabilities,
and every stage either runs or falls back to the offline answer with a warning — never an error,
never a name that is not in the schema."""

from __future__ import annotations

import pytest

from dbt_schema_link.linker import index, open_session
from dbt_schema_link.llm.client import ChatClient, ChatRequest, LLMConfig
from dbt_schema_link.llm.options import LLMOptions
from dbt_schema_link.llm.parse import p_yes_from_logprobs
from dbt_schema_link.llm.prompts import rerank_messages
from dbt_schema_link.llm.stages import attach
from tests.support.llmserver import LocalLLMUnavailable, LocalServer, bundled_model, check_local_llm

pytestmark = pytest.mark.llm_local


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    try:
        check_local_llm()
        model = bundled_model()
    except LocalLLMUnavailable as exc:
        pytest.skip(str(exc))
    with LocalServer(model, tmp_path_factory.mktemp("llm") / "server.log", context=4096, threads=2) as srv:
        yield srv


def _config(server, **kw) -> LLMConfig:
    return LLMConfig(server.base_url, "local", api="completion", timeout_s=300, **kw)


def test_reranking_reads_the_real_models_yes_no_logprobs(server):
    schema = ["singer(singer_id, name, country, age)", "concert(concert_id, singer_id, year)"]
    request = ChatRequest(rerank_messages(schema, "How many singers are from France?", None), max_tokens=2,
                          logprobs=True, top_logprobs=5)
    choice = ChatClient(_config(server)).chat(request).choices[0]
    assert choice.logprobs, "the server sent no log-probabilities"
    assert len(choice.logprobs[0].top) >= 2
    p_yes = p_yes_from_logprobs(choice)
    assert p_yes is not None and 0.0 <= p_yes <= 1.0


def test_every_stage_runs_or_falls_back_on_real_output(server, two_schema_project, embedder, tmp_path):
    index([two_schema_project], notice=lambda _m: None)
    offline = open_session([two_schema_project], notice=lambda _m: None)
    session = attach(offline, LLMOptions(("hallucinate", "rerank", "bidirectional"), _config(server, cache_dir=tmp_path)))
    try:
        question = "What is the final grade of each student in the course?"
        answer = session.ask(question)
        base = offline.ask(question)
    finally:
        session.linker.hook.close()
    record = answer.llm
    assert record is not None and record.meter.requests >= 3
    for stage in ("hallucinate", "rerank", "bidirectional"):
        assert stage in record.ran or any(stage in w for w in record.warnings), (stage, record.to_dict())
    known = {(r.name, c.name) for r in base.relations for c in r.columns}
    everything = {(rd.identifier, cd.name) for rd in session.index.corpus.relations
                  for cd in session.index.corpus.columns[rd.col_start:rd.col_end]}
    assert {(r.name, c.name) for r in answer.relations for c in r.columns} <= everything | known
    assert answer.relations, "the staged answer is empty"
