"""The three LLM stages end to end: a real dbt-duckdb project and index, the real embedding model,
`api.open_session(llm=...)` / the CLI, and a local HTTP server speaking chat/completions with scripted
answers chosen by prompt content. Real HTTP, real client, nothing patched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbt_schema_link import cli
from dbt_schema_link.api import open_session
from dbt_schema_link.linker import index
from dbt_schema_link.llm import llm_options
from dbt_schema_link.llm.prompts import BEGIN, END
from tests.llm.fakeserver import Reply, ScriptedLLM, closed_port_url, completion, prompt_text, system_text, yes_logprobs

pytestmark = pytest.mark.dbt
KEY_ENV = "SCHEMA_LINK_TEST_LLM_KEY"
SECRET = "sk-test-stage-key-0123456789"
QUESTION = "Total order amount per customer city"


def quiet(_msg: str) -> None:
    pass


@pytest.fixture(scope="module")
def project(two_schema_project, embedder) -> Path:
    index([two_schema_project], notice=quiet)
    return two_schema_project


@pytest.fixture(scope="module")
def offline(project):
    return open_session([project], notice=quiet, refresh=False)


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def script(*, p_yes=None, logprobs=True, n_choices=True, forward=None, backward=None, hallucinated=None):
    """A handler answering each stage's prompt. p_yes(user_prompt) → probability of yes."""
    p_yes = p_yes or (lambda user: 0.9 if "orders" in user else 0.1)
    forward = forward if forward is not None else json.dumps(
        {"columns": ["orders.amount", "customers.city", "orders.bogus_col", "ghost_table.x"]})
    backward = backward if backward is not None else (
        "```sql\nSELECT c.city, SUM(o.amount) AS total FROM orders o JOIN customers c "
        "ON o.customer_id = c.customer_id WHERE o.missing_col > 0 GROUP BY c.city ORDER BY total\n```")
    hallucinated = hallucinated if hallucinated is not None else json.dumps(
        {"columns": ["orders.total_amount", "orders.customer_id", "customers.customer_id", "customers.city"]})

    def handle(body):
        system, user = system_text(body), prompt_text(body)
        if "design database schemas" in system:
            return Reply(body=completion(hallucinated, prompt_tokens=40, completion_tokens=20))
        if "decide whether a database" in system:
            p = p_yes(user)
            if body.get("logprobs") and logprobs:
                return Reply(body=completion("Yes" if p >= 0.5 else "No", logprobs=yes_logprobs(p), completion_tokens=1))
            n = body.get("n", 1) if n_choices else 1
            seed = body.get("seed", 0)
            # deterministic "samples": the share of yes answers equals round(p * n)
            texts = ["yes" if (i + seed) < round(p * 5) else "no" for i in range(n)]
            return Reply(body=completion(*texts, completion_tokens=n))
        if "link questions to database schemas" in system:
            return Reply(body=completion(forward, prompt_tokens=300, completion_tokens=30))
        if "You write SQL" in system:
            return Reply(body=completion(backward, prompt_tokens=300, completion_tokens=60))
        return Reply(400, {"error": {"message": "unexpected prompt"}})

    return handle


def session_for(project, url, stages="all", tmp_path=None, **kw):
    opts = llm_options(stages, url, "test-model", api_key_env=KEY_ENV,
                       cache_dir=(tmp_path / "llm_cache") if tmp_path else None, **kw)
    return open_session([project], notice=quiet, refresh=False, llm=opts)


def cols(answer) -> set[tuple[str, str]]:
    return answer.column_names()


def without_latency(d: dict) -> dict:
    return {k: v for k, v in d.items() if k != "latency_ms"}


def test_offline_path_is_unchanged_without_stages(project, offline):
    base = offline.ask(QUESTION)
    assert "llm" not in base.to_dict() and base.llm is None
    same = open_session([project], notice=quiet, refresh=False, llm=llm_options(None))
    assert same.linker.hook is None
    assert without_latency(same.ask(QUESTION).to_dict()) == without_latency(base.to_dict())
    assert llm_options("none") is None


def test_all_stages_with_logprobs(project, offline, tmp_path):
    with ScriptedLLM(script()) as srv:
        session = session_for(project, srv.base_url, tmp_path=tmp_path)
        answer = session.ask(QUESTION)
    llm = answer.to_dict()["llm"]
    assert llm["stages"] == ["hallucinate", "rerank", "bidirectional"]
    assert llm["ran"] == ["hallucinate", "rerank", "bidirectional"]
    assert llm["warnings"] == []
    # 1 hallucination + 2 rerank (shop, school) + forward + backward
    assert llm["requests"] == 5 == srv.count and llm["cached"] == 0
    assert llm["prompt_tokens"] == 40 + 2 * 50 + 300 + 300 and llm["tokens"] > llm["prompt_tokens"]
    assert llm["cost"] is None
    assert llm["dropped"] == {"forward": ["orders.bogus_col", "ghost_table.x"], "backward": ["o.missing_col"]}
    assert llm["dropped_count"] == 3
    assert [r["method"] for r in llm["details"]["rerank"]] == ["logprobs", "logprobs"]
    assert llm["details"]["hallucinated"][0] == "orders.total_amount"
    assert answer.group.schema == "shop"
    got = cols(answer)
    assert {("orders", "amount"), ("customers", "city"), ("orders", "customer_id"), ("customers", "customer_id")} <= got
    reasons = {(r.name, c.name): c.reasons for r in answer.relations for c in r.columns}
    assert "llm forward" in reasons[("orders", "amount")] and "llm backward (sql)" in reasons[("customers", "city")]
    assert any(j.on == "orders.customer_id = customers.customer_id" for j in answer.joins)
    assert "city" in answer.context and "amount" in answer.context
    # every prompt: the schema only between the data markers, the key nowhere
    for _, headers, body in srv.requests:
        text = prompt_text(body)
        assert SECRET not in json.dumps(body)
        if "TABLE " in text:
            assert text.index(BEGIN) < text.index("TABLE ") < text.rindex(END)
    assert SECRET not in json.dumps(answer.to_dict())


def test_rerank_reorders_the_candidates(project, offline):
    base = offline.ask(QUESTION)
    assert base.group.schema == "shop"
    with ScriptedLLM(script(p_yes=lambda user: 0.95 if "enrollments" in user else 0.05)) as srv:
        answer = session_for(project, srv.base_url, "rerank").ask(QUESTION)
    assert answer.group.schema == "school"
    ranks = {r["group"].split(".")[-1]: r for r in answer.llm.details["rerank"]}
    assert ranks["school"]["p_yes"] == pytest.approx(0.95, abs=1e-3) and ranks["school"]["offline_rank"] == 2
    assert srv.count == 2 and answer.llm.ran == ["rerank"]


@pytest.mark.parametrize("n_choices, requests", [(True, 2 + 2), (False, 2 + 2 + 2 * 4)])
def test_rerank_without_logprobs_samples(project, n_choices, requests):
    handler = script(p_yes=lambda user: 0.2 if "orders" in user else 0.8, logprobs=False, n_choices=n_choices)
    with ScriptedLLM(handler) as srv:
        session = session_for(project, srv.base_url, "rerank")
        answer = session.ask(QUESTION)
        assert srv.count == requests  # first answers lacked logprobs: n samples (topped up when n is ignored)
        assert answer.group.schema == "school"
        ranks = {r["group"].split(".")[-1]: r for r in answer.llm.details["rerank"]}
        assert ranks["shop"]["method"] == "sampling" and ranks["shop"]["p_yes"] == pytest.approx(0.2)
        # the session learnt: later questions sample straight away
        session.ask("How many courses does each department offer?")
        assert srv.count == requests + (requests - 2)


def test_hallucination_alone_probes_the_index(project, offline):
    with ScriptedLLM(script(hallucinated="orders(order_id, amount)\ncustomers.city\nfoo")) as srv:
        answer = session_for(project, srv.base_url, "hallucinate").ask(QUESTION)
    assert answer.llm.ran == ["hallucinate"] and srv.count == 1
    probed = set(answer.llm.details["probe_columns"])
    assert {"orders.amount", "customers.city"} <= probed
    assert {("orders", "amount"), ("customers", "city")} <= cols(answer)
    assert any("llm schema probe" in c.reasons for r in answer.relations for c in r.columns)


def test_malformed_answers_keep_the_offline_result(project, offline):
    handler = script(hallucinated="I cannot help with that.", forward="customers and orders, I think",
                     backward="this is ((( not SQL")
    with ScriptedLLM(handler) as srv:
        answer = session_for(project, srv.base_url, "hallucinate,bidirectional").ask(QUESTION)
    base = offline.ask(QUESTION)
    assert answer.llm.ran == []
    assert len(answer.llm.warnings) == 3 and all("malformed answer" in w for w in answer.llm.warnings)
    assert cols(answer) == cols(base) and answer.context == base.context


def test_endpoint_down_gives_the_offline_answer_and_a_warning(project, offline):
    session = session_for(project, closed_port_url())
    answer = session.ask(QUESTION)
    base = offline.ask(QUESTION)
    assert cols(answer) == cols(base) and answer.context == base.context
    assert answer.llm.ran == [] and answer.llm.warnings
    assert all("cannot reach" in w and "\n" not in w for w in answer.llm.warnings)
    again = session.ask("How many students are enrolled in each course?")  # fails fast, still answers
    assert again.relations and again.llm.meter.requests == 0


def test_second_identical_run_is_served_from_the_cache(project, tmp_path):
    with ScriptedLLM(script()) as srv:
        first = session_for(project, srv.base_url, tmp_path=tmp_path).ask(QUESTION)
        sent = srv.count
        second = session_for(project, srv.base_url, tmp_path=tmp_path).ask(QUESTION)
        assert srv.count == sent  # no request the second time
    assert second.llm.meter.cached == sent and second.llm.meter.requests == 0
    assert cols(second) == cols(first) and second.context == first.context
    files = list((tmp_path / "llm_cache").rglob("*.json"))
    assert len(files) == sent and not any(SECRET in f.read_text() for f in files)


def test_cli_ask_json_reports_stages_and_cost(project, capsys, tmp_path):
    with ScriptedLLM(script()) as srv:
        code = cli.main(["ask", QUESTION, "--project-dir", str(project), "--no-refresh", "--format", "json",
                         "--llm", "all", "--llm-base-url", srv.base_url, "--llm-model", "test-model",
                         "--llm-api-key-env", KEY_ENV, "--llm-price-prompt", "0.001", "--llm-price-completion", "0.002"])
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert data["llm"]["ran"] == ["hallucinate", "rerank", "bidirectional"]
    assert data["llm"]["cost"] > 0 and data["llm"]["requests"] >= 5
    assert "llm test-model" in err and "request(s)" in err
    assert SECRET not in out and SECRET not in err
    cache = project / "target" / "schema_link" / "llm_cache"
    assert cache.is_dir() and not any(SECRET in f.read_text() for f in cache.rglob("*.json"))


def test_cli_endpoint_down_warns_on_stderr(project, capsys, monkeypatch):
    monkeypatch.setenv("SCHEMA_LINK_LLM_BASE_URL", closed_port_url())
    monkeypatch.setenv("SCHEMA_LINK_LLM_MODEL", "test-model")
    code = cli.main(["ask", QUESTION, "--project-dir", str(project), "--no-refresh", "--llm", "rerank",
                     "--llm-no-cache"])
    out, err = capsys.readouterr()
    assert code == 0 and "TABLE" in out
    assert "warning: llm rerank skipped" in err and "cannot reach" in err


def test_cli_rejects_unknown_stage_and_missing_endpoint(project, capsys, monkeypatch):
    monkeypatch.delenv("SCHEMA_LINK_LLM_BASE_URL", raising=False)
    assert cli.main(["ask", QUESTION, "--project-dir", str(project), "--no-refresh", "--llm", "magic"]) == 2
    assert "is not a stage" in capsys.readouterr().err
    assert cli.main(["ask", QUESTION, "--project-dir", str(project), "--no-refresh", "--llm", "all"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --llm-base-url: ") and "SCHEMA_LINK_LLM_BASE_URL" in err and err.count("\n") == 1


def test_cli_batch_mode_reports_each_answer_and_the_run(project, capsys, tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "a", "question": QUESTION}) + "\n"
                         + json.dumps({"id": "b", "question": "Average final grade per course title", "db": "school"}) + "\n")
    with ScriptedLLM(script()) as srv:
        code = cli.main(["ask", "--questions", str(questions), "--project-dir", str(project), "--no-refresh",
                         "--llm", "rerank,bidirectional", "--llm-base-url", srv.base_url, "--llm-model", "test-model",
                         "--llm-no-cache"])
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [d["id"] for d in lines] == ["a", "b"]
    assert lines[0]["llm"]["ran"] == ["rerank", "bidirectional"]
    # --db school: one candidate, nothing to rerank; the scripted model names shop tables only, which
    # do not exist in `school`: all dropped, offline selection kept, with a warning
    second = lines[1]["llm"]
    assert second["ran"] == [] and second["dropped"] == {
        "forward": ["orders.amount", "customers.city", "orders.bogus_col", "ghost_table.x"],
        "backward": ["orders", "customers", "c.city", "o.amount", "o.customer_id", "c.customer_id", "o.missing_col"]} and "named nothing" in second["warnings"][0]
    assert "final_grade" in lines[1]["context"]
    assert lines[0]["llm"]["requests"] == 4 and lines[1]["llm"]["requests"] == 2
    assert err.count("request(s)") == 1 and "6 request(s)" in err
