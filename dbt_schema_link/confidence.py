"""One way to show a link's confidence everywhere: links.md, the YAML meta `write` adds, `link
--check`, `write`'s skip reasons, `ask --format json` and the MCP tools. Three decimals, so the
Markdown report and the YAML say the same number (0.998, not 1.00 beside 0.998)."""

from __future__ import annotations

#: Decimals a confidence is stored and shown with.
CONFIDENCE_DECIMALS = 3


def confidence_value(confidence: float) -> float:
    """The number written into YAML and JSON."""
    return round(float(confidence), CONFIDENCE_DECIMALS)


def confidence_text(confidence: float) -> str:
    """The number as text: ``0.998``, ``1.000``."""
    return f"{confidence_value(confidence):.{CONFIDENCE_DECIMALS}f}"
