"""One (convention, database) task: rename, prepare the dbt project once, run `link`.

Layout under the work dir: `<workdir>/<convention>/<db>/`
    renamed.sqlite   the renamed copy (values unchanged, FKs renamed: the truth)
    renaming.json    the stamp it was made under, original → new names, the truth pairs
    warehouse.duckdb, project/, logs/   fkbench's load and dbt project (sources only, no FKs)
    prepared.json    written once `dbt deps` + `dbt docs generate` succeeded on this stamp
    links.json       a copy of project/target/schema_link/links.json from the last link run

Reuse: the renamed file is regenerated only when its stamp (generator version, convention,
seed, the source file's size and mtime) changes, and the DuckDB file + dbt project only when
the renamed file changed (a project reused for another engine checkout gets its packages.yml
rewritten and `dbt deps` again). Otherwise a run is just
`dbt-schema-link link` (its profile cache in project/target is reused too, unless the link
arguments include `--refresh`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from fkbench import product
from fkbench.databases import BenchDatabase, GroundTruth

from .generate import check_truth, write_renamed
from .naming import Convention, Renaming, rename
from .schema import Schema, read_schema
from .split import Half, half_of

#: Bump when the names or the renamed file a convention produces change: every stamp differs then.
GENERATOR_VERSION = 1


@dataclass
class TaskResult:
    db: str
    collection: str
    convention: Convention
    half: Half | None
    schema: Schema | None = None
    renaming: Renaming | None = None
    truth: GroundTruth | None = None
    run: product.ProductRun | None = None
    generated: bool = False  # the renamed file was (re)written this run
    prepared: bool = False  # load + dbt deps + docs ran this run (else reused)
    error: str | None = None
    links_json: Path | None = None
    reused_links: bool = False  # links.json of an earlier run scored (--score-only, --resume)

    @property
    def ok(self) -> bool:
        """Linked (or re-read) without error: there is a links.json to score."""
        return self.error is None and self.run is not None and self.run.error is None and self.links_json is not None


@dataclass(frozen=True)
class RunOptions:
    repo_root: Path
    workdir: Path
    seed: int
    rebuild: bool = False  # regenerate, reload and re-prepare even when the stamps match
    prepare_only: bool = False
    score_only: bool = False  # run nothing: score the links.json the last run left
    resume: bool = False  # skip the link of tasks whose links.json came from this engine and link args
    link_args: tuple[str, ...] = ()
    timeout_s: float = 1800


def task_dir(workdir: Path, convention: Convention, db: str) -> Path:
    return workdir / convention.value / db


def generation_stamp(db: BenchDatabase, convention: Convention, seed: int) -> dict:
    stat = db.path.stat()
    return {"generator": GENERATOR_VERSION, "convention": convention.value, "seed": seed,
            "source": str(db.path.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: object) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def point_package_at(project_dir: Path, repo_root: Path, logs: Path, timeout_s: float,
                     run: product.ProductRun) -> str | None:
    """A reused project installs the package from `repo_root` (the engine measured): when its
    packages.yml names another checkout, rewrite it and run `dbt deps` again."""
    path = project_dir / "packages.yml"
    wanted = {"packages": [{"local": str(repo_root.resolve())}]}
    if yaml.safe_load(path.read_text(encoding="utf-8")) == wanted:
        return None
    path.write_text(yaml.safe_dump(wanted, sort_keys=False), encoding="utf-8")
    common = ["--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
    start = time.perf_counter()
    proc = subprocess.run([product.tool("dbt"), "deps", *common], cwd=project_dir,
                          env=product.dbt_env(project_dir), capture_output=True, text=True, timeout=timeout_s)
    run.phases["deps"] = time.perf_counter() - start
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "deps.log").write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr, encoding="utf-8")
    return None if proc.returncode == 0 else f"dbt deps failed (exit {proc.returncode}), see {logs / 'deps.log'}"


def run_task(db: BenchDatabase, convention: Convention, opts: RunOptions) -> TaskResult:
    result = TaskResult(db.name, db.collection, convention, half_of(db.name))
    folder = task_dir(opts.workdir, convention, db.name)
    folder.mkdir(parents=True, exist_ok=True)
    renamed = folder / "renamed.sqlite"
    stamp = generation_stamp(db, convention, opts.seed)

    # 1. the renamed copy and its truth
    result.schema = read_schema(db.path, db.name)
    result.renaming = rename(result.schema, convention, opts.seed)
    previous = _read_json(folder / "renaming.json") or {}
    if opts.score_only:
        if not renamed.exists() or previous.get("stamp") != stamp:
            result.error = f"{renamed} is missing or stale: run without --score-only first"
            return result
    elif opts.rebuild or previous.get("stamp") != stamp or not renamed.exists():
        (folder / "prepared.json").unlink(missing_ok=True)
        write_renamed(db.path, result.schema, result.renaming, renamed)
        result.generated = True
    result.truth = check_truth(db.path, renamed, result.schema, result.renaming)
    if result.generated:
        _write_json(folder / "renaming.json", {
            "stamp": stamp, "renaming": result.renaming.to_dict(),
            "truth": sorted(sorted(f"{t}.{c}" for t, c in p) for p in result.truth.pairs)})

    if opts.score_only:
        return _score_kept(result, folder)

    link_stamp = {"renamed": stamp, "engine": str(opts.repo_root.resolve()), "link_args": list(opts.link_args)}
    if opts.resume and _read_json(folder / "links_stamp.json") == link_stamp and (folder / "links.json").exists():
        return _score_kept(result, folder)

    # 2. the DuckDB file and the dbt project (deps, docs generate), once per renamed file
    project_dir = folder / "project"
    prepared_stamp = {"renamed": stamp}
    target = project_dir / "target"
    reusable = (not opts.rebuild and _read_json(folder / "prepared.json") == prepared_stamp
                and (folder / "warehouse.duckdb").exists()
                and (target / "manifest.json").exists() and (target / "catalog.json").exists())
    run = product.ProductRun()
    if not reusable:
        (folder / "prepared.json").unlink(missing_ok=True)
        run = product.run_product(BenchDatabase(db.name, renamed, db.collection), folder, opts.repo_root,
                                  timeout_s=opts.timeout_s, run_link=False)
        result.prepared = True
        if run.error:
            result.run = run
            return result
        _write_json(folder / "prepared.json", prepared_stamp)
    else:
        error = point_package_at(project_dir, opts.repo_root, folder / "logs", opts.timeout_s, run)
        if error:
            run.error, run.failed_phase = error, "deps"
            result.run = run
            return result
    result.run = run
    if opts.prepare_only:
        return result

    # 3. the product
    (folder / "links.json").unlink(missing_ok=True)
    (folder / "links_stamp.json").unlink(missing_ok=True)
    product.link_project(project_dir, folder / "logs", opts.timeout_s, opts.link_args, run=run)
    if run.error is None and run.links_path:
        shutil.copyfile(run.links_path, folder / "links.json")
        _write_json(folder / "links_stamp.json", link_stamp)
        result.links_json = folder / "links.json"
    return result


def _score_kept(result: TaskResult, folder: Path) -> TaskResult:
    """Read the links.json a previous run left (no command runs)."""
    kept = folder / "links.json"
    if not kept.exists():
        result.error = f"{kept} is missing: run without --score-only first"
        return result
    result.run = product.ProductRun(links_path=str(kept))
    result.run.pairs = product.found_pairs(json.loads(kept.read_text(encoding="utf-8")))
    result.links_json = kept
    result.reused_links = True
    return result
