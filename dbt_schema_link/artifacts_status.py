"""Whether dbt's artifacts reflect the project (`--build-artifacts`, the staleness `notice:`).

manifest.json is compared by content where dbt recorded a checksum (the node files: models,
seeds, snapshots, ...), by modification time for the files it carries none of (YAML, macros,
project settings); catalog.json only with the files that change the warehouse's columns.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from dbt_schema_link.artifacts.manifest import node_file_checksums
from dbt_schema_link.dbt_runner import DbtInvocation, stream_dbt
from dbt_schema_link.errors import ArtifactError, SchemaLinkError, WarehouseError
from dbt_schema_link.project_config import ProjectPaths
from dbt_schema_link.project_setup import Progress, project_yml

#: Files dbt reads to build the manifest: a newer one means the artifacts are stale.
SOURCE_SUFFIXES = frozenset({".sql", ".yml", ".yaml", ".csv", ".py", ".md", ".jinja"})
#: Files whose change (once built) changes the warehouse's columns, which catalog.json lists.
NODE_CODE_SUFFIXES = frozenset({".sql", ".csv", ".py"})
DEFAULT_SOURCE_DIRS = {"model-paths": ["models"], "seed-paths": ["seeds"], "snapshot-paths": ["snapshots"],
                       "macro-paths": ["macros"], "analysis-paths": ["analyses"], "test-paths": ["tests"]}
DOCS_GENERATE = "dbt docs generate"


#: The folders whose files become relations in the warehouse.
RELATION_DIRS = ("model-paths", "seed-paths", "snapshot-paths")


def _source_dirs(project_dir: Path, keys=tuple(DEFAULT_SOURCE_DIRS)) -> list[Path]:
    conf = project_yml(project_dir)
    out = []
    for key in keys:
        default = DEFAULT_SOURCE_DIRS[key]
        value = conf.get(key, default)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and "{{" not in item:
                out.append(project_dir / item)
    return out


def project_files(project_dir: Path, keys=tuple(DEFAULT_SOURCE_DIRS)) -> list[Path]:
    """The files dbt reads to build the manifest (from the folders of these dbt_project.yml keys)."""
    files = [project_dir / "dbt_project.yml", project_dir / "packages.yml", project_dir / "dependencies.yml"]
    for root in _source_dirs(project_dir, keys):
        if root.is_dir():
            files += [p for p in root.rglob("*") if p.suffix.lower() in SOURCE_SUFFIXES and p.is_file()]
    return [p for p in files if p.exists()]


def content_checksum(path: Path) -> str | None:
    """The sha256 dbt records for a node file (of its stripped UTF-8 text), None when unreadable."""
    try:
        return hashlib.sha256(path.read_bytes().decode("utf-8").strip().encode("utf-8")).hexdigest()
    except (OSError, UnicodeDecodeError):
        return None


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def changed_since_manifest(project_dir: Path, manifest_path: Path) -> Path | None:
    """A project file the manifest does not reflect. Node files (models, seeds, ...) are compared by
    content with the checksums dbt wrote into the manifest, so a touched but unchanged file or a
    clock's one-second resolution says nothing; the other files (YAML, macros, project settings),
    which the manifest carries no checksum of, by modification time."""
    try:
        recorded = node_file_checksums(json.loads(manifest_path.read_bytes()))
    except (OSError, ValueError, RecursionError):
        recorded = {}
    written = _mtime(manifest_path)
    for path in sorted(project_files(project_dir)):
        rel = path.relative_to(project_dir).as_posix()
        if rel in recorded:
            if content_checksum(path) != recorded[rel]:
                return path
        elif _mtime(path) > written:
            return path
    return None


def changed_since_catalog(project_dir: Path, catalog_path: Path) -> Path | None:
    """A model, seed or snapshot file newer than catalog.json: the warehouse columns it lists may
    have changed. YAML (tests, docs, `write`'s edits) does not change the warehouse."""
    written = _mtime(catalog_path)
    code = [p for p in project_files(project_dir, RELATION_DIRS) if p.suffix.lower() in NODE_CODE_SUFFIXES]
    return next((p for p in sorted(code) if _mtime(p) > written), None)


class ArtifactState(Enum):
    FRESH = "fresh"
    MISSING = "missing"
    STALE = "stale"


@dataclass(frozen=True)
class ArtifactStatus:
    state: ArtifactState
    message: str = ""  # one line: what is missing or older than what, and the fix


def artifact_status(paths: ProjectPaths, need_catalog: bool) -> ArtifactStatus:
    """Whether manifest.json (and catalog.json when needed) exist and are newer than the project."""
    wanted = [paths.target_dir / "manifest.json"] + ([paths.target_dir / "catalog.json"] if need_catalog else [])
    missing = [p for p in wanted if not p.exists()]
    if missing:
        names = " and ".join(p.name for p in missing)
        return ArtifactStatus(ArtifactState.MISSING, f"{names} not found in {paths.target_dir}: run "
                                                     f"`{DOCS_GENERATE}` in {paths.project_dir}")
    checks = [(wanted[0], changed_since_manifest)] + ([(wanted[1], changed_since_catalog)] if need_catalog else [])
    for artifact, changed_since in checks:
        changed = changed_since(paths.project_dir, artifact)
        if changed is not None:
            name = os.path.relpath(changed, paths.project_dir)
            return ArtifactStatus(ArtifactState.STALE, f"{artifact} is older than {name}: "
                                                       f"run `{DOCS_GENERATE}` to see the change")
    return ArtifactStatus(ArtifactState.FRESH)


def prepare_artifacts(paths: ProjectPaths, inv: DbtInvocation | None, need_catalog: bool, build: bool,
                      notice: Progress | None = None) -> ArtifactStatus:
    """Check the artifacts; with `build`, run `dbt docs generate` when they are missing or stale.
    Missing without `build` is an error (option `build_artifacts`); stale is a notice."""
    status = artifact_status(paths, need_catalog)
    if status.state is ArtifactState.FRESH:
        return status
    if build:
        if inv is None:
            raise SchemaLinkError(f"cannot build the artifacts of {paths.project_dir}: no dbt invocation given")
        if notice:
            notice(f"running `{DOCS_GENERATE}` ({status.state.value} artifacts)")
        args = ["docs", "generate"]
        if paths.target_dir != paths.project_dir / "target":
            args += ["--target-path", str(paths.target_dir)]
        result = stream_dbt(inv, args)
        if not result.ok:
            raise WarehouseError(f"{DOCS_GENERATE} failed in {paths.project_dir}: {result.error_summary()}")
        return artifact_status(paths, need_catalog)
    if status.state is ArtifactState.MISSING:
        raise ArtifactError(status.message, option="build_artifacts")
    if notice:
        notice(f"notice: {status.message}")
    return status
