"""Optional LLM wording of the factual drafts `write --docs draft` makes (`--llm wording`).

The model gets the draft and is asked for one plain sentence that keeps every value. It never
sees data beyond what the draft already states. The writer accepts the reply only when it keeps
every fact verbatim (writers/doc_drafts.accept_wording); anything else — a failure, an endpoint
that is down, a dropped value — keeps the measured draft and is counted in a warning.
"""

from __future__ import annotations

from dbt_schema_link.llm.client import ChatClient, ChatRequest, LLMError, LLMUnavailable, Meter
from dbt_schema_link.llm.options import LLMOptions
from dbt_schema_link.writers.doc_records import WordingRequest

SYSTEM = (
    "You write column and table descriptions for a data catalogue. Rewrite the measured facts "
    "you are given as one short plain sentence. Keep every value, number and name exactly as "
    "written; add nothing that the facts do not say; no quotes, no markdown."
)
#: Tokens allowed for one reworded description.
MAX_TOKENS = 120


class DraftWording:
    """The writer's wording hook (doc_records.Wording) over an OpenAI-compatible endpoint."""

    def __init__(self, options: LLMOptions, client: ChatClient | None = None) -> None:
        self.client = client or ChatClient(options.config)
        self.meter = Meter()
        self.warnings: list[str] = []
        self._down = False

    def __call__(self, request: WordingRequest) -> str | None:
        if self._down:
            return None
        prompt = (f"Object: {request.subject}\nMeasured facts: {request.draft}\n"
                  f"Keep verbatim: {', '.join(request.facts) or '(nothing)'}\nDescription:")
        try:
            response = self.client.chat(ChatRequest(messages=(("system", SYSTEM), ("user", prompt)),
                                                    max_tokens=MAX_TOKENS), self.meter)
        except LLMUnavailable as exc:
            self._down = True  # the rest of the run keeps its measured drafts at once
            self.warnings.append(f"LLM wording off for this run: {exc}")
            return None
        except LLMError as exc:
            self.warnings.append(f"LLM wording of {request.subject} failed: {exc}")
            return None
        return response.text

    def summary(self) -> str:
        m = self.meter
        return (f"LLM wording: {m.requests} request(s), {m.cached} cached, "
                f"{m.prompt_tokens + m.completion_tokens} tokens")
