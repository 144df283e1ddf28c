"""Which LLM stages run and against which endpoint: `LLMOptions`, built by `llm_options` with
environment fallbacks (the CLI's `--llm*` flags map onto its keywords). Light on imports: the
CLI's parser reads the defaults from here without loading the linker."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.llm.client import DEFAULT_API_KEY_ENV, DEFAULT_TIMEOUT_S, Api, LLMConfig

#: Stage names, in the order they act on a question.
STAGES = ("hallucinate", "rerank", "bidirectional")
#: Stages of `write --docs draft`: reword the factual drafts (llm/wording.py).
WRITE_STAGES = ("wording",)
#: Alternatives of the first answer token requested for reranking.
DEFAULT_TOP_LOGPROBS = 5
#: Sampled answers per database when the endpoint sends no log-probabilities.
DEFAULT_SAMPLES = 5
#: Environment variables read when the matching option is not given.
ENV_BASE_URL = "SCHEMA_LINK_LLM_BASE_URL"
ENV_MODEL = "SCHEMA_LINK_LLM_MODEL"
ENV_API_KEY_ENV = "SCHEMA_LINK_LLM_API_KEY_ENV"
ENV_API = "SCHEMA_LINK_LLM_API"
#: Directory of the response cache, beside the index under target/schema_link/.
CACHE_DIR_NAME = "llm_cache"


def parse_stages(spec: str | Sequence[str] | None, allowed: tuple[str, ...] = STAGES) -> tuple[str, ...]:
    """'hallucinate,rerank' / 'all' / 'none' / '' → stage names in pipeline order (of ``allowed``)."""
    if spec is None:
        return ()
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = {s.strip().lower() for item in items for s in str(item).split(",") if s.strip()}
    if not names or names == {"none"}:
        return ()
    if "all" in names:
        return allowed
    unknown = sorted(names - set(allowed))
    if unknown:
        raise SchemaLinkError(f"{', '.join(unknown)} is not a stage: use one or more of "
                              f"{', '.join(allowed)} (comma-separated) or all", option="llm_stages")
    return tuple(s for s in allowed if s in names)


@dataclass(frozen=True)
class LLMOptions:
    """Which stages run and against which endpoint."""

    stages: tuple[str, ...]
    config: LLMConfig
    samples: int = DEFAULT_SAMPLES
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    cache: bool = True  # keep responses under target/schema_link/llm_cache/ (when config.cache_dir is unset)

    def __post_init__(self):
        object.__setattr__(self, "stages", parse_stages(self.stages, STAGES + WRITE_STAGES))
        if not 1 <= self.samples <= 20:
            raise SchemaLinkError(f"LLM samples {self.samples} must be between 1 and 20")
        if not 1 <= self.top_logprobs <= 20:
            raise SchemaLinkError(f"LLM top_logprobs {self.top_logprobs} must be between 1 and 20")


def llm_options(stages: str | Sequence[str] | None, base_url: str | None = None, model: str | None = None,
                api_key_env: str | None = None, timeout_s: float | None = None, cache: bool = True,
                cache_dir: str | Path | None = None, prompt_price_per_1k: float | None = None,
                completion_price_per_1k: float | None = None, allowed: tuple[str, ...] = STAGES,
                api: str | Api | None = None) -> LLMOptions | None:
    """Options (falling back to SCHEMA_LINK_LLM_* variables); None when no stage is selected.
    Without `cache_dir` the session puts the cache beside its index. `allowed`: the command's
    stages (`ask`: STAGES, `write`: WRITE_STAGES)."""
    chosen = parse_stages(stages, allowed)
    if not chosen:
        return None
    base_url = base_url or os.environ.get(ENV_BASE_URL)
    model = model or os.environ.get(ENV_MODEL)
    if not base_url:
        raise SchemaLinkError(f"LLM stages {','.join(chosen)} need an endpoint base URL (or {ENV_BASE_URL} set), "
                              f"e.g. http://localhost:11434/v1", option="llm_base_url")
    if not model:
        raise SchemaLinkError(f"LLM stages {','.join(chosen)} need a model name (or {ENV_MODEL} set)",
                              option="llm_model")
    config = LLMConfig(base_url, model, api_key_env or os.environ.get(ENV_API_KEY_ENV) or DEFAULT_API_KEY_ENV,
                       api=Api.parse(api or os.environ.get(ENV_API)), timeout_s=timeout_s or DEFAULT_TIMEOUT_S, cache_dir=Path(cache_dir) if cache_dir else None,
                       prompt_price_per_1k=prompt_price_per_1k, completion_price_per_1k=completion_price_per_1k)
    return LLMOptions(chosen, config, cache=cache)
