"""The optional LLM stages on a real local model, beside the offline linker, in one run.

Starts llama.cpp's OpenAI-compatible server (`llama-cpp-python[server]`) on a free loopback port
with a GGUF model — by default Gemma 3 270M Q4_K_M from the `llm-local` extra (a base model: the
stages talk to it through the completions API, `--llm-api completion`) — then runs
`benchmarks/question_linking.py` with every stage alone and all together on the same questions:
Spider dev per database (with its tuning / held-back halves), all 20 databases (localization)
and BIRD superhero, and prints strict recall, localization, columns, LLM tokens per question and
p50/p95 latency per stage, the offline row first.

    pip install -e '.[llm-local]'     # see README "LLM stages on a local model" for the build flags
    python benchmarks/llm_stages.py --limit 100
    python benchmarks/llm_stages.py --model path/to/instruct.gguf --api chat --limit 100

Needs ../shared/data (says so and exits 0 when it is missing). Responses are cached under
<work>/llm_cache, so a second run with the same questions sends no request. Reranking needs the
server's `--logits_all` (llama-cpp-python's condition for log-probabilities), which makes every
prompt token cost a vocabulary-wide row (Gemma 3: 262k): the server starts with it only when
`--stages` includes rerank, so measure rerank apart on slow machines:

    python benchmarks/llm_stages.py --stages hallucinate,bidirectional --suite spider bird
    python benchmarks/llm_stages.py --stages rerank --suite all20
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import question_linking  # noqa: E402
from tests.support.llmserver import LocalLLMUnavailable, LocalServer, bundled_model  # noqa: E402

def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, default=None, help="GGUF file (default: the llm-local extra's Gemma 3 270M)")
    p.add_argument("--api", choices=("completion", "chat"), default="completion",
                   help="completion for a base model (default), chat for an instruction-tuned one")
    p.add_argument("--limit", type=int, default=100, help="questions per benchmark, spread over it (default 100)")
    p.add_argument("--suite", nargs="+", default=["spider", "all20", "bird"], help="question_linking suites")
    p.add_argument("--stages", default="all", help="stages to run (default all: each alone, then together)")
    p.add_argument("--context", type=int, default=4096, help="server context window in tokens")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 2, help="server threads")
    p.add_argument("--port", type=int, default=18080,
                   help="server port when free (a fixed port keeps the response cache valid between runs, "
                        "its key holds the URL; default 18080)")
    p.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    p.add_argument("--work", default="/tmp/schema_link_llm_stages")
    args = p.parse_args(argv)
    if not Path(args.data).exists():
        print(f"benchmark data not found at {args.data}: nothing to run (see benchmarks/README)", file=sys.stderr)
        return 0
    try:
        model = args.model or bundled_model()
    except LocalLLMUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    work = Path(args.work)
    logits_all = "rerank" in args.stages or args.stages == "all"
    with LocalServer(model, work / "server.log", args.context, args.threads, logits_all, args.port) as server:
        print(f"llama.cpp server on {server.base_url} with {model.name} ({args.api} API)", file=sys.stderr)
        return question_linking.main([
            "--suite", *args.suite, "--limit", str(args.limit), "--data", args.data, "--work", str(work),
            "--llm", args.stages, "--llm-base-url", server.base_url, "--llm-model", "local",
            "--llm-api", args.api, "--llm-timeout", "300", "--joins", "inferred"])


if __name__ == "__main__":
    sys.exit(main())
