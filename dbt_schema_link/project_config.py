"""Locate a dbt project's files and read our settings from its `vars`.

Settings can be given in the project's dbt_project.yml so that the macros and the CLI agree:

    vars:
      schema_link:
        min_confidence: 0.8
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dbt_schema_link.errors import ArtifactError

VARS_KEY = "schema_link"


@dataclass(frozen=True)
class ProjectPaths:
    project_dir: Path
    target_dir: Path

    @property
    def output_dir(self) -> Path:
        return self.target_dir / "schema_link"

    @property
    def profiles_json(self) -> Path:
        return self.output_dir / "profiles.json"

    @property
    def links_json(self) -> Path:
        return self.output_dir / "links.json"

    @property
    def links_md(self) -> Path:
        return self.output_dir / "links.md"

    @property
    def scores_memo(self) -> Path:
        return self.output_dir / "scores.memo"


def locate(project_dir: str | Path, target_path: str | Path | None = None) -> ProjectPaths:
    root = Path(project_dir).resolve()
    if not (root / "dbt_project.yml").exists():
        raise ArtifactError(f"{root} has no dbt_project.yml: point at a dbt project's directory", option="project_dir")
    if target_path is None:
        target_path = _configured_target_path(root) or "target"
    target = Path(target_path)
    return ProjectPaths(root, target if target.is_absolute() else root / target)


def _load_project_yml(root: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load((root / "dbt_project.yml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ArtifactError(f"{root / 'dbt_project.yml'} cannot be read ({first}): fix the YAML") from None
    return data if isinstance(data, dict) else {}


def _configured_target_path(root: Path) -> str | None:
    value = _load_project_yml(root).get("target-path")
    return value if isinstance(value, str) and "{{" not in value else None


def configured_paths(root: Path, key: str, default: str) -> list[str]:
    """A path list of dbt_project.yml (`model-paths`, `test-paths`), or [default] when unset."""
    paths = _load_project_yml(root).get(key)
    found = [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []
    return found or [default]


def project_vars(root: Path) -> dict[str, Any]:
    """`vars.schema_link` from dbt_project.yml (a mapping), or {}."""
    variables = _load_project_yml(root).get("vars")
    section = variables.get(VARS_KEY) if isinstance(variables, dict) else None
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ArtifactError(f"vars.{VARS_KEY} in {root / 'dbt_project.yml'} must be a mapping of setting: value")
    return dict(section)
