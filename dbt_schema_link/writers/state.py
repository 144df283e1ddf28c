"""The small state file that remembers what write-back has written.

Anything once written that is no longer in the YAML was removed (or changed beyond recognition)
by a person, so it is treated as rejected and never re-added. The file changes only when the YAML
changes, so a re-run with nothing new leaves it byte-identical.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.errors import YamlWriteError
from dbt_schema_link.writers.records import AcceptedLink

STATE_FORMAT = "dbt_schema_link/write_state"
STATE_FORMAT_VERSION = 1
#: What is tracked, one key set each.
KINDS = ("tests", "docs", "entities", "constraints", "generated_docs")  # generated_docs: doc_writes.py


def column_key(ref: ColumnRef) -> str:
    return f"{ref.relation}.{ref.column.lower()}"


def link_key(link: AcceptedLink) -> str:
    key = f"{column_key(link.child)} -> {column_key(link.parent)}"
    for c, p in link.extra_pairs:  # a composite key: every further pair, in key order
        key += f" + {column_key(c)} -> {column_key(p)}"
    return key


@dataclass
class WriteState:
    written: dict[str, set[str]] = field(default_factory=lambda: {k: set() for k in KINDS})

    def has(self, kind: str, key: str) -> bool:
        return key in self.written.get(kind, set())

    def with_added(self, additions: dict[str, set[str]]) -> WriteState:
        merged = {k: set(v) for k, v in self.written.items()}
        for kind, keys in additions.items():
            merged.setdefault(kind, set()).update(keys)
        return WriteState(merged)

    def to_bytes(self) -> bytes:
        body = {
            "format": STATE_FORMAT,
            "format_version": STATE_FORMAT_VERSION,
            "comment": "Written by dbt-schema-link write. Commit it: entries here that are missing from "
                       "the YAML were removed by hand and are not re-added.",
            "written": {k: sorted(v) for k, v in sorted(self.written.items()) if v},
        }
        return (json.dumps(body, indent=2, sort_keys=False) + "\n").encode("utf-8")


def read_state(path: Path) -> tuple[WriteState, bytes | None]:
    """The state and its raw bytes (None when the file does not exist yet)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return WriteState(), None
    except OSError as exc:
        raise YamlWriteError(f"cannot read {path} ({exc.strerror})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise YamlWriteError(
            f"{path} is not valid JSON: fix it or delete it (deleted tests may then be re-added)"
        ) from None
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise YamlWriteError(f"{path} is not a dbt-schema-link state file: move it away or pass another state_file")
    if data.get("format_version") != STATE_FORMAT_VERSION:
        raise YamlWriteError(
            f"{path} has state format v{data.get('format_version')}, this version reads "
            f"v{STATE_FORMAT_VERSION}: upgrade dbt-schema-link"
        )
    written = data.get("written") if isinstance(data.get("written"), dict) else {}
    state = WriteState({k: set() for k in KINDS})
    for kind, keys in written.items():
        if isinstance(keys, list):
            state.written.setdefault(str(kind), set()).update(str(k) for k in keys)
    return state, raw
