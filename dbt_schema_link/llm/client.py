"""A small client for OpenAI-compatible `POST {base_url}/chat/completions` endpoints (OpenAI,
vLLM, llama.cpp server, Ollama's /v1, LM Studio, ...), standard library only. `Api.COMPLETION`
sends the same request to `/completions` as one prompt ending in "Answer:" (and the request's
answer prefix): a base model without a chat template can answer that, and its next-token
log-probabilities are usable (a chat template it was never tuned on gives noise).

- The API key is read from an environment variable whose *name* is configured (default
  OPENAI_API_KEY) at request time; it is never stored on an object, never part of a cache key or
  cache file, and redacted from every error message.
- Timeouts; bounded retries with exponential backoff on 429, 5xx, timeouts and dropped
  connections (Retry-After honoured, capped); an endpoint that refuses connections is marked down
  for the rest of the run so a batch degrades at once instead of waiting on every question.
- A concurrency limit shared by every thread using the client.
- An on-disk response cache keyed by a hash of the full request (URL + JSON body), written
  atomically: an identical second run sends no request.
- Token and cost accounting from each response's `usage`, per question (a `Meter` passed in) and
  per run (`ChatClient.run`).
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Sequence

from dbt_schema_link import __version__
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.fileio import atomic_write_text

#: Environment variable holding the API key unless --llm-api-key-env names another.
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
#: Seconds to wait for one response (connect + read).
DEFAULT_TIMEOUT_S = 60.0
#: Retries after the first attempt on 429 / 5xx / timeout / dropped connection.
DEFAULT_MAX_RETRIES = 3
#: First backoff in seconds; doubled after every retry.
DEFAULT_BACKOFF_S = 1.0
#: No single wait (backoff or Retry-After) is longer than this many seconds.
MAX_WAIT_S = 30.0
#: Requests in flight at once, over all threads.
DEFAULT_CONCURRENCY = 4
#: Characters of an error body quoted in a message.
ERROR_BODY_CHARS = 200
#: HTTP statuses worth retrying.
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})
#: Cache file format version (part of every key: a new format never reads an old file).
CACHE_VERSION = 1


class Api(Enum):
    """Which OpenAI-compatible endpoint a request goes to."""

    CHAT = "chat"  # /chat/completions: instruction-tuned models with a chat template
    COMPLETION = "completion"  # /completions: one prompt, for base models

    @property
    def path(self) -> str:
        return "/chat/completions" if self is Api.CHAT else "/completions"

    @classmethod
    def parse(cls, value: "str | Api | None") -> "Api":
        if isinstance(value, Api):
            return value
        for api in cls:
            if (value or "chat").strip().lower() == api.value:
                return api
        raise SchemaLinkError(f"LLM API {value!r} is not one of chat, completion", option="llm_api")


#: What separates the parts of a completion prompt, and what ends it.
COMPLETION_SEPARATOR = "\n\n"
COMPLETION_CUE = "\nAnswer:"


def completion_prompt(messages: tuple[tuple[str, str], ...], answer_prefix: str = "") -> str:
    """The chat messages as one completion prompt: their texts in order, then "Answer:" and the
    start of the answer the stage wants (e.g. '{"columns": ["'), which a base model continues."""
    body = COMPLETION_SEPARATOR.join(content for _, content in messages)
    return body + COMPLETION_CUE + (" " + answer_prefix if answer_prefix else "")


class LLMError(SchemaLinkError):
    """The endpoint failed, timed out, or answered with something that is not a chat completion."""


class LLMUnavailable(LLMError):
    """The endpoint cannot be reached (connection refused, unknown host)."""


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to call the model. Holds the *name* of the key variable, never the key."""

    base_url: str
    model: str
    api_key_env: str = DEFAULT_API_KEY_ENV
    api: Api = Api.CHAT
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_MAX_RETRIES
    backoff_s: float = DEFAULT_BACKOFF_S
    concurrency: int = DEFAULT_CONCURRENCY
    cache_dir: Path | None = None  # None: no response cache
    prompt_price_per_1k: float | None = None  # currency units per 1,000 prompt tokens
    completion_price_per_1k: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "api", Api.parse(self.api))
        url = (self.base_url or "").strip()
        if not url.startswith(("http://", "https://")):
            raise SchemaLinkError(f"LLM base URL {self.base_url!r} is not an http(s) URL: "
                                  f"e.g. http://localhost:11434/v1 or https://api.openai.com/v1", option="llm_base_url")
        if not (self.model or "").strip():
            raise SchemaLinkError("the LLM model name is empty: name the model the endpoint serves", option="llm_model")
        if self.timeout_s <= 0:
            raise SchemaLinkError(f"LLM timeout {self.timeout_s} must be a positive number of seconds", option="llm_timeout")
        if not 0 <= self.max_retries <= 10:
            raise SchemaLinkError(f"LLM max_retries {self.max_retries} must be between 0 and 10")
        if not 1 <= self.concurrency <= 64:
            raise SchemaLinkError(f"LLM concurrency {self.concurrency} must be between 1 and 64")
        for name in ("prompt_price_per_1k", "completion_price_per_1k"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise SchemaLinkError(f"LLM {name} {value} must not be negative")

    @property
    def url(self) -> str:
        return self.base_url.strip().rstrip("/") + self.api.path

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        if self.prompt_price_per_1k is None and self.completion_price_per_1k is None:
            return None
        return (prompt_tokens * (self.prompt_price_per_1k or 0.0)
                + completion_tokens * (self.completion_price_per_1k or 0.0)) / 1000.0


@dataclass(frozen=True)
class ChatRequest:
    """One chat/completions request (streaming off)."""

    messages: tuple[tuple[str, str], ...]  # (role, content)
    max_tokens: int = 256
    temperature: float = 0.0
    n: int = 1
    logprobs: bool = False
    top_logprobs: int = 0
    seed: int | None = None  # makes repeated samples distinct requests (and distinct cache entries)
    # Completion API only: the answer's first characters, written into the prompt and put back in
    # front of the text the model continues with; and where the model stops.
    answer_prefix: str = ""
    stop: tuple[str, ...] = ()

    def body(self, model: str, api: Api = Api.CHAT) -> dict:
        out: dict = {"model": model, "max_tokens": self.max_tokens, "temperature": self.temperature, "stream": False}
        if api is Api.CHAT:
            out["messages"] = [{"role": r, "content": c} for r, c in self.messages]
        else:
            out["prompt"] = completion_prompt(self.messages, self.answer_prefix)
            if self.stop:
                out["stop"] = list(self.stop)
        if self.n != 1:
            out["n"] = self.n
        if self.logprobs:  # the completions API takes the number of alternatives as `logprobs`
            out["logprobs"] = True if api is Api.CHAT else max(1, self.top_logprobs)
            if api is Api.CHAT:
                out["top_logprobs"] = self.top_logprobs
        if self.seed is not None:
            out["seed"] = self.seed
        return out


@dataclass(frozen=True)
class TokenLogprob:
    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()  # (token, logprob) alternatives


@dataclass(frozen=True)
class Choice:
    text: str
    logprobs: tuple[TokenLogprob, ...] | None  # None: the endpoint sent none
    finish_reason: str | None = None


@dataclass(frozen=True)
class ChatResponse:
    choices: tuple[Choice, ...]
    prompt_tokens: int
    completion_tokens: int
    cached: bool = False

    @property
    def text(self) -> str:
        return self.choices[0].text if self.choices else ""


@dataclass
class Meter:
    """Requests and tokens, for one question or a whole run."""

    requests: int = 0  # HTTP requests sent (retries included)
    retries: int = 0
    cached: int = 0  # answers served from the on-disk cache
    failures: int = 0  # calls that gave up
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None

    def add(self, other: "Meter") -> None:
        self.requests += other.requests
        self.retries += other.retries
        self.cached += other.cached
        self.failures += other.failures
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        if other.cost is not None:
            self.cost = (self.cost or 0.0) + other.cost

    def to_dict(self) -> dict:
        return {"requests": self.requests, "retries": self.retries, "cached": self.cached, "failures": self.failures,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost": None if self.cost is None else round(self.cost, 6)}


# ----------------------------------------------------------------------------------------------
# response parsing


def _completion_logprobs(raw: dict) -> tuple[TokenLogprob, ...] | None:
    """Completions format: {"tokens": [...], "token_logprobs": [...], "top_logprobs": [{token: logprob}]}."""
    tokens, lps, tops = raw.get("tokens"), raw.get("token_logprobs"), raw.get("top_logprobs") or []
    if not isinstance(tokens, list) or not isinstance(lps, list) or not tokens or len(tokens) != len(lps):
        return None
    out = []
    for i, (token, lp) in enumerate(zip(tokens, lps)):
        top = tops[i] if i < len(tops) and isinstance(tops[i], dict) else {}
        try:
            out.append(TokenLogprob(str(token), float(lp if lp is not None else 0.0),
                                    tuple((str(t), float(v)) for t, v in top.items())))
        except (TypeError, ValueError):
            return None
    return tuple(out)


def _logprobs(raw) -> tuple[TokenLogprob, ...] | None:
    """OpenAI chat format: {"content": [{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}]},
    or the completions format (`_completion_logprobs`)."""
    if isinstance(raw, dict) and "tokens" in raw:
        return _completion_logprobs(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("content"), list) or not raw["content"]:
        return None
    out = []
    for item in raw["content"]:
        if not isinstance(item, dict) or not isinstance(item.get("token"), str):
            return None
        try:
            top = tuple((str(t["token"]), float(t["logprob"])) for t in item.get("top_logprobs") or ()
                        if isinstance(t, dict) and "token" in t and "logprob" in t)
            out.append(TokenLogprob(item["token"], float(item.get("logprob", 0.0)), top))
        except (TypeError, ValueError):
            return None
    return tuple(out)


def parse_response(data) -> ChatResponse:
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list) or not data["choices"]:
        raise LLMError("the endpoint's answer has no choices: is the URL an OpenAI-compatible /v1 base?")
    choices = []
    for ch in data["choices"]:
        msg = ch.get("message") if isinstance(ch, dict) else None
        content = msg.get("content") if isinstance(msg, dict) else None
        if content is None and isinstance(ch, dict) and isinstance(ch.get("text"), str):
            content = ch["text"]
        if not isinstance(content, str):
            raise LLMError("the endpoint's answer has a choice without message content")
        choices.append(Choice(content, _logprobs(ch.get("logprobs")), ch.get("finish_reason")))
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}

    def count(key: str) -> int:
        try:
            return max(0, int(usage.get(key) or 0))
        except (TypeError, ValueError):
            return 0

    return ChatResponse(tuple(choices), count("prompt_tokens"), count("completion_tokens"))


# ----------------------------------------------------------------------------------------------
# cache


class ResponseCache:
    """`<dir>/<k[:2]>/<k>.json` holding the response JSON; the key hashes URL + request body."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    @staticmethod
    def key(url: str, body: dict) -> str:
        blob = json.dumps({"v": CACHE_VERSION, "url": url, "body": body}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data.get("response") if isinstance(data, dict) and data.get("key") == key else None

    def put(self, key: str, response: dict) -> None:
        try:
            atomic_write_text(self._path(key), json.dumps({"key": key, "response": response}, ensure_ascii=False))
        except OSError:
            pass  # a cache that cannot be written only costs a request next time


# ----------------------------------------------------------------------------------------------
# client


def _one_line(text: str, limit: int = ERROR_BODY_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


class _Retry(Exception):
    def __init__(self, message: str, wait: float | None = None, down: bool = False):
        super().__init__(message)
        self.wait = wait
        self.down = down


class ChatClient:
    """Thread-safe. `chat` sends one request (or reads the cache); `chat_many` runs several at
    once within the concurrency limit. Every failure is an `LLMError` with a one-line message."""

    def __init__(self, config: LLMConfig, sleep=time.sleep):
        self.config = config
        self.cache = ResponseCache(config.cache_dir) if config.cache_dir else None
        self.run = Meter()
        self._sleep = sleep
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(config.concurrency)
        self._down: str | None = None
        self._pool: ThreadPoolExecutor | None = None

    # -- secrets ------------------------------------------------------------------------------
    def _key(self) -> str | None:
        value = os.environ.get(self.config.api_key_env, "")
        return value.strip() or None

    def _redact(self, text: str) -> str:
        key = self._key()
        if key:
            text = text.replace(key, "***")
        return text

    def _fail(self, message: str, cls=LLMError) -> LLMError:
        return cls(self._redact(_one_line(message, 400)))

    # -- one request --------------------------------------------------------------------------
    def chat(self, request: ChatRequest, meter: Meter | None = None) -> ChatResponse:
        local = Meter()
        try:
            return self._chat(request, local)
        finally:
            with self._lock:
                self.run.add(local)
                if meter is not None:
                    meter.add(local)

    def _chat(self, request: ChatRequest, meter: Meter) -> ChatResponse:
        response = self._send(request, meter)
        if self.config.api is Api.COMPLETION and request.answer_prefix:
            choices = tuple(replace(ch, text=request.answer_prefix + ch.text) for ch in response.choices)
            response = replace(response, choices=choices)
        return response

    def _send(self, request: ChatRequest, meter: Meter) -> ChatResponse:
        cfg = self.config
        body = request.body(cfg.model, cfg.api)
        key = ResponseCache.key(cfg.url, body) if self.cache else None
        if key:
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    response = parse_response(hit)
                except LLMError:
                    response = None
                if response is not None:
                    meter.cached += 1
                    return ChatResponse(response.choices, response.prompt_tokens, response.completion_tokens, True)
        if self._down:
            meter.failures += 1
            raise self._fail(self._down, LLMUnavailable)
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        wait = cfg.backoff_s
        last = "no attempt"
        for attempt in range(cfg.max_retries + 1):
            if attempt:
                meter.retries += 1
            try:
                with self._slots:
                    meter.requests += 1
                    raw = self._post(data)
            except _Retry as exc:
                last = str(exc)
                if exc.down:
                    if attempt >= min(1, cfg.max_retries):
                        self._down = f"{last} (the endpoint is treated as down for the rest of this run)"
                        meter.failures += 1
                        raise self._fail(last, LLMUnavailable) from None
                if attempt >= cfg.max_retries:
                    break
                pause = exc.wait if exc.wait is not None else wait
                self._sleep(min(MAX_WAIT_S, pause))
                wait = min(MAX_WAIT_S, wait * 2)
                continue
            except LLMError:
                meter.failures += 1
                raise
            try:
                parsed = json.loads(raw)
            except ValueError:
                meter.failures += 1
                raise self._fail(f"{cfg.url} answered with a body that is not JSON: {raw[:80]!r}") from None
            try:
                response = parse_response(parsed)
            except LLMError:
                meter.failures += 1
                raise
            meter.prompt_tokens += response.prompt_tokens
            meter.completion_tokens += response.completion_tokens
            cost = cfg.cost(response.prompt_tokens, response.completion_tokens)
            if cost is not None:
                meter.cost = (meter.cost or 0.0) + cost
            if key:
                self.cache.put(key, parsed)
            return response
        meter.failures += 1
        raise self._fail(f"{last} (gave up after {cfg.max_retries + 1} attempt(s))")

    def _post(self, data: bytes) -> bytes:
        cfg = self.config
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": f"dbt-schema-link/{__version__}"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        req = urllib.request.Request(cfg.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=cfg.timeout_s) as resp:
                return resp.read()
        except urllib.error.HTTPError as exc:
            try:
                detail = exc.read().decode("utf-8", "replace")
            except Exception:  # noqa: BLE001 - the body is only quoted in a message
                detail = ""
            message = f"{cfg.url} answered HTTP {exc.code}: {_one_line(detail) or exc.reason}"
            if exc.code in RETRY_STATUSES:
                raise _Retry(message, _retry_after(exc.headers.get("Retry-After") if exc.headers else None)) from None
            hint = " (check the API key variable " + cfg.api_key_env + ")" if exc.code in (401, 403) else ""
            raise self._fail(message + hint) from None
        except (socket.timeout, TimeoutError):
            raise _Retry(f"{cfg.url} did not answer within {cfg.timeout_s:g}s") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise _Retry(f"{cfg.url} did not answer within {cfg.timeout_s:g}s") from None
            down = isinstance(reason, (ConnectionRefusedError, socket.gaierror))
            raise _Retry(f"cannot reach {cfg.url}: {_one_line(getattr(reason, 'strerror', None) or reason)}",
                         down=down) from None
        except (ConnectionError, OSError) as exc:  # reset mid-response, broken pipe
            raise _Retry(f"the connection to {cfg.url} failed: {_one_line(exc.__class__.__name__)}") from None

    # -- several at once ------------------------------------------------------------------------
    def chat_many(self, requests: Sequence[ChatRequest], meter: Meter | None = None) -> list[ChatResponse | LLMError]:
        """Each result is a response or the LLMError it failed with (one failure spoils nothing else)."""

        def one(r: ChatRequest):
            try:
                return self.chat(r, meter)
            except LLMError as exc:
                return exc

        if len(requests) <= 1 or self.config.concurrency == 1:
            return [one(r) for r in requests]
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="schema-link-llm")
            pool = self._pool
        return list(pool.map(one, requests))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
