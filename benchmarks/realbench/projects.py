"""The eleven real projects, their copies in the work dir, and what `--reuse` keeps.

Projects (found under the data folder; a missing one is simply not listed):
- `dbt_projects/{jaffle_shop, adventureworks_kimball, synthea_omop}` (adventureworks' dbt project
  is its `adventureworks/` folder), labels in `labels.json`;
- `saas_dev/<pkg>/package` for the eight SaaS packages, the dbt project being its
  `integration_tests/` (the layered package project of saas_dev's README), labels in
  `<pkg>/truth.json`.

Layout of the work dir (default `benchmarks/out/realproj/`, git-ignored; the data folder is read
only and never copied into the repository):

    dbt/_deps, dbt/<project>/...                 copies, `_deps` beside them as `local: ../_deps` wants
    saas/_deps, saas/<pkg>/package/...
    bench/<project>/logs/NN_<step>.log           one log per command
    bench/<project>/links1.json, links2.json     links.json of the first and the second `link`
    bench/<project>/prepared.json                the stamp `--reuse` compares
    bench/<project>/pristine/                    the project's files as built (before `init`)

A copy gets write bits (the data is read only) and, where it has none, a `profiles.yml`: the
profile dbt_project.yml names, dbt-duckdb on `<profile>.duckdb` in the project folder, schema
`main`, 2 threads. An existing profiles.yml (adventureworks', the SaaS projects') is kept.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

import yaml

from saasbench import labels as saas_labels

DBT_DIR = "dbt_projects"

#: Folders of a project that are dbt's output or installs, never the user's files.
GENERATED_DIRS = frozenset({"target", "dbt_packages", "logs"})
#: Files `init` and `write` may create or edit (the pristine snapshot keeps these).
USER_FILE_SUFFIXES = (".yml", ".yaml", ".json")
#: Bump when what a prepared project holds changes: every stamp differs then, `--reuse` rebuilds.
PREPARED_VERSION = 1


@dataclass(frozen=True)
class RealProject:
    name: str
    family: str  # dbt | saas
    source: Path  # the folder copied (read only)
    deps: Path  # `_deps`, copied beside it
    subdir: str  # the dbt project inside the copy ("" for the copy itself)
    seed_args: tuple[str, ...]  # `dbt seed` arguments besides --profiles-dir
    build_args: tuple[str, ...]  # the build command (`build ...` or `run`) besides --profiles-dir
    labels: Path  # labels.json (dbt) or truth.json (saas)

    def copy_dir(self, workdir: Path) -> Path:
        return workdir / self.family / self.source.relative_to(self.deps.parent)

    def project_dir(self, workdir: Path) -> Path:
        root = self.copy_dir(workdir)
        return root / self.subdir if self.subdir else root

    def bench_dir(self, workdir: Path) -> Path:
        return workdir / "bench" / self.name


#: The three dbt projects: (folder, dbt project inside it, seed arguments, build command). Synthea's
#: `dbt build` exits 1 on 49 known failing relationships tests (its NOTES.md): its data tests are
#: left out of the build.
DBT_PROJECTS = (
    ("jaffle_shop", "", ("--full-refresh", "--vars", '{"load_source_data": true}'), ("build",)),
    ("adventureworks_kimball", "adventureworks", (), ("build",)),
    ("synthea_omop", "", (), ("build", "--exclude", "test_type:data")),
)


def discover(data_dir: Path) -> list[RealProject]:
    """The projects under `data_dir`, in a fixed order: the dbt projects, then the SaaS packages."""
    out = []
    root = data_dir / DBT_DIR
    for name, subdir, seed_args, build_args in DBT_PROJECTS:
        folder = root / name
        if (folder / "labels.json").is_file() and (folder / subdir / "dbt_project.yml").is_file():
            out.append(RealProject(name, "dbt", folder, root / "_deps", subdir, seed_args, build_args,
                                   folder / "labels.json"))
    for package in saas_labels.discover(data_dir):
        folder = package.dir / "package"
        if (folder / "integration_tests" / "dbt_project.yml").is_file():
            out.append(RealProject(package.name, "saas", folder, package.dir.parent / "_deps", "integration_tests",
                                   (), ("run",), package.dir / "truth.json"))
    return out


def missing_data(data_dir: Path) -> str | None:
    """Why the benchmark data cannot be used (one line), or None when it is there."""
    if discover(data_dir):
        return None
    return (f"benchmark data is not available: no projects under {data_dir / DBT_DIR} or "
            f"{data_dir / saas_labels.SAAS_DIR} (it lives in ../shared/data beside the repository; pass --data DIR)")


# --- copies --------------------------------------------------------------------------------------
def _writable(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | stat.S_IWUSR)
    root.chmod(root.stat().st_mode | stat.S_IWUSR)


def copy_tree(source: Path, dest: Path) -> None:
    """A fresh writable copy of `source` at `dest` (its generated folders left out)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(*GENERATED_DIRS))
    _writable(dest)


def profile_name(project_dir: Path) -> str:
    data = yaml.safe_load((project_dir / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    return str(data.get("profile") or data.get("name"))


def ensure_profiles(project_dir: Path) -> bool:
    """Write profiles.yml where the project has none (True when written)."""
    path = project_dir / "profiles.yml"
    if path.exists():
        return False
    name = profile_name(project_dir)
    path.write_text(yaml.safe_dump({name: {"target": "dev", "outputs": {"dev": {
        "type": "duckdb", "path": f"{name}.duckdb", "schema": "main", "threads": 2}}}}, sort_keys=False),
        encoding="utf-8")
    return True


def copy_project(project: RealProject, workdir: Path) -> Path:
    """Copy the project (and, once, its `_deps`) into the work dir; the dbt project folder."""
    deps = workdir / project.family / "_deps"
    if not (deps / ".copied").exists():
        copy_tree(project.deps, deps)
        (deps / ".copied").write_text(str(project.deps) + "\n", encoding="utf-8")
    copy_tree(project.source, project.copy_dir(workdir))
    ensure_profiles(project.project_dir(workdir))
    return project.project_dir(workdir)


# --- the reuse stamp -------------------------------------------------------------------------------
def tree_listing(root: Path) -> list[list]:
    """(relative path, size, mtime) of every file under `root`, generated folders left out."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in GENERATED_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            st = path.lstat()
            out.append([str(path.relative_to(root)), st.st_size, st.st_mtime_ns])
    return out


def stamp(project: RealProject, repo_root: Path) -> dict:
    """What a prepared project depends on: the data copied (and its `_deps`) and the harness."""
    return {"version": PREPARED_VERSION, "project": project.name, "repo": str(repo_root.resolve()),
            "source": str(project.source), "files": tree_listing(project.source),
            "deps": tree_listing(project.deps)}


def reusable(project: RealProject, workdir: Path, wanted: dict | None) -> str | None:
    """Why the prepared project of an earlier run cannot be reused (None: it can). `wanted`
    None: any prepared project will do (`--skip-build`), whatever its stamp says."""
    target = project.project_dir(workdir) / "target"
    for rel in ("manifest.json", "catalog.json"):
        if not (target / rel).exists():
            return f"target/{rel} missing"
    pristine = project.bench_dir(workdir) / "pristine"
    if not (pristine / "listing.json").exists() or not (pristine / "dbt_packages.json").exists():
        return "no pristine snapshot"
    try:
        kept = json.loads((project.bench_dir(workdir) / "prepared.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "no prepared.json"
    if wanted is not None and kept != wanted:
        return "data or harness changed since it was built"
    return None


# --- the pristine snapshot: the project as built, before `init` and `write` touch it --------------
def _user_files(root: Path) -> list[str]:
    return [rel for rel, _, _ in tree_listing(root)]


def snapshot(copy_dir: Path, project_dir: Path, pristine: Path) -> None:
    """Keep the listing of the copy, its YAML/JSON files, the packages installed, and the project's
    manifest and catalog."""
    if pristine.exists():
        shutil.rmtree(pristine)
    (pristine / "files").mkdir(parents=True)
    listing = _user_files(copy_dir)
    for rel in listing:
        if rel.endswith(USER_FILE_SUFFIXES):
            dest = pristine / "files" / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(copy_dir / rel, dest)
    (pristine / "target").mkdir()
    for name in ("manifest.json", "catalog.json"):
        shutil.copy2(project_dir / "target" / name, pristine / "target" / name)
    (pristine / "listing.json").write_text(json.dumps(listing) + "\n", encoding="utf-8")
    installed = sorted(p.name for p in (project_dir / "dbt_packages").iterdir()) \
        if (project_dir / "dbt_packages").is_dir() else []
    (pristine / "dbt_packages.json").write_text(json.dumps(installed) + "\n", encoding="utf-8")


def restore(copy_dir: Path, project_dir: Path, pristine: Path) -> list[str]:
    """Put the copy back as built: files `write` created removed, edited ones restored, packages
    `init` installed removed from dbt_packages, the docs-generate manifest and catalog back, the
    product's own output (`target/schema_link/`, run_results.json) removed. Returns what changed."""
    listing = set(json.loads((pristine / "listing.json").read_text(encoding="utf-8")))
    changed = []
    for rel in _user_files(copy_dir):
        if rel not in listing and ".duckdb" not in rel:  # never a warehouse file or its WAL
            (copy_dir / rel).unlink()
            changed.append(f"removed {rel}")
    kept = pristine / "files"
    for path in sorted(kept.rglob("*")):
        if path.is_file():
            rel = str(path.relative_to(kept))
            dest = copy_dir / rel
            if not dest.exists() or dest.read_bytes() != path.read_bytes():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)
                changed.append(f"restored {rel}")
    installed = set(json.loads((pristine / "dbt_packages.json").read_text(encoding="utf-8")))
    packages = project_dir / "dbt_packages"
    for path in sorted(packages.iterdir()) if packages.is_dir() else []:
        if path.name not in installed:  # what `init`'s dbt deps installed: dbt_schema_link
            if path.is_symlink() or path.is_file():
                path.unlink()
            else:
                shutil.rmtree(path)
            changed.append(f"removed dbt_packages/{path.name}")
    target = project_dir / "target"
    for name in ("manifest.json", "catalog.json"):
        shutil.copy2(pristine / "target" / name, target / name)
    shutil.rmtree(target / "schema_link", ignore_errors=True)
    (target / "run_results.json").unlink(missing_ok=True)
    return changed
