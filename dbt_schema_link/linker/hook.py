"""The seam for optional question-time stages: the linker defines what a stage may do, an outer
package implements it (dbt_schema_link.llm), and api/cli wire the two. The linker never imports
its hooks, so linking stays offline and importable without them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence

if TYPE_CHECKING:
    from dbt_schema_link.linker.answer import Answer, Candidate
    from dbt_schema_link.linker.evidence import Evidence
    from dbt_schema_link.linker.pipeline import Linker
    from dbt_schema_link.linker.selection import Selection

class QuestionHook(Protocol):
    """The stages' work on one question, called by `Linker.link` in this order."""

    def rerank(self, candidates: Sequence[Candidate]) -> list[Candidate]:
        """The localization candidates, reordered (or as they were)."""

    def select(self, group: int) -> Selection | None:
        """A selection for the top unit, or None to keep the linker's."""

    def finish(self, answer: Answer) -> None:
        """Record what the stages did on the answer."""


class LinkerHook(Protocol):
    """One per session, shared by its questions."""

    def start(self, linker: Linker, question: str, hint: str | None, ev: Evidence) -> QuestionHook:
        """Begin a question, after the linker has gathered its evidence."""

    def summary(self) -> str:
        """One line on what the stages did in the session (requests, tokens, cost)."""

    def close(self) -> None:
        """Release what the hook holds (connections)."""
