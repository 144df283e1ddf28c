"""A deterministic, dependency-free token estimate for budgets.

BPE tokenizers of current LLMs split English into roughly four-letter pieces, digits into groups
of up to three, and every punctuation mark into its own token. Counting exactly those pieces gives
an estimate that is at or slightly above the real count for schema text (identifiers, SQL types,
short descriptions), so a budget met here is met by the model too. The count is additive over
lines (each newline is one token), which lets the renderer cost lines independently.
"""

from __future__ import annotations

import re

_PIECE_RE = re.compile(r"[A-Za-z]{1,4}|[0-9]{1,3}|[^\sA-Za-z0-9]")


def count_line(line: str) -> int:
    return len(_PIECE_RE.findall(line))


def count_tokens(text: str) -> int:
    if not text:
        return 0
    lines = text.split("\n")
    return sum(count_line(line) for line in lines) + len(lines) - 1
