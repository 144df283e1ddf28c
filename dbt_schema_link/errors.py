"""User-facing errors. Every failure a user can cause or fix is a SchemaLinkError whose message
is one line naming the object and the fix; the CLI prints it without a traceback."""

from __future__ import annotations


class SchemaLinkError(Exception):
    """A problem the user can fix; ``str(err)`` is the one-line message shown by the CLI.

    ``option`` names the setting at fault (a keyword of the api function, e.g. ``"budget"``) when
    there is one: the message says what is wrong, the CLI adds the flag that sets it."""

    exit_code = 2

    def __init__(self, message: str = "", *, option: str | None = None):
        super().__init__(message)
        self.option = option


class ArtifactError(SchemaLinkError):
    """manifest.json / catalog.json missing, malformed or stale."""


class WarehouseError(SchemaLinkError):
    """dbt or the warehouse failed while profiling or verifying."""


class ProfilingIncomplete(SchemaLinkError):
    """Some relations failed to profile; the rest were written."""

    exit_code = 1


class YamlWriteError(SchemaLinkError):
    """A YAML file could not be edited faithfully and was left untouched."""
