"""Join discovery: which columns of a dbt project's relations join which.

One entry point, :func:`discover`; its result is a :class:`LinkSet` (JSON via ``to_json`` /
``from_json``, Markdown via :func:`render_markdown`). What a user tunes lives in
:class:`DiscoverySettings`; the hand-set strengths and rule cut-offs the fitted weights multiply are
declared in :mod:`.policy`. I/O is injected: exact containment checks go through a ``verify``
callable that the caller wires to the warehouse.
"""

from importlib import import_module

# Names load on first use (PEP 562): reading links.json (`write`, `ask`) needs only the records,
# not the inference engine and its datasketch/scipy imports (about 0.5 s).
_HOMES = {
    "pipeline": ("Pair", "Verifier", "discover"),
    "records": ("LINKS_FORMAT", "LINKS_FORMAT_VERSION", "Cardinality", "Domain", "Evidence", "Link", "LinkKind",
                "LinkSet", "Provenance", "LinkSetFormatError", "Rejection", "Signal", "StageTimings", "Trap"),
    "report": ("render_markdown",),
    "settings": ("DiscoverySettings", "DiscoverySettingsError"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "LINKS_FORMAT", "LINKS_FORMAT_VERSION", "Cardinality", "DiscoverySettings",
    "DiscoverySettingsError", "Domain", "Evidence", "Link", "LinkKind", "LinkSet", "Provenance",
    "LinkSetFormatError", "Pair", "Rejection", "Signal", "StageTimings", "Trap", "Verifier", "discover",
    "render_markdown",
]
