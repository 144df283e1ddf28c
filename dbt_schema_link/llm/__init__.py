"""Optional LLM stages for the question-time linker (docs/llm.md).

    from dbt_schema_link import api
    from dbt_schema_link.llm import llm_options

    opts = llm_options("hallucinate,rerank", base_url="http://localhost:11434/v1", model="qwen2.5:7b")
    session = api.open_session(["examples/shop"], llm=opts)
    answer = session.ask("revenue per country")   # answer.llm: stages run, requests, tokens, cost

Without `llm` (or with no stage selected) the linker runs offline, byte-for-byte as before.
Modules: client (HTTP, retries, cache, accounting), options (LLMOptions), prompts, parse (strict
reading of answers), stages (the linker hook, `linker/hook.py`'s LinkerHook). Names are imported lazily so that the CLI's parser
does not load the linker.
"""

from __future__ import annotations

import importlib

_NAMES = {
    "ChatClient": "client", "ChatRequest": "client", "ChatResponse": "client", "LLMConfig": "client",
    "LLMError": "client", "LLMUnavailable": "client", "Meter": "client", "DEFAULT_API_KEY_ENV": "client",
    "STAGES": "options", "LLMOptions": "options", "parse_stages": "options", "llm_options": "options",
    "CACHE_DIR_NAME": "options",
    "ENV_BASE_URL": "options", "ENV_MODEL": "options", "ENV_API_KEY_ENV": "options",
    "LLMRecord": "stages", "LLMStages": "stages", "attach": "stages",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'dbt_schema_link.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"dbt_schema_link.llm.{module}"), name)
