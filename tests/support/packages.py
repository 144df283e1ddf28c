"""Which optional packages an engine's tests need are missing."""

from __future__ import annotations

import importlib.util


def first_missing(needed: tuple[tuple[str, str], ...]) -> str | None:
    """The install name of the first (module, package) pair whose module cannot be imported."""
    for module, package in needed:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            return package
    return None
