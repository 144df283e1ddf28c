"""A local OpenAI-compatible chat/completions (and /completions) server for the tests: real HTTP on 127.0.0.1 (a free
port), scripted replies chosen by the request's prompt content, every request recorded."""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Reply:
    status: int = 200
    body: dict | bytes | str | None = None
    headers: dict = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering


def completion(*texts: str, logprobs: list | None = None, prompt_tokens: int = 50, completion_tokens: int = 5,
               usage: bool = True) -> dict:
    choices = []
    for i, text in enumerate(texts):
        ch = {"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        if logprobs is not None:
            ch["logprobs"] = {"content": logprobs}
        choices.append(ch)
    out = {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "test-model", "choices": choices}
    if usage:
        out["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens}
    return out


def yes_logprobs(p_yes: float) -> list:
    """First-token log-probabilities with P(yes) = p_yes among yes/no (plus some noise tokens)."""
    import math

    p_yes = min(max(p_yes, 1e-6), 1 - 1e-6)
    top = [{"token": "Yes", "logprob": math.log(p_yes * 0.9)}, {"token": "No", "logprob": math.log((1 - p_yes) * 0.9)},
           {"token": " yes", "logprob": math.log(p_yes * 0.05)}, {"token": "no", "logprob": math.log((1 - p_yes) * 0.05)},
           {"token": "Maybe", "logprob": math.log(0.05)}]
    first = top[0] if p_yes >= 0.5 else top[1]
    return [{"token": first["token"], "logprob": first["logprob"], "top_logprobs": top}]


Handler = Callable[[dict], Reply]


class ScriptedLLM:
    """`handler(request_body) → Reply`; `requests` holds (path, headers, body) of every request."""

    def __init__(self, handler: Handler):
        self.handler = handler
        self.requests: list[tuple[str, dict, dict | None]] = []
        self._lock = threading.Lock()
        outer = self

        class _H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                with outer._lock:
                    outer.requests.append((self.path, dict(self.headers), body))
                if self.path not in ("/v1/chat/completions", "/v1/completions"):
                    reply = Reply(404, {"error": {"message": f"no route {self.path}"}})
                else:
                    reply = outer.handler(body)
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.body
                if isinstance(data, dict):
                    data = json.dumps(data).encode()
                elif isinstance(data, str):
                    data = data.encode()
                data = data or b""
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _H)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> "ScriptedLLM":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)


def closed_port_url() -> str:
    """A base URL nobody listens on (connection refused)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/v1"


def prompt_text(body: dict | None) -> str:
    return "\n".join(m.get("content", "") for m in (body or {}).get("messages", []))


def system_text(body: dict | None) -> str:
    return next((m.get("content", "") for m in (body or {}).get("messages", []) if m.get("role") == "system"), "")
