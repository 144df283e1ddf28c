"""The fixed split of the eight SaaS packages: tune on the first half, report both.

Fixed in code before any result was seen, and never changed after: moving a package between
halves invalidates every held-back figure reported so far.
"""

from __future__ import annotations

from enum import Enum


class Half(str, Enum):
    TUNING = "tuning"
    HELD_BACK = "held_back"


# FIXED. Never edit after seeing results (see the module docstring).
TUNING = ("hubspot", "netsuite", "lever", "xero")
HELD_BACK = ("shopify", "greenhouse", "workday", "servicenow")

HALVES = (Half.TUNING, Half.HELD_BACK)


def half_of(package: str) -> Half | None:
    """The half a package belongs to; None for a package outside the split."""
    return half_in(package, TUNING, HELD_BACK)


def half_in(name: str, tuning: tuple[str, ...], held_back: tuple[str, ...]) -> Half | None:
    """The half ``name`` belongs to in a split of ``tuning`` / ``held_back`` names."""
    name = name.lower()
    if name in tuning:
        return Half.TUNING
    if name in held_back:
        return Half.HELD_BACK
    return None
