"""Question-time linking: from a natural-language question to the database, models, columns and
joins it needs, rendered as LLM-ready context within a token budget (docs/linker.md).

Public API (the same words as the CLI's `index` and `ask`):
"""

from dbt_schema_link.linker.answer import Answer
from dbt_schema_link.linker.pipeline import Linker
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.render import DEFAULT_BUDGET, DEFAULT_TEMPLATE
from dbt_schema_link.linker.service import (
    LinkSession,
    answer_json,
    ask,
    ask_batch,
    index,
    open_session,
    read_questions,
)
from dbt_schema_link.linker.store import BuildReport, LinkIndex, load_index

__all__ = [
    "Answer", "BuildReport", "DEFAULT_BUDGET", "DEFAULT_TEMPLATE", "LinkIndex", "LinkSession", "LinkSettings",
    "Linker", "answer_json", "ask", "ask_batch", "index", "load_index", "open_session", "read_questions",
]
