"""Which YAML spelling the target dbt version accepts (docs/dbt_facts.md, "YAML spellings by version").

- generic-test inputs under ``arguments:`` from 1.10.5 (1.10.8 warns without it; before 1.10.5
  ``arguments:`` breaks compilation);
- ``severity/where/tags/meta`` under ``config:`` in every version;
- column ``meta`` under ``config:`` from 1.10;
- YAML ``time_spine:`` config from 1.9 (before: a model named ``metricflow_time_spine``);
- in-model semantic spec (``semantic_model:`` + column ``entity:``) from 1.12;
- foreign-key constraints with ``to:``/``to_columns:`` from 1.9.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dbt_schema_link.errors import SchemaLinkError

MIN_SUPPORTED = (1, 8, 0)


@dataclass(frozen=True)
class DbtSyntax:
    version: tuple[int, int, int]

    @property
    def label(self) -> str:
        return ".".join(str(p) for p in self.version)

    @property
    def test_arguments(self) -> bool:
        return self.version >= (1, 10, 5)

    @property
    def column_meta_in_config(self) -> bool:
        return self.version >= (1, 10, 0)

    @property
    def time_spine_yaml(self) -> bool:
        return self.version >= (1, 9, 0)

    @property
    def model_semantic_spec(self) -> bool:
        return self.version >= (1, 12, 0)

    @property
    def fk_constraint_to(self) -> bool:
        return self.version >= (1, 9, 0)


_VERSION_RE = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?")


def syntax_for(version: str) -> DbtSyntax:
    """``1.11.16``, ``1.12.0b1``, ``1.10.0rc2`` ... -> DbtSyntax; unknown/too old is an error."""
    match = _VERSION_RE.match(version or "")
    if not match:
        raise SchemaLinkError(
            f"cannot tell the dbt version from {version!r}: run `dbt parse` with dbt >= 1.8 or give the version (X.Y.Z)",
            option="dbt_version",
        )
    parsed = (int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))
    if parsed < MIN_SUPPORTED:
        raise SchemaLinkError(f"dbt {version} is older than 1.8, which write-back supports: upgrade dbt")
    return DbtSyntax(parsed)
