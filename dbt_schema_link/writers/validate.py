"""Check a plan before it is written: the new YAML against dbt's bundled JSON schema (when the
installed dbt ships one), and `dbt parse` on a scratch copy of the project with the planned files
in place: it must succeed and log no warning the unchanged project does not (deprecations
included). Nothing in the real project is touched.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml as pyyaml

from dbt_schema_link.dbt_runner import DbtInvocation, stream_dbt
from dbt_schema_link.writers.records import ChangeKind, WritePlan
from dbt_schema_link.writers.yaml_io import py_load

#: Never copied into the scratch project (big, or rebuilt by dbt parse).
_SKIP_TOP = {".git", ".venv", "venv", "node_modules", "__pycache__", ".pytest_cache"}


@dataclass
class ValidationReport:
    problems: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)  # what was checked, for the CLI's messages

    @property
    def ok(self) -> bool:
        return not self.problems


def _version(text: str) -> tuple[int, ...]:
    match = re.match(r"\s*(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(g) for g in match.groups() if g is not None) if match else ()


def installed_dbt_version() -> tuple[int, ...] | None:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return None
    try:
        return _version(version("dbt-core"))
    except PackageNotFoundError:
        return None


@lru_cache(maxsize=1)
def bundled_schema() -> dict | None:
    """dbt's resources JSON schema (dbt >= 1.10 ships `dbt/jsonschemas/resources/latest.json`)."""
    try:
        spec = importlib.util.find_spec("dbt")
    except (ImportError, ValueError):
        return None
    roots = list(spec.submodule_search_locations or []) if spec else []
    for root in roots:
        path = Path(root) / "jsonschemas" / "resources" / "latest.json"
        if path.exists():
            try:
                return json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                return None
    return None


def schema_errors(data: Any, schema: dict) -> set[str]:
    """'path: message' for each violation (an empty set when jsonschema is missing).

    Enums compare case-insensitively: the schema (shared with dbt Fusion) spells severities
    `Warn`/`Error`, while dbt-core documents and accepts `warn`/`error`.
    """
    validator_class = _validator_class()
    if validator_class is None:  # pragma: no cover - jsonschema comes with dbt
        return set()
    out = set()
    for error in validator_class(schema).iter_errors(_jsonable(data)):
        path = ".".join(str(p) for p in error.absolute_path)
        out.add(f"{path or '<top>'}: {_deepest(error).message.splitlines()[0][:300]}")
    return out


@lru_cache(maxsize=1)
def _validator_class():
    try:
        from jsonschema import Draft7Validator
        from jsonschema.exceptions import ValidationError
        from jsonschema.validators import extend
    except ImportError:  # pragma: no cover
        return None

    def enum(validator, enums, instance, schema):
        if isinstance(instance, str) and any(isinstance(e, str) and e.lower() == instance.lower() for e in enums):
            return
        if instance not in enums:
            yield ValidationError(f"{instance!r} is not one of {enums!r}")

    return extend(Draft7Validator, validators={"enum": enum})


def _deepest(error):
    """The most specific cause inside anyOf/oneOf (the last branch tried is rarely the one meant)."""
    best = error
    for sub in error.context or ():
        candidate = _deepest(sub)
        if len(candidate.absolute_path) > len(best.absolute_path):
            best = candidate
    return best


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)  # dates and the like: dbt accepts them as strings


def check_schema(plan: WritePlan, report: ValidationReport, schema: dict | None = None) -> None:
    """New violations of dbt's JSON schema in any planned YAML (old ones are the user's)."""
    if schema is None:
        installed = installed_dbt_version()
        if installed is None or installed[:2] != _version(plan.dbt_version)[:2]:
            report.checked.append(
                f"not checked against dbt's JSON schema of project YAML: the installed dbt "
                f"{'.'.join(map(str, installed or ())) or 'is missing'} is not the project's {plan.dbt_version}"
            )
            return
        schema = bundled_schema()
    if schema is None:
        report.checked.append("not checked against dbt's JSON schema of project YAML: the installed dbt ships none")
        return
    for change in plan.changes:
        if change.kind is not ChangeKind.YAML:
            continue
        try:
            new = py_load(change.new.decode("utf-8")) or {}
            old = py_load(change.old.decode("utf-8")) or {} if change.old else {}
        except (pyyaml.YAMLError, UnicodeDecodeError) as exc:
            report.problems.append(f"{change.display}: does not load as YAML ({str(exc).splitlines()[0]})")
            continue
        added = sorted(schema_errors(new, schema) - schema_errors(old, schema))
        for problem in added[:5]:
            report.problems.append(f"{change.display}: dbt's JSON schema rejects {problem}")
    report.checked.append("checked the new YAML against dbt's JSON schema of project YAML (the installed dbt's "
                          "dbt/jsonschemas/resources/latest.json): no new problems")


def _project_dirs(src: Path) -> tuple[set[str], str]:
    """(top-level dirs dbt writes: target/logs, the packages dir)."""
    generated, packages = {"target", "logs"}, "dbt_packages"
    try:
        data = pyyaml.safe_load((src / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    except (OSError, pyyaml.YAMLError, UnicodeDecodeError):
        data = {}
    for key in ("target-path", "log-path"):
        if isinstance(data.get(key), str) and "{{" not in data[key]:
            generated.add(data[key].strip("/").split("/")[0])
    if isinstance(data.get("packages-install-path"), str):
        packages = data["packages-install-path"].strip("/").split("/")[0]
    return generated, packages


def _own_path(dest: Path, rel: Path) -> Path:
    """`dest / rel` with no symbolic link on the way (copytree keeps links as links): a linked
    folder becomes a copy of its target and a linked file goes, so writing the scratch copy never
    writes through a link into the project or outside it."""
    here = dest
    for part in rel.parts[:-1]:
        here = here / part
        if here.is_symlink():
            target = here.resolve()
            here.unlink()
            if target.is_dir():
                shutil.copytree(target, here, symlinks=True)
    path = here / rel.parts[-1]
    if path.is_symlink():
        path.unlink()
    return path


def scratch_copy(plan: WritePlan, dest: Path, with_changes: bool) -> Path:
    """Copy the project (not target/logs/databases; installed packages linked, not copied) and
    lay the plan's files over it."""
    src = plan.project_dir
    generated, packages = _project_dirs(src)
    dest.mkdir(parents=True, exist_ok=True)
    for entry in sorted(src.iterdir()):
        if entry.name in _SKIP_TOP or entry.name in generated or entry.suffix in (".duckdb", ".wal"):
            continue
        if entry.is_symlink() and not entry.exists():
            continue  # dangling (a leftover `target-base -> /Users/...`): nothing for dbt to parse
        if entry.name == packages and entry.is_dir():
            (dest / entry.name).symlink_to(entry.resolve(), target_is_directory=True)
        elif entry.is_dir():
            shutil.copytree(entry, dest / entry.name, symlinks=True,
                            ignore=shutil.ignore_patterns("*.duckdb", "*.duckdb.wal", "__pycache__"))
        else:
            shutil.copy2(entry, dest / entry.name, follow_symlinks=True)
    if with_changes:
        for change in plan.changes:
            if change.kind is ChangeKind.STATE:
                continue
            path = _own_path(dest, change.path.relative_to(src))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(change.new)
    return dest


def _parse(inv: DbtInvocation, project: Path) -> tuple[int, list[str], str]:
    result = stream_dbt(replace(inv, project_dir=project), ["parse", "--no-partial-parse"])
    warnings = [f"{m.name}: {m.msg.strip()}" for m in result.messages if m.level in ("warn", "warning")]
    return result.returncode, warnings, result.error_summary() if not result.ok else ""


def check_dbt_parse(plan: WritePlan, inv: DbtInvocation, report: ValidationReport) -> None:
    """`dbt parse` of the project with the plan applied, in a scratch copy."""
    if not plan.would_change:
        return
    with tempfile.TemporaryDirectory(prefix="schema_link_validate_") as tmp:
        after = scratch_copy(plan, Path(tmp) / "after", with_changes=True)
        code, warnings, error = _parse(inv, after)
        if code != 0:
            report.problems.append(f"dbt parse fails with the planned files: {error}")
            return
        if warnings:
            before = scratch_copy(plan, Path(tmp) / "before", with_changes=False)
            _, baseline, _ = _parse(inv, before)
            new = Counter(warnings) - Counter(baseline)
            for warning in list(new)[:5]:
                report.problems.append(f"dbt parse warns with the planned files: {warning.splitlines()[0][:300]}")
    report.checked.append("dbt parse on a scratch copy with the new YAML: no new warnings")


def validate_plan(plan: WritePlan, inv: DbtInvocation | None = None, schema: bool = True) -> ValidationReport:
    """Both checks; `inv` None skips `dbt parse`."""
    report = ValidationReport()
    if schema:
        check_schema(plan, report)
    if inv is not None:
        check_dbt_parse(plan, inv, report)
    return report
