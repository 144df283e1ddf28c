"""The chat/completions client over real HTTP against a local scripted server: answers with and
without usage, retries on 500 and 429 (Retry-After), timeouts, malformed bodies, the response
cache, an endpoint that refuses connections, and the API key never leaving the request header."""

from __future__ import annotations

import time

import pytest

from dbt_schema_link.llm.client import Api, ChatClient, ChatRequest, LLMConfig, LLMError, LLMUnavailable, Meter
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.llm.parse import p_yes_from_logprobs
from tests.llm.fakeserver import Reply, ScriptedLLM, closed_port_url, completion

KEY_ENV = "SCHEMA_LINK_TEST_LLM_KEY"
SECRET = "sk-test-0123456789-very-secret"
ASK = ChatRequest((("system", "be brief"), ("user", "say hi")), max_tokens=8)


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    return SECRET


def config(url: str, **kw) -> LLMConfig:
    kw.setdefault("backoff_s", 0.05)
    return LLMConfig(url, "test-model", api_key_env=KEY_ENV, **kw)


def test_answer_usage_cost_and_request_shape(key, tmp_path):
    with ScriptedLLM(lambda body: Reply(body=completion("hi", prompt_tokens=120, completion_tokens=30))) as srv:
        client = ChatClient(config(srv.base_url, prompt_price_per_1k=0.5, completion_price_per_1k=1.5))
        meter = Meter()
        resp = client.chat(ASK, meter)
    assert resp.text == "hi" and not resp.cached
    assert (meter.requests, meter.prompt_tokens, meter.completion_tokens) == (1, 120, 30)
    assert meter.cost == pytest.approx((120 * 0.5 + 30 * 1.5) / 1000)
    assert client.run.requests == 1 and client.run.cost == pytest.approx(meter.cost)
    path, headers, body = srv.requests[0]
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == f"Bearer {SECRET}"
    assert body["model"] == "test-model" and body["stream"] is False and body["max_tokens"] == 8
    assert body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hi"}]
    assert "logprobs" not in body


def test_no_key_variable_no_authorization_header(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with ScriptedLLM(lambda body: Reply(body=completion("hi", usage=False))) as srv:
        meter = Meter()
        ChatClient(config(srv.base_url)).chat(ASK, meter)
    assert "Authorization" not in srv.requests[0][1]
    assert meter.prompt_tokens == 0  # no usage in the answer: nothing invented


def test_logprobs_requested_and_parsed():
    lp = [{"token": "Yes", "logprob": -0.1, "top_logprobs": [{"token": "Yes", "logprob": -0.1},
                                                             {"token": "No", "logprob": -2.4}]}]
    with ScriptedLLM(lambda body: Reply(body=completion("Yes", logprobs=lp))) as srv:
        resp = ChatClient(config(srv.base_url)).chat(ChatRequest(ASK.messages, logprobs=True, top_logprobs=5))
    assert srv.requests[0][2]["logprobs"] is True and srv.requests[0][2]["top_logprobs"] == 5
    assert resp.choices[0].logprobs[0].top == (("Yes", -0.1), ("No", -2.4))


def test_completion_api_sends_one_prompt_and_reads_its_logprobs(tmp_path):
    """A base model's endpoint: /completions, the messages as one prompt ending in "Answer:" and
    the answer prefix, `logprobs` as a count, the prefix put back in front of the text; the
    completions log-probability format (token lists, top alternatives as a dict) is read."""
    def handler(body):
        return Reply(body={"id": "cmpl-1", "object": "text_completion", "choices": [{
            "index": 0, "text": ' yes", "b.c"]}', "finish_reason": "stop",
            "logprobs": {"tokens": [" yes", '"'], "token_logprobs": [-0.2, -0.01],
                         "top_logprobs": [{" yes": -0.2, " no": -1.9, " maybe": -4.0}, {'"': -0.01}]}}],
            "usage": {"prompt_tokens": 40, "completion_tokens": 2}})

    request = ChatRequest((("system", "Decide."), ("user", "Question: q")), max_tokens=4, logprobs=True,
                          top_logprobs=5, answer_prefix='{"columns": ["a', stop=("\n",))
    with ScriptedLLM(handler) as srv:
        client = ChatClient(config(srv.base_url, api="completion", cache_dir=tmp_path))
        resp = client.chat(request)
        again = client.chat(request)
    path, _, body = srv.requests[0]
    assert path == "/v1/completions" and len(srv.requests) == 1 and again.cached
    assert body["prompt"] == 'Decide.\n\nQuestion: q\nAnswer: {"columns": ["a'
    assert body["logprobs"] == 5 and "top_logprobs" not in body and body["stop"] == ["\n"] and "messages" not in body
    for answer in (resp, again):  # the prefix is put back on a cache hit too
        assert answer.text == '{"columns": ["a yes", "b.c"]}'
    assert resp.choices[0].logprobs[0].top == ((" yes", -0.2), (" no", -1.9), (" maybe", -4.0))
    assert p_yes_from_logprobs(resp.choices[0]) == pytest.approx(1 / (1 + pow(2.718281828, -1.7)), rel=1e-4)
    assert client.config.api is Api.COMPLETION
    with pytest.raises(SchemaLinkError, match="not one of chat, completion"):
        config(srv.base_url, api="instruct")


def test_500_then_success_is_retried():
    replies = iter([Reply(500, {"error": {"message": "boom"}}), Reply(body=completion("ok"))])
    with ScriptedLLM(lambda body: next(replies)) as srv:
        meter = Meter()
        resp = ChatClient(config(srv.base_url)).chat(ASK, meter)
    assert resp.text == "ok" and srv.count == 2 and meter.retries == 1 and meter.requests == 2


def test_429_honours_retry_after():
    replies = iter([Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "1"}), Reply(body=completion("ok"))])
    with ScriptedLLM(lambda body: next(replies)) as srv:
        start = time.monotonic()
        resp = ChatClient(config(srv.base_url, backoff_s=0.01)).chat(ASK)
        waited = time.monotonic() - start
    assert resp.text == "ok" and srv.count == 2
    assert waited >= 0.95  # Retry-After (1 s), not the 0.01 s backoff


def test_retries_are_bounded():
    with ScriptedLLM(lambda body: Reply(503, {"error": {"message": "overloaded"}})) as srv:
        with pytest.raises(LLMError, match=r"HTTP 503.*gave up after 3 attempt"):
            ChatClient(config(srv.base_url, max_retries=2)).chat(ASK)
    assert srv.count == 3


def test_slow_answer_times_out_then_retry_succeeds():
    replies = iter([Reply(body=completion("late"), delay=1.5), Reply(body=completion("ok"))])
    with ScriptedLLM(lambda body: next(replies)) as srv:
        resp = ChatClient(config(srv.base_url, timeout_s=0.4)).chat(ASK)
    assert resp.text == "ok"
    with ScriptedLLM(lambda body: Reply(body=completion("late"), delay=1.5)) as srv:
        with pytest.raises(LLMError, match="did not answer within 0.4s"):
            ChatClient(config(srv.base_url, timeout_s=0.4, max_retries=0)).chat(ASK)


@pytest.mark.parametrize("body, message", [
    (b"{not json", "not JSON"),
    ({"object": "error"}, "no choices"),
    ({"choices": [{"message": {"role": "assistant"}}]}, "without message content"),
])
def test_malformed_bodies_are_one_line_errors(body, message):
    with ScriptedLLM(lambda b: Reply(body=body)) as srv:
        with pytest.raises(LLMError, match=message) as err:
            ChatClient(config(srv.base_url)).chat(ASK)
    assert "\n" not in str(err.value) and srv.count == 1  # a malformed answer is not retried


def test_cache_hit_sends_no_second_request(key, tmp_path):
    with ScriptedLLM(lambda body: Reply(body=completion("cached answer"))) as srv:
        first = ChatClient(config(srv.base_url, cache_dir=tmp_path / "cache")).chat(ASK)
        meter = Meter()
        second = ChatClient(config(srv.base_url, cache_dir=tmp_path / "cache")).chat(ASK, meter)
        other = ChatClient(config(srv.base_url, cache_dir=tmp_path / "cache")).chat(ChatRequest(ASK.messages, max_tokens=9))
    assert first.text == second.text == other.text == "cached answer"
    assert second.cached and meter.cached == 1 and meter.requests == 0
    assert srv.count == 2  # the different request (max_tokens) was sent
    files = list((tmp_path / "cache").rglob("*.json"))
    assert len(files) == 2
    for f in files:
        assert SECRET not in f.read_text() and KEY_ENV not in f.read_text()


def test_connection_refused_marks_the_endpoint_down():
    client = ChatClient(config(closed_port_url(), max_retries=3))
    with pytest.raises(LLMUnavailable, match="cannot reach"):
        client.chat(ASK)
    sent = client.run.requests
    assert sent == 2  # one retry, then the endpoint is treated as down
    start = time.monotonic()
    with pytest.raises(LLMUnavailable):
        client.chat(ASK)
    assert client.run.requests == sent and time.monotonic() - start < 0.5


def test_the_key_never_appears_in_errors(key):
    def echo(body):  # a hostile or buggy endpoint that quotes the credentials it was sent
        return Reply(401, {"error": {"message": f"invalid key Bearer {SECRET}"}})

    with ScriptedLLM(echo) as srv:
        with pytest.raises(LLMError) as err:
            ChatClient(config(srv.base_url)).chat(ASK)
    assert SECRET not in str(err.value) and "***" in str(err.value) and KEY_ENV in str(err.value)
    assert SECRET not in repr(config(srv.base_url))


def test_chat_many_respects_the_concurrency_limit():
    live, peak, lock = [0], [0], __import__("threading").Lock()

    def slow(body):
        with lock:
            live[0] += 1
            peak[0] = max(peak[0], live[0])
        time.sleep(0.15)
        with lock:
            live[0] -= 1
        return Reply(body=completion(body["messages"][1]["content"]))

    reqs = [ChatRequest((("system", "s"), ("user", f"q{i}"))) for i in range(6)]
    with ScriptedLLM(slow) as srv:
        client = ChatClient(config(srv.base_url, concurrency=2))
        out = client.chat_many(reqs)
        client.close()
    assert [r.text for r in out] == [f"q{i}" for i in range(6)]
    assert peak[0] <= 2 and srv.count == 6


def test_settings_are_checked():
    for kw, msg in (({"base_url": "localhost:8000"}, "not an http"), ({"model": " "}, "model name is empty"),
                    ({"timeout_s": 0}, "positive"), ({"concurrency": 0}, "concurrency")):
        args = {"base_url": "http://x/v1", "model": "m", **kw}
        with pytest.raises(Exception, match=msg):
            LLMConfig(**args)
