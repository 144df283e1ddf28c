"""Settings for write-back, validated on construction (one-line errors naming the valid range)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Mapping

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.links import CONFIDENCE_BARS
from dbt_schema_link.writers.doc_records import DocsMode, parse_modes

SEVERITIES = ("warn", "error")
#: Placeholders a new-file pattern may use; the result is relative to the project directory.
PATTERN_FIELDS = ("dir", "name")
DEFAULT_NEW_FILE_PATTERN = "{dir}/_{name}__schema_link.yml"
DEFAULT_STATE_FILE = "schema_link_state.json"
SCHEMA_LINK_TAG = "schema_link"


class SemanticSpec(str, Enum):
    """How semantic-layer entities are written."""

    NONE = "none"  # do not write entities
    LEGACY = "legacy"  # top-level `semantic_models:` (dbt 1.6-1.12)
    MODEL = "model"  # dbt 1.12 in-model spec: `semantic_model:` + column `entity:`


@dataclass(frozen=True)
class WriteOptions:
    min_confidence: float = CONFIDENCE_BARS.write_test  # write bar (links.ConfidenceBars); calibrated
    severity: str = "warn"  # for inferred links
    declared_severity: str = "error"  # for links declared elsewhere
    tests: bool = True
    #: a link on an installed package's relation becomes a data test in the root project's
    #: tests/schema_link/ (writers/package_tests.py); False: reported as not writable
    package_tests: bool = True
    column_docs: bool = True
    semantic_models: SemanticSpec = SemanticSpec.NONE
    create_time_spine: bool = False
    constraints: bool = False  # FK constraints on models with enforced contracts
    dbt_version: str | None = None  # override project.dbt_version (the syntax we write)
    project_dir: Path | None = None  # default: project.project_dir
    new_file_pattern: str = DEFAULT_NEW_FILE_PATTERN
    state_file: str = DEFAULT_STATE_FILE
    tag: str = SCHEMA_LINK_TAG
    # documenting the warehouse (`--docs inherit,draft`; writers/doc_writes.py)
    docs: tuple[DocsMode, ...] = ()
    draft_columns: bool = True  # False: `draft` leaves column drafts out
    draft_relations: bool = True  # False: `draft` leaves relation-level drafts out
    inherit_meta: bool = False  # also copy the upstream column's meta and tags
    draft_max_values: int = 6  # list a column's values in its draft when it has at most this many

    def __post_init__(self) -> None:
        object.__setattr__(self, "docs", parse_modes(self.docs))
        if isinstance(self.draft_max_values, bool) or not isinstance(self.draft_max_values, int) \
                or not 0 <= self.draft_max_values <= 50:
            raise SchemaLinkError(f"draft_max_values must be a whole number from 0 to 50, got {self.draft_max_values!r}")
        if not isinstance(self.package_tests, bool):
            raise SchemaLinkError(f"package_tests must be true or false, got {self.package_tests!r}")
        if not 0.0 <= float(self.min_confidence) <= 1.0:
            raise SchemaLinkError(f"min_confidence must be between 0 and 1, got {self.min_confidence}")
        for name in ("severity", "declared_severity"):
            if getattr(self, name) not in SEVERITIES:
                raise SchemaLinkError(f"{name} must be one of {', '.join(SEVERITIES)}, got {getattr(self, name)!r}")
        if not isinstance(self.semantic_models, SemanticSpec):
            object.__setattr__(self, "semantic_models", _spec(self.semantic_models))
        if "{name}" not in self.new_file_pattern or not self.new_file_pattern.endswith((".yml", ".yaml")):
            raise SchemaLinkError(
                f"new_file_pattern must contain {{name}} and end in .yml, got {self.new_file_pattern!r} "
                f"(fields: {', '.join('{' + f + '}' for f in PATTERN_FIELDS)})"
            )
        try:
            self.new_file_pattern.format(dir="d", name="n")
        except (KeyError, IndexError, ValueError):
            raise SchemaLinkError(
                f"new_file_pattern {self.new_file_pattern!r} uses an unknown field: only "
                f"{', '.join('{' + f + '}' for f in PATTERN_FIELDS)} are allowed"
            ) from None
        if Path(self.new_file_pattern).is_absolute() or Path(self.state_file).is_absolute():
            raise SchemaLinkError("new_file_pattern and state_file must be relative to the project directory")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], **overrides: Any) -> WriteOptions:
        """Build from `vars.schema_link.write` (dbt_project.yml) plus CLI overrides (None = unset)."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(values) - known)
        if unknown:
            raise SchemaLinkError(f"unknown write setting(s) {', '.join(unknown)}: valid are {', '.join(sorted(known))}")
        merged = {**values, **{k: v for k, v in overrides.items() if v is not None}}
        if "project_dir" in merged and merged["project_dir"] is not None:
            merged["project_dir"] = Path(merged["project_dir"])
        return cls(**merged)


def _spec(value: Any) -> SemanticSpec:
    if value is True:
        return SemanticSpec.LEGACY
    if value in (False, None):
        return SemanticSpec.NONE
    try:
        return SemanticSpec(str(value).lower())
    except ValueError:
        raise SchemaLinkError(
            f"semantic_models must be one of {', '.join(s.value for s in SemanticSpec)}, got {value!r}"
        ) from None
