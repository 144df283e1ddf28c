"""Join discovery: which columns of a dbt project's relations join which.

One entry point, :func:`discover`; its result is a :class:`LinkSet` (JSON via ``to_json`` /
``from_json``, Markdown via :func:`render_markdown`). All thresholds live in
:class:`DiscoverySettings`. I/O is injected: exact containment checks go through a ``verify``
callable that the caller wires to the warehouse.
"""

from dbt_schema_link.discovery.pipeline import Pair, Verifier, discover
from dbt_schema_link.discovery.records import (
    LINKS_FORMAT, LINKS_FORMAT_VERSION, Cardinality, Domain, Evidence, Link, LinkKind, LinkSet,
    LinkSetFormatError, Rejection, Signal, StageTimings, Trap,
)
from dbt_schema_link.discovery.report import render_markdown
from dbt_schema_link.discovery.settings import DiscoverySettings, DiscoverySettingsError

__all__ = [
    "LINKS_FORMAT", "LINKS_FORMAT_VERSION", "Cardinality", "DiscoverySettings",
    "DiscoverySettingsError", "Domain", "Evidence", "Link", "LinkKind", "LinkSet",
    "LinkSetFormatError", "Pair", "Rejection", "Signal", "StageTimings", "Trap", "Verifier", "discover",
    "render_markdown",
]
