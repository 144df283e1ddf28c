"""The user loop on one real project: exactly the commands the README's "Use it on your project"
has a user run, from the project folder, each timed (wall seconds of the process) and logged.

Build (skipped when `--reuse` finds the project built from the same data, or with `--skip-build`):
    dbt deps --profiles-dir .
    dbt seed [project's arguments] --profiles-dir .
    dbt build --profiles-dir .     (synthea: --exclude test_type:data; SaaS packages: dbt run)
    dbt docs generate --profiles-dir .
then the project's files, manifest and catalog are kept (projects.snapshot) and a reused project
is put back to that state (projects.restore) before:
    dbt-schema-link init --profiles-dir .            packages.yml must then point at this checkout
    dbt-schema-link link --profiles-dir .            timed; its links.json kept (links1.json), scored
    dbt-schema-link write --profiles-dir .           the files it refuses are listed
    dbt test -s tag:schema_link --profiles-dir .     the written tests' statuses (run_results.json)
    dbt-schema-link link --profiles-dir .            timed: the second run (links2.json)
    dbt-schema-link link --check --profiles-dir .    exit code and the lines it prints
    dbt-schema-link index --profiles-dir .           timed

`dbt-schema-link` runs as `python -m dbt_schema_link` with this checkout first on PYTHONPATH
(fkbench.product.measure_tree), which is the console script's code of this tree; dbt is the one
beside the benchmark's Python (fkbench.product.tool).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from fkbench import product

from . import projects
from .links import is_tmp, relation_name
from .projects import RealProject

BUILD_STEPS = ("deps", "seed", "build", "docs")
TOOL_STEPS = ("init", "link", "write", "test", "link2", "check", "index")
#: A step that must exit 0 for the project to count as run (`link`: 0, or 1 with links.json
#: written: some relation could not be profiled); the others' exit codes are results.
MUST_PASS = frozenset(BUILD_STEPS + ("init", "link", "link2", "index"))
#: Steps after which nothing further can run when they fail.
STOPPING = frozenset(BUILD_STEPS + ("init", "link"))
TRACEBACK = "Traceback (most recent call last)"


@dataclass
class StepResult:
    name: str
    command: str  # as the user types it in the project folder
    rc: int | None  # None: timed out
    seconds: float
    log: str
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def to_dict(self) -> dict:
        return {"command": self.command, "rc": self.rc, "seconds": round(self.seconds, 3), "log": self.log}


@dataclass
class WrittenTests:
    statuses: dict[str, int] = field(default_factory=dict)  # pass, warn, error, fail, skipped
    on_tmp: list[str] = field(default_factory=list)  # written tests on `_tmp` views
    not_passing: list[str] = field(default_factory=list)  # `status uid: message`

    @property
    def total(self) -> int:
        return sum(self.statuses.values())

    def count(self, status: str) -> int:
        return self.statuses.get(status, 0)

    def to_dict(self) -> dict:
        return {"statuses": self.statuses, "total": self.total, "on_tmp": self.on_tmp,
                "not_passing": self.not_passing}


@dataclass
class LoopRun:
    steps: dict[str, StepResult] = field(default_factory=dict)
    error: str | None = None
    failed_step: str | None = None
    reused: bool = False
    restored: list[str] = field(default_factory=list)
    package_entry: str | None = None  # the `local:` init wrote
    links1: Path | None = None
    links2: Path | None = None
    tests: WrittenTests | None = None
    write_lines: list[str] = field(default_factory=list)  # create/edit/refused/wrote lines
    check_lines: list[str] = field(default_factory=list)  # stdout of link --check
    check_summary: list[str] = field(default_factory=list)  # its `link --check:` lines on stderr
    tracebacks: list[str] = field(default_factory=list)  # `step: last line`
    complaints: list[str] = field(default_factory=list)  # a tool step that exited non-zero yet ran on

    def seconds(self, step: str) -> float | None:
        s = self.steps.get(step)
        return None if s is None else s.seconds

    @property
    def write_refused(self) -> list[str]:
        return [line for line in self.write_lines if line.startswith("refused")]

    @property
    def check_green(self) -> bool | None:
        s = self.steps.get("check")
        return None if s is None or s.rc not in (0, 1) else s.rc == 0

    def to_dict(self) -> dict:
        return {"error": self.error, "failed_step": self.failed_step, "reused": self.reused,
                "restored": self.restored, "package_entry": self.package_entry,
                "steps": {k: v.to_dict() for k, v in self.steps.items()},
                "links1": str(self.links1) if self.links1 else None,
                "links2": str(self.links2) if self.links2 else None,
                "tests": self.tests.to_dict() if self.tests else None,
                "write_lines": self.write_lines, "check_green": self.check_green,
                "check_lines": self.check_lines, "check_summary": self.check_summary,
                "tracebacks": self.tracebacks, "complaints": self.complaints}


# --- commands ------------------------------------------------------------------------------------
def commands(project: RealProject, link_args: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """Each step's command as the user types it in the project folder."""
    pd = ["--profiles-dir", "."]
    tool = ["dbt-schema-link"]
    return {
        "deps": ["dbt", "deps", *pd],
        "seed": ["dbt", "seed", *project.seed_args, *pd],
        "build": ["dbt", *project.build_args, *pd],
        "docs": ["dbt", "docs", "generate", *pd],
        "init": [*tool, "init", *pd],
        "link": [*tool, "link", *pd, *link_args],
        "write": [*tool, "write", *pd],
        "test": ["dbt", "test", "-s", "tag:schema_link", *pd],
        "link2": [*tool, "link", *pd, *link_args],
        "check": [*tool, "link", "--check", *pd, *link_args],
        "index": [*tool, "index", *pd],
    }


def executable(cmd: list[str]) -> list[str]:
    """The process to start for a typed command: dbt beside this Python, dbt-schema-link as
    `python -m dbt_schema_link` (this checkout, first on PYTHONPATH)."""
    if cmd[0] == "dbt":
        return [product.tool("dbt"), *cmd[1:]]
    if cmd[0] == "dbt-schema-link":
        return [sys.executable, "-m", "dbt_schema_link", *cmd[1:]]
    return cmd


def run_step(name: str, cmd: list[str], project_dir: Path, log: Path, timeout_s: float) -> StepResult:
    typed = shlex.join(cmd)
    start = time.perf_counter()
    try:
        proc = subprocess.run(executable(cmd), cwd=project_dir, env=product.dbt_env(project_dir),
                              capture_output=True, text=True, timeout=timeout_s)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc = None
        out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = (exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")) + \
            f"\ntimed out after {timeout_s:.0f}s"
    seconds = time.perf_counter() - start
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"$ {typed}\n(in {project_dir}; exit {rc}; {seconds:.1f}s)\n{out}\n--- stderr ---\n{err}",
                   encoding="utf-8")
    return StepResult(name, typed, rc, seconds, str(log), out, err)


def failure(step: StepResult) -> str:
    lines = [line.strip() for line in (step.stderr.strip() or step.stdout.strip()).splitlines() if line.strip()]
    return f"`{step.command}` exit {step.rc}, see {step.log}: " + " | ".join(lines[-4:])[-600:]


def traceback_line(step: StepResult) -> str | None:
    """`step: the exception line` when the step printed a Python traceback."""
    for text in (step.stderr, step.stdout):
        if TRACEBACK in text:
            tail = [line for line in text[text.rindex(TRACEBACK):].splitlines() if line.strip()]
            last = next((line for line in reversed(tail) if not line.startswith(" ")), tail[-1])
            return f"{step.name} (`{step.command}`): {last.strip()}"
    return None


# --- what the steps leave -------------------------------------------------------------------------
def _dbt_name(folder: Path) -> str | None:
    try:
        data = yaml.safe_load((folder / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return None
    return data.get("name") if isinstance(data, dict) else None


def package_entry(project_dir: Path, repo_root: Path) -> tuple[str | None, bool]:
    """The packages.yml `local:` entry of the dbt package dbt_schema_link, and whether it is
    `repo_root` (the checkout measured)."""
    try:
        doc = yaml.safe_load((project_dir / "packages.yml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return None, False
    for entry in doc.get("packages") or []:
        local = entry.get("local") if isinstance(entry, dict) else None
        if isinstance(local, str) and _dbt_name((project_dir / local).resolve()) == "dbt_schema_link":
            return local, (project_dir / local).resolve() == repo_root.resolve()
    return None, False


def test_results(target: Path) -> WrittenTests:
    """Statuses of the tests `dbt test -s tag:schema_link` ran (run_results.json), and those
    attached to a `_tmp` view (manifest.json, which that dbt test rewrote)."""
    results = json.loads((target / "run_results.json").read_text(encoding="utf-8")).get("results", [])
    nodes = json.loads((target / "manifest.json").read_text(encoding="utf-8")).get("nodes", {})
    out = WrittenTests()
    for r in results:
        status = str(r.get("status", "")).lower()
        out.statuses[status] = out.statuses.get(status, 0) + 1
        uid = str(r.get("unique_id"))
        node = nodes.get(uid, {})
        attached = [node["attached_node"]] if node.get("attached_node") else \
            [n for n in node.get("depends_on", {}).get("nodes", []) if not n.startswith("macro.")]
        if any(is_tmp(a) for a in attached):
            out.on_tmp.append(f"{relation_name(uid)} on {', '.join(relation_name(a) for a in attached)}")
        if status != "pass":
            message = " ".join(str(r.get("message") or "").split())[:200]
            out.not_passing.append(f"{status} {relation_name(uid)}: {message}")
    out.statuses = dict(sorted(out.statuses.items()))
    return out


WRITE_PREFIXES = ("create ", "edit ", "refused ", "wrote ", "nothing to write", "error:")


def error_lines(step: StepResult, limit: int = 4) -> str:
    """The step's `error:` lines, the first `limit` of them and how many there are."""
    found = [line.strip() for line in (step.stderr + "\n" + step.stdout).splitlines()
             if line.strip().startswith("error:")]
    more = f" (+{len(found) - limit} more)" if len(found) > limit else ""
    return " | ".join(found[:limit]) + more if found else "no error: line"


def write_lines(step: StepResult) -> list[str]:
    text = step.stdout + "\n" + step.stderr
    return [line.strip() for line in text.splitlines() if line.strip().startswith(WRITE_PREFIXES)]


# --- the loop ---------------------------------------------------------------------------------------
def prepare(project: RealProject, workdir: Path, repo_root: Path, run: LoopRun, timeout_s: float,
            cmds: dict[str, list[str]]) -> None:
    """Copy the project, build it, docs generate, keep the pristine snapshot and the stamp."""
    bench = project.bench_dir(workdir)
    shutil.rmtree(bench, ignore_errors=True)
    (bench / "logs").mkdir(parents=True)
    project_dir = projects.copy_project(project, workdir)
    for n, name in enumerate(BUILD_STEPS):
        step = run_step(name, cmds[name], project_dir, bench / "logs" / f"{n:02d}_{name}.log", timeout_s)
        run.steps[name] = step
        if not step.ok:
            run.error, run.failed_step = failure(step), name
            return
    projects.snapshot(project.copy_dir(workdir), project_dir, bench / "pristine")
    (bench / "prepared.json").write_text(json.dumps(projects.stamp(project, repo_root)) + "\n", encoding="utf-8")


def run_loop(project: RealProject, workdir: Path, repo_root: Path, *, reuse: bool = False,
             skip_build: bool = False, link_args: tuple[str, ...] = (), timeout_s: float = 1800,
             log=lambda message: None) -> LoopRun:
    run = LoopRun()
    cmds = commands(project, link_args)
    project_dir = project.project_dir(workdir)
    bench = project.bench_dir(workdir)
    why_not = "no --reuse"
    if reuse or skip_build:
        why_not = projects.reusable(project, workdir, None if skip_build else projects.stamp(project, repo_root))
    if why_not is None:
        run.reused = True
        run.restored = projects.restore(project.copy_dir(workdir), project_dir, bench / "pristine")
    elif skip_build:
        run.error, run.failed_step = f"--skip-build: no built project to use ({why_not})", "build"
        return run
    else:
        if reuse:
            log(f"{project.name}: rebuilding ({why_not})")
        prepare(project, workdir, repo_root, run, timeout_s, cmds)
        if run.error:
            return run
    for stale in ("links1.json", "links2.json"):
        (bench / stale).unlink(missing_ok=True)
    links_json = project_dir / "target" / "schema_link" / "links.json"
    for n, name in enumerate(TOOL_STEPS, start=len(BUILD_STEPS)):
        if name in ("link", "link2"):
            links_json.unlink(missing_ok=True)  # never read the links of an earlier run
        step = run_step(name, cmds[name], project_dir, bench / "logs" / f"{n:02d}_{name}.log", timeout_s)
        run.steps[name] = step
        log(f"{project.name}: {step.command} -> exit {step.rc} in {step.seconds:.1f}s")
        tb = traceback_line(step)
        if tb:
            run.tracebacks.append(tb)
        passed = step.ok
        if name == "init" and step.ok:
            run.package_entry, here = package_entry(project_dir, repo_root)
            if not here:
                run.error, run.failed_step = (f"`{step.command}` left packages.yml pointing at "
                                              f"{run.package_entry!r}, not {repo_root}"), name
                return run
        elif name in ("link", "link2") and step.rc in (0, 1):
            if not links_json.exists():
                run.error, run.failed_step = f"`{step.command}` wrote no {links_json}", name
                return run
            kept = bench / ("links1.json" if name == "link" else "links2.json")
            shutil.copy2(links_json, kept)
            setattr(run, "links1" if name == "link" else "links2", kept)
            passed = True
            if step.rc == 1:  # links.json written, some relation not profiled: a result, the loop goes on
                run.complaints.append(f"`{step.command}` exit 1 (links.json written): {error_lines(step)}")
        elif name == "write":
            run.write_lines = write_lines(step)
            if step.rc not in (0, 1):
                run.complaints.append(f"`{step.command}` exit {step.rc}: {error_lines(step)}")
        elif name == "test":
            try:
                run.tests = test_results(project_dir / "target")
            except (OSError, ValueError, KeyError) as exc:
                run.tracebacks.append(f"test: could not read run_results.json: {exc!r}")
        elif name == "check":
            run.check_lines = [line.rstrip() for line in step.stdout.splitlines() if line.strip()]
            run.check_summary = [line.strip() for line in step.stderr.splitlines()
                                 if line.strip().startswith("link --check:")]
        failed = not passed if name in MUST_PASS else (name == "check" and step.rc not in (0, 1))
        if failed and run.error is None:
            run.error, run.failed_step = failure(step), name
        if name in STOPPING and failed:
            return run
    return run
