"""Which LLM stages run and against which endpoint: the `--llm*` options, their environment
fallbacks, and `LLMOptions`. Light on imports: the CLI builds its parser from here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.llm.client import DEFAULT_API_KEY_ENV, DEFAULT_TIMEOUT_S, LLMConfig

#: Stage names, in the order they act on a question.
STAGES = ("hallucinate", "rerank", "bidirectional")
#: Alternatives of the first answer token requested for reranking.
DEFAULT_TOP_LOGPROBS = 5
#: Sampled answers per database when the endpoint sends no log-probabilities.
DEFAULT_SAMPLES = 5
#: Environment variables read when the matching option is not given.
ENV_BASE_URL = "SCHEMA_LINK_LLM_BASE_URL"
ENV_MODEL = "SCHEMA_LINK_LLM_MODEL"
ENV_API_KEY_ENV = "SCHEMA_LINK_LLM_API_KEY_ENV"
#: Directory of the response cache, beside the index under target/schema_link/.
CACHE_DIR_NAME = "llm_cache"


def parse_stages(spec: str | Sequence[str] | None) -> tuple[str, ...]:
    """'hallucinate,rerank' / 'all' / 'none' / '' → stage names in pipeline order."""
    if spec is None:
        return ()
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = {s.strip().lower() for item in items for s in str(item).split(",") if s.strip()}
    if not names or names == {"none"}:
        return ()
    if "all" in names:
        return STAGES
    unknown = sorted(names - set(STAGES))
    if unknown:
        raise SchemaLinkError(f"--llm {', '.join(unknown)} is not a stage: use one or more of "
                              f"{', '.join(STAGES)} (comma-separated) or all")
    return tuple(s for s in STAGES if s in names)


@dataclass(frozen=True)
class LLMOptions:
    """Which stages run and against which endpoint."""

    stages: tuple[str, ...]
    config: LLMConfig
    samples: int = DEFAULT_SAMPLES
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    cache: bool = True  # keep responses under target/schema_link/llm_cache/ (when config.cache_dir is unset)

    def __post_init__(self):
        object.__setattr__(self, "stages", parse_stages(self.stages))
        if not 1 <= self.samples <= 20:
            raise SchemaLinkError(f"LLM samples {self.samples} must be between 1 and 20")
        if not 1 <= self.top_logprobs <= 20:
            raise SchemaLinkError(f"LLM top_logprobs {self.top_logprobs} must be between 1 and 20")


def llm_options(stages: str | Sequence[str] | None, base_url: str | None = None, model: str | None = None,
                api_key_env: str | None = None, timeout_s: float | None = None, cache: bool = True,
                cache_dir: str | Path | None = None, prompt_price_per_1k: float | None = None,
                completion_price_per_1k: float | None = None) -> LLMOptions | None:
    """Options from the CLI's words (falling back to SCHEMA_LINK_LLM_* variables); None when no
    stage is selected. Without `cache_dir` the session puts the cache beside its index."""
    chosen = parse_stages(stages)
    if not chosen:
        return None
    base_url = base_url or os.environ.get(ENV_BASE_URL)
    model = model or os.environ.get(ENV_MODEL)
    if not base_url:
        raise SchemaLinkError(f"--llm {','.join(chosen)} needs an endpoint: pass --llm-base-url URL "
                              f"(or set {ENV_BASE_URL}), e.g. http://localhost:11434/v1")
    if not model:
        raise SchemaLinkError(f"--llm {','.join(chosen)} needs a model: pass --llm-model NAME (or set {ENV_MODEL})")
    config = LLMConfig(base_url, model, api_key_env or os.environ.get(ENV_API_KEY_ENV) or DEFAULT_API_KEY_ENV,
                       timeout_s=timeout_s or DEFAULT_TIMEOUT_S, cache_dir=Path(cache_dir) if cache_dir else None,
                       prompt_price_per_1k=prompt_price_per_1k, completion_price_per_1k=completion_price_per_1k)
    return LLMOptions(chosen, config, cache=cache)


def add_llm_arguments(parser) -> None:
    """The `--llm*` options of `ask` and of benchmarks/question_linking.py."""
    g = parser.add_argument_group("LLM stages (optional; docs/llm.md)")
    g.add_argument("--llm", default=None, metavar="STAGES",
                   help=f"comma-separated stages to run against an OpenAI-compatible endpoint: "
                        f"{', '.join(STAGES)}, or all (default: none, fully offline)")
    g.add_argument("--llm-base-url", default=None, metavar="URL",
                   help=f"endpoint base URL, e.g. http://localhost:11434/v1 (default: ${ENV_BASE_URL})")
    g.add_argument("--llm-model", default=None, metavar="NAME", help=f"model name (default: ${ENV_MODEL})")
    g.add_argument("--llm-api-key-env", default=None, metavar="VAR",
                   help=f"environment variable holding the API key (default: ${ENV_API_KEY_ENV} or {DEFAULT_API_KEY_ENV}); "
                        f"the key itself is never printed, logged or cached")
    g.add_argument("--llm-timeout", type=float, default=None, metavar="SECONDS",
                   help=f"seconds per request (default {DEFAULT_TIMEOUT_S:g})")
    g.add_argument("--llm-price-prompt", type=float, default=None, metavar="PRICE",
                   help="price per 1,000 prompt tokens, for the cost figures (default: no cost shown)")
    g.add_argument("--llm-price-completion", type=float, default=None, metavar="PRICE",
                   help="price per 1,000 completion tokens")
    g.add_argument("--llm-no-cache", action="store_true",
                   help=f"do not read or write the response cache (target/schema_link/{CACHE_DIR_NAME}/)")


def options_from_args(args, stages: str | None = None) -> LLMOptions | None:
    """LLMOptions from parsed `add_llm_arguments` options (`stages` overrides --llm)."""
    return llm_options(args.llm if stages is None else stages, args.llm_base_url, args.llm_model,
                       args.llm_api_key_env, args.llm_timeout, cache=not args.llm_no_cache,
                       prompt_price_per_1k=args.llm_price_prompt, completion_price_per_1k=args.llm_price_completion)
