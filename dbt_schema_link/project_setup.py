"""Getting a dbt project ready: the dbt package in packages.yml and installed (`init`, the
on-run-end hook with `init --on-run-end`); artifacts_status.py checks the artifacts.

`init` edits packages.yml round-trip (comments, order and quoting kept; writers/yaml_io.py) and
runs `dbt deps` through the same runner as everything else. The checks here are what the other
commands run first, so that a missing package or artifact is one line naming the fix instead of
dbt's "could not find a macro" or a missing-file error further down.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Callable

import yaml

from dbt_schema_link import __version__
from dbt_schema_link.dbt_runner import DbtInvocation, DbtResult, stream_dbt
from dbt_schema_link.errors import ArtifactError, SchemaLinkError, WarehouseError, YamlWriteError
from dbt_schema_link.fileio import atomic_write_bytes

Progress = Callable[[str], None]

#: The dbt package's `name:` (its dbt_project.yml) and where releases are published.
PACKAGE_NAME = "dbt_schema_link"
GIT_URL = "https://github.com/dbt-schema-link/dbt-schema-link"
#: This checkout's root when the Python package runs from a source tree (the root is the dbt package).
CHECKOUT = Path(__file__).resolve().parents[1]
#: The dbt package inside an installed wheel: setup.py copies dbt_project.yml and macros/ here at
#: build time (package data), so the installed Python package carries the dbt package of its own
#: version and `init` points packages.yml at it with `local:` (no network, no second release).
BUNDLED_PACKAGE = Path(__file__).resolve().parent / "dbt_package"


class PackageState(Enum):
    INSTALLED = "installed"  # at the Python package's version (or newer)
    IS_THE_PACKAGE = "is the package"  # the project is this repository
    NOT_DECLARED = "not declared"  # no entry in packages.yml
    NOT_INSTALLED = "not installed"  # declared, `dbt deps` not run
    OUTDATED = "outdated"  # installed, older than the Python package
    NEWER = "newer"  # installed, newer than the Python package
    MISMATCHED = "mismatched"  # installed at this version, but its macros' names/arguments differ


#: Digest of the dbt package's macro names and arguments (`macro_signatures(macros/)`) that this
#: Python package calls; tests/test_version.py keeps it in step with macros/.
MACRO_SIGNATURES = "e59c35ca3c889633"
_MACRO_DEF = re.compile(r"\{%-?\s*macro\s+(\w+)\s*\((.*?)\)\s*-?%\}", re.S)
#: Installed package states that `init` fixes by re-pinning the entry and running `dbt deps`.
_REPIN = frozenset({PackageState.OUTDATED, PackageState.NEWER, PackageState.MISMATCHED})


def macro_signatures(macros_dir: Path) -> str | None:
    """A short digest of every macro's name and arguments under ``macros_dir`` (None: no macros)."""
    signatures = []
    for path in sorted(macros_dir.glob("*.sql")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        signatures += [f"{name}({' '.join(args.split())})" for name, args in _MACRO_DEF.findall(text)]
    if not signatures:
        return None
    return hashlib.sha256("\n".join(sorted(signatures)).encode("utf-8")).hexdigest()[:16]


def project_yml(project_dir: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load((project_dir / "dbt_project.yml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def is_checkout(root: Path = CHECKOUT) -> bool:
    """Whether the Python package runs from a source tree whose root is the dbt package."""
    return project_yml(root).get("name") == PACKAGE_NAME and (root / "macros").is_dir()


def package_source() -> Path | None:
    """The dbt package that goes with this Python package: the checkout it runs from (a clone,
    an editable install), else the copy inside the installed wheel; None when neither is there
    (a source tree copied without its dbt package)."""
    for root in (CHECKOUT, BUNDLED_PACKAGE):
        if is_checkout(root):
            return root
    return None


def wanted_entry(project_dir: Path) -> dict[str, str]:
    """The packages.yml entry for this Python package: `local:` to the dbt package it carries
    (package_source: relative when the path is short, e.g. a virtual environment inside the
    project), else the git release tag of the same version."""
    source = package_source()
    if source is not None:
        rel = os.path.relpath(source, Path(project_dir).resolve())
        return {"local": rel if rel.count("..") <= 3 else str(source)}
    return {"git": GIT_URL, "revision": f"v{__version__}"}


def snippet(entry: dict[str, str]) -> str:
    """The entry as packages.yml lines, for messages."""
    return "packages: - " + ", ".join(f"{k}: {v}" for k, v in entry.items())


def _version(text: Any) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", str(text))[:3])


def _packages_file(project_dir: Path) -> Path:
    """packages.yml, or dependencies.yml when only that one declares packages (dbt >= 1.6)."""
    deps = project_dir / "dependencies.yml"
    if not (project_dir / "packages.yml").exists() and deps.exists():
        try:
            if isinstance((yaml.safe_load(deps.read_text(encoding="utf-8")) or {}).get("packages"), list):
                return deps
        except (OSError, yaml.YAMLError, UnicodeDecodeError, AttributeError):
            pass
    return project_dir / "packages.yml"


_OUR_NAME = re.compile(r"dbt[-_]schema[-_]link")


def _stale_local(entry: Any, project_dir: Path) -> bool:
    """A `local:` entry named like this package whose folder holds no dbt project (a removed
    virtual environment or clone, another machine's path): ours, and `init` replaces it."""
    local = entry.get("local") if isinstance(entry, dict) else None
    if not isinstance(local, str) or "{{" in local or not _OUR_NAME.search(local):
        return False
    path = Path(local) if Path(local).is_absolute() else project_dir / local
    return not (path / "dbt_project.yml").is_file()


def _declares_us(entry: Any, project_dir: Path) -> bool:
    if not isinstance(entry, dict):
        return False
    local = entry.get("local")
    if isinstance(local, str) and "{{" not in local:
        path = Path(local) if Path(local).is_absolute() else project_dir / local
        return project_yml(path.resolve()).get("name") == PACKAGE_NAME or _stale_local(entry, project_dir)
    for key in ("git", "package", "tarball"):
        value = entry.get(key)
        if isinstance(value, str) and re.search(r"dbt[-_]schema[-_]link", value):
            return True
    return False


def _installed_dir(project_dir: Path) -> Path:
    install = project_yml(project_dir).get("packages-install-path") or "dbt_packages"
    return project_dir / str(install) / PACKAGE_NAME


def installed_version(project_dir: Path) -> str | None:
    """The version of the dbt package `dbt deps` installed into the project, if any."""
    meta = project_yml(_installed_dir(project_dir))
    return str(meta.get("version")) if meta.get("name") == PACKAGE_NAME else None


def installed_signatures(project_dir: Path) -> str | None:
    """`macro_signatures` of the installed dbt package (its macro-paths, default macros/)."""
    root = _installed_dir(project_dir)
    paths = project_yml(root).get("macro-paths") or ["macros"]
    dirs = [root / p for p in (paths if isinstance(paths, list) else [paths]) if isinstance(p, str)]
    found = [d for d in dirs if d.is_dir()]
    return macro_signatures(found[0]) if len(found) == 1 else None


@dataclass
class PackageStatus:
    state: PackageState
    packages_file: Path
    installed: str | None = None
    declared: bool = False

    def fix(self, project_dir: Path) -> str:
        """One line: what is wrong and how to fix it ('' when nothing is)."""
        if self.state in (PackageState.INSTALLED, PackageState.IS_THE_PACKAGE):
            return ""
        where = f"in {project_dir}"
        entry = snippet(wanted_entry(project_dir))
        pin = f"run `dbt-schema-link init` to pin {entry}"
        installed = f"the installed dbt package {PACKAGE_NAME} {self.installed}"
        problems = {
            PackageState.NOT_DECLARED: f"the dbt package {PACKAGE_NAME} is not in {self.packages_file.name} {where}: "
                                       f"run `dbt-schema-link init` (or add `{entry}` and run `dbt deps`)",
            PackageState.NOT_INSTALLED: f"the dbt package {PACKAGE_NAME} is declared but not installed {where}: "
                                        f"run `dbt deps` (or `dbt-schema-link init`)",
            PackageState.OUTDATED: f"{installed} is older than the Python package {__version__} {where}: {pin}",
            PackageState.NEWER: f"{installed} is newer than the Python package {__version__} {where}: upgrade the "
                                f"Python package to {self.installed}, or {pin}",
            PackageState.MISMATCHED: f"{installed} {where} has macros whose names or arguments differ from those "
                                     f"the Python package {__version__} calls: {pin} and reinstall it",
        }
        return problems[self.state]


def package_status(project_dir: Path) -> PackageStatus:
    project_dir = Path(project_dir).resolve()
    packages_file = _packages_file(project_dir)
    if project_yml(project_dir).get("name") == PACKAGE_NAME:
        return PackageStatus(PackageState.IS_THE_PACKAGE, packages_file)
    declared = False
    try:
        doc = yaml.safe_load(packages_file.read_text(encoding="utf-8")) if packages_file.exists() else None
        entries = doc.get("packages") if isinstance(doc, dict) else None
        declared = any(_declares_us(e, project_dir) for e in entries or [])
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        pass
    installed = installed_version(project_dir)
    if installed is None:
        state = PackageState.NOT_INSTALLED if declared else PackageState.NOT_DECLARED
    elif _version(installed) < _version(__version__):
        state = PackageState.OUTDATED
    elif _version(installed) > _version(__version__):
        state = PackageState.NEWER
    elif installed_signatures(project_dir) not in (None, MACRO_SIGNATURES):
        state = PackageState.MISMATCHED
    else:
        state = PackageState.INSTALLED
    return PackageStatus(state, packages_file, installed, declared)


def require_package(project_dir: Path) -> None:
    """Raise the one-line fix when the project cannot run the package's macros."""
    status = package_status(project_dir)
    problem = status.fix(Path(project_dir).resolve())
    if problem:
        raise ArtifactError(problem)


@dataclass
class InitReport:
    project_dir: Path
    packages_file: Path
    entry: dict[str, str]
    before: PackageState
    edited: bool = False  # packages.yml changed (would change, with check)
    ran_deps: bool = False
    lines: list[str] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return self.before in (PackageState.INSTALLED, PackageState.IS_THE_PACKAGE)


def _edit_packages(path: Path, project_dir: Path, entry: dict[str, str], replace_pin: bool) -> bytes | None:
    """New bytes of packages.yml with our entry added (or its pin updated); None: no change."""
    from dbt_schema_link.writers.yaml_io import YamlRefused, add_to_list, load_yaml_file, new_yaml_file  # ruamel: only here

    display = path.name
    try:
        file = load_yaml_file(path, display) if path.exists() else new_yaml_file(path, display, "")
        packages = file.doc.get("packages")
        if packages is not None and not isinstance(packages, list):
            raise YamlRefused("`packages:` is not a list")
        ours = [e for e in packages or [] if _declares_us(e, project_dir)]
        if ours and not replace_pin and not _stale_local(ours[0], project_dir):
            return None
        if ours:
            old = ours[0]
            file.editable(old)
            for key in [k for k in old if k not in entry]:
                del old[key]
            for key, value in entry.items():
                old[key] = value
        else:
            if packages is not None:
                file.editable(packages)
            add_to_list(file.doc, "packages", dict(entry))
        new = file.render()
    except YamlRefused as exc:
        raise YamlWriteError(f"{path} cannot be edited ({exc}): add `{snippet(entry)}` by hand and run `dbt deps`") from None
    return None if new == file.old_bytes else new


#: dbt >= 1.7 writes the resolved versions here on `dbt deps`.
LOCK_FILE = "package-lock.yml"


@dataclass(frozen=True)
class _Snapshot:
    """Files as they were (None: absent), put back byte for byte when `dbt deps` fails."""

    files: tuple[tuple[Path, bytes | None], ...]

    @classmethod
    def of(cls, paths: list[Path]) -> _Snapshot:
        return cls(tuple((p, p.read_bytes() if p.exists() else None) for p in paths))

    def restore(self) -> list[Path]:
        """Put back what changed; the files restored."""
        restored = []
        for path, before in self.files:
            now = path.read_bytes() if path.exists() else None
            if now == before:
                continue
            if before is None:
                path.unlink()
            else:
                atomic_write_bytes(path, before)
            restored.append(path)
        return restored


@dataclass(frozen=True)
class _Declared:
    """One packages.yml entry: how the file names it and the folder `dbt deps` installs it in
    (None: unknown until fetched)."""

    name: str
    folder: str | None
    kind: str  # local, package (dbt hub), git, private, tarball


def _declared_entries(packages_file: Path, project_dir: Path) -> list[_Declared]:
    """Every entry of packages.yml (local ones too), in file order."""
    try:
        doc = yaml.safe_load(packages_file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return []
    out = []
    for entry in (doc or {}).get("packages") or [] if isinstance(doc, dict) else []:
        if not isinstance(entry, dict):
            continue
        for kind in ("local", "package", "git", "private", "tarball"):
            name = entry.get(kind)
            if not isinstance(name, str):
                continue
            if isinstance(entry.get("name"), str):
                folder = entry["name"]
            elif kind == "local":
                path = Path(name) if Path(name).is_absolute() else project_dir / name
                folder = project_yml(path).get("name")
                folder = folder if isinstance(folder, str) else None
            else:  # a hub name's last part; a git repository's name (dbt uses the project's name)
                folder = re.sub(r"\.git$", "", name.rstrip("/").split("/")[-1])
            out.append(_Declared(name, folder, kind))
            break
    return out


def _not_installed(declared: list[_Declared], project_dir: Path) -> list[_Declared]:
    """The entries `dbt deps` left uninstalled."""
    install = _installed_dir(project_dir).parent
    return [d for d in declared if d.folder is None or not (install / d.folder).exists()]


#: The cause in dbt deps' error text, most specific first: git's own `fatal:` line, a local
#: package without dbt_project.yml, a host that does not resolve or refuses, a hub version.
_DEPS_CAUSES = (
    re.compile(r"fatal: (.+)"),
    re.compile(r"(No dbt_project\.yml found at expected path \S+)"),
    re.compile(r"(Failed to resolve '[^']+')"),
    re.compile(r"host='([^']+)', port=(\d+)\).*?(Connection refused|timed out)"),
    re.compile(r"(Could not find a matching compatible version for package \S+)"),
    re.compile(r"(Package \S+ was not found in the package index)"),
)


def _deps_cause(text: str) -> str | None:
    for pattern in _DEPS_CAUSES:
        found = pattern.search(text)
        if found:
            if pattern.groups == 3:  # host, port, what happened
                return f"{found.group(3)} by {found.group(1)}:{found.group(2)}"
            return found.group(1).strip().rstrip(".")[:300]
    return None


def _names_entry(text: str, d: _Declared, project_dir: Path) -> bool:
    """Whether dbt's error text names this entry."""
    from urllib.parse import urlsplit

    if d.name.rstrip("/") in text:
        return True
    if d.kind == "tarball":  # requests names the host and the path apart
        url = urlsplit(d.name)
        return bool(url.hostname and url.path) and f"host='{url.hostname}'" in text and url.path in text
    if d.kind == "package":  # the hub's index is fetched for every hub package at once
        return "hub.getdbt.com" in text
    if d.kind == "local":  # dbt names the folder by its absolute path
        return str((project_dir / d.name).resolve()) in text
    return False


def _failed_entry(text: str, declared: list[_Declared], project_dir: Path) -> _Declared | None:
    """The entry dbt's error names (dbt stops at the first package it cannot fetch)."""
    return next((d for d in declared if _names_entry(text, d, project_dir)), None)


def deps_failure(result: DbtResult, packages_file: Path, project_dir: Path) -> str:
    """One line on a failed `dbt deps`: the package dbt could not fetch and why (read from its
    output), then the declared packages to fetch (hub, git, tarball) that are not installed. Call it before packages.yml is
    restored: it reads the file dbt ran on."""
    declared = _declared_entries(packages_file, project_dir)
    text = "\n".join(result.errors())
    failed = _failed_entry(text, declared, project_dir)
    cause = _deps_cause(text)
    if failed is not None:
        why = f"could not install {failed.name}" + (f" ({cause})" if cause else "")
    else:
        why = cause or result.error_summary()
    # local packages install by a link once the others resolve: only fetched ones and the failed one
    missing = [d for d in _not_installed(declared, project_dir) if d.kind != "local" or d == failed]
    listed = f"; not installed: {', '.join(d.name for d in missing)}" if missing else ""
    return f"dbt deps failed in {project_dir}: {why}{listed}"


#: The on-run-end line `init --on-run-end` adds to the project's dbt_project.yml, and the var that
#: switches it (true, false, or target names; macros/schema_link_on_run_end.sql).
HOOK_LINE = "{{ dbt_schema_link.on_run_end() }}"
HOOK_VAR = "schema_link_on_run_end"


def _edit_hook(path: Path) -> bytes | None:
    """New bytes of dbt_project.yml with the package's on-run-end line (and the var switching it
    on, unless the project sets it already); None: both are there."""
    from dbt_schema_link.writers.yaml_io import YamlRefused, add_to_list, load_yaml_file, map_add  # ruamel: only here

    try:
        file = load_yaml_file(path, path.name)
        hooks = file.doc.get("on-run-end")
        if isinstance(hooks, str):
            raise YamlRefused("`on-run-end:` is a single string, not a list")
        if not any(isinstance(h, str) and "dbt_schema_link.on_run_end" in h for h in hooks or []):
            if hooks is not None:
                file.editable(hooks)
            add_to_list(file.doc, "on-run-end", HOOK_LINE)
        variables = file.doc.get("vars")
        if variables is None:
            from ruamel.yaml.comments import CommentedMap

            variables = CommentedMap()
            map_add(file.doc, "vars", variables)
        elif not isinstance(variables, dict):
            raise YamlRefused("`vars:` is not a mapping")
        if HOOK_VAR not in variables:
            file.editable(variables)
            map_add(variables, HOOK_VAR, True)
        new = file.render()
    except YamlRefused as exc:
        raise YamlWriteError(f"{path} cannot be edited ({exc}): add `on-run-end: [\"{HOOK_LINE}\"]` and "
                             f"`vars: {{{HOOK_VAR}: true}}` by hand") from None
    return None if new == file.old_bytes else new


def _init_hook(project_dir: Path, report: InitReport, check: bool) -> None:
    path = project_dir / "dbt_project.yml"
    new = _edit_hook(path)
    if new is None:
        report.lines.append(f"✓ the on-run-end hook is in {path}")
        return
    report.edited = True
    report.lines.append(f"{'would add' if check else 'added'} on-run-end `{HOOK_LINE}` and "
                        f"vars `{HOOK_VAR}` in {path}")
    if not check:
        atomic_write_bytes(path, new)


def init(project_dir: Path, inv: DbtInvocation, check: bool = False, progress: Progress | None = None,
         on_run_end: bool = False) -> InitReport:
    """Declare the dbt package in packages.yml and install it (`dbt-schema-link init`); with
    `on_run_end`, also add the package's on-run-end hook to dbt_project.yml. `check`: report what
    would be done, change nothing."""
    report = _init_package(Path(project_dir).resolve(), inv, check, progress)
    if on_run_end:
        _init_hook(report.project_dir, report, check)
    return report


def _init_package(project_dir: Path, inv: DbtInvocation, check: bool, progress: Progress | None) -> InitReport:
    say = progress or (lambda _m: None)
    status = package_status(project_dir)
    entry = wanted_entry(project_dir)
    report = InitReport(project_dir, status.packages_file, entry, status.state)
    if report.ready:
        version = status.installed or __version__
        report.lines.append(f"✓ {PACKAGE_NAME} {version} {status.state.value} in {project_dir}")
        return report
    new = _edit_packages(status.packages_file, project_dir, entry, status.state in _REPIN)
    if new is not None:
        report.edited = True
        action = ("would pin" if check else "pinned") if status.declared else ("would add" if check else "added")
        report.lines.append(f"{action} `{snippet(entry)[len('packages: - '):]}` in {status.packages_file}")
    if check:
        report.lines.insert(0, f"✗ {status.fix(project_dir)}")
        report.lines.append(f"would run `dbt deps` in {project_dir}")
        return report
    kept = _Snapshot.of([status.packages_file, project_dir / LOCK_FILE])
    if new is not None:
        atomic_write_bytes(status.packages_file, new)
    say("running dbt deps")
    result = stream_dbt(inv, ["deps"])
    after = package_status(project_dir) if result.ok else None
    if after is None or after.state is not PackageState.INSTALLED:
        failure = deps_failure(result, status.packages_file, project_dir) if after is None else None
        restored = kept.restore()
        undo = f"; {' and '.join(p.name for p in restored)} restored as before" if restored else ""
        if failure is not None:
            raise WarehouseError(failure + undo)
        raise SchemaLinkError((after.fix(project_dir) or f"dbt deps did not install {PACKAGE_NAME}") + undo)
    report.ran_deps = True
    report.lines.append(f"ran `dbt deps`: {PACKAGE_NAME} {after.installed} installed in {project_dir}")
    return report
