"""SIGKILL at random points during `dbt-schema-link write`, at least 100 times.

The project has one YAML file per model (20 of them) and a model without one, so a run writes 22
files (20 edited YAML files, one new one, and the state file, last) one after another: kills land before, between and inside those writes.
After every kill each file must be byte-identical to its old or its new version (no partial
file), the only other files allowed are the writer's own `.<name>.<random>.tmp` leftovers (never
something dbt parses), and the next run must go on from whatever state the kill left. A final
uninterrupted run must produce exactly the new version of every file, the state file included.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import BuiltProject, base_env
from tests.reliability.projects import build, cli, write_project

pytestmark = [pytest.mark.dbt, pytest.mark.slow]

MODELS = 20
KILLS = 100
WORKERS = 2
SEED = 20240608
TEMP_RE = re.compile(r"^\.(?P<name>.+)\.[A-Za-z0-9_]+\.tmp$")


def _files() -> dict[str, str]:
    files = {
        "seeds/customers.csv": "customer_id,name\n" + "".join(f"{i},c{i}\n" for i in range(1, 51)),
        "seeds/customers.yml": "version: 2\nseeds:\n  - name: customers\n    columns:\n"
                               "      - name: customer_id\n        data_tests: [unique, not_null]\n",
    }
    for n in range(1, MODELS + 1):
        files[f"models/visits_{n:02d}.sql"] = (
            f"select i as visit_id, (i % 50) + 1 as customer_id, 'v{n}' as note from range(1, 300) t(i)\n")
        files[f"models/visits_{n:02d}.yml"] = (
            f"version: 2\n# hand-written, keep\nmodels:\n  - name: visits_{n:02d}\n    description: \"visits {n}\"\n"
            f"    columns:\n      - name: visit_id\n        data_tests: [unique, not_null]\n      - name: customer_id\n")
    # a model without any YAML: the writer creates a file for it (old version: no file)
    files["models/orphan_visits.sql"] = "select i as visit_id, (i % 50) + 1 as customer_id from range(1, 100) t(i)\n"
    return files


@pytest.fixture(scope="module")
def killshop(tmp_path_factory) -> BuiltProject:
    root = tmp_path_factory.mktemp("killshop") / "killshop"
    write_project(root, "killshop", _files())
    project = BuiltProject(root, "duckdb", base_env(RELIABILITY_DUCKDB_PATH=str(root.parent / "k.duckdb")))
    build(project)
    cli(project, "link", "--quiet")
    return project


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file the writer may touch: all YAML/JSON outside target/, dbt_packages/, logs/."""
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if rel.parts[0] in ("target", "dbt_packages", "logs") or not path.is_file():
            continue
        out[rel.as_posix()] = path.read_bytes()
    return out


def _restore(root: Path, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    for rel in new:
        if rel not in old:
            (root / rel).unlink(missing_ok=True)
    for rel, data in old.items():
        if (root / rel).read_bytes() != data:
            (root / rel).write_bytes(data)


def _mtimes(dirs: list[Path]) -> dict[str, int]:
    out = {}
    for d in dirs:
        for entry in os.scandir(d):
            try:
                out[entry.path] = entry.stat().st_mtime_ns
            except FileNotFoundError:
                pass
    return out


def _write_cmd(project: BuiltProject) -> list[str]:
    return [sys.executable, "-m", "dbt_schema_link", "write", *project.project_args(), "--no-validate", "--quiet"]


def _calibrate(project: BuiltProject, watched: list[Path]) -> tuple[float, float, float]:
    """An uninterrupted run: (first file change, last file change, exit), seconds after start."""
    previous = _mtimes(watched)
    start = time.monotonic()
    proc = subprocess.Popen(_write_cmd(project), env=project.env, cwd=project.path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    first = last = None
    while proc.poll() is None:
        now = _mtimes(watched)
        if now != previous:
            last = time.monotonic() - start
            first = first if first is not None else last
            previous = now
        time.sleep(0.001)
    end = time.monotonic() - start
    assert proc.returncode == 0 and first is not None
    return first, max(last, first + 0.01), end


def _kill_loop(project: BuiltProject, rng: random.Random, kills_wanted: int, old: dict, new: dict,
               changed: list[str], watched: list[Path], timing: tuple[float, float, float]) -> dict:
    root = project.path
    first, last, run_time = timing
    write_window = last - first
    stats = {"kills": 0, "completed": 0, "all old": 0, "mixed": 0, "all new": 0, "leftovers": set()}
    attempts = 0
    while stats["kills"] < kills_wanted:
        attempts += 1
        assert attempts <= kills_wanted * 2, f"only {stats['kills']} of {attempts} runs could be killed"
        current = _snapshot(root)
        left = sum(current.get(rel) != new.get(rel) for rel in changed)
        if left == 0 or (left < len(changed) // 2 and rng.random() < 0.5):
            # nothing (or little) left to write: start again from the old version
            _restore(root, old, new)
            left = len(changed)
        base = _mtimes(watched)
        proc = subprocess.Popen(_write_cmd(project), env=project.env, cwd=root,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if rng.random() < 0.2:
            # anywhere in the run: start-up, reading the manifest, planning, writing
            time.sleep(rng.uniform(0, run_time))
        else:
            # inside the writes: wait for the first file system change, then a random delay
            while proc.poll() is None and _mtimes(watched) == base:
                time.sleep(0.001)
            time.sleep(rng.uniform(0, write_window * 1.2 * left / len(changed)))
        proc.send_signal(signal.SIGKILL)
        _, stderr = proc.communicate()
        if proc.returncode == -signal.SIGKILL:
            stats["kills"] += 1
        else:
            assert proc.returncode == 0, stderr
            stats["completed"] += 1

        after = _snapshot(root)
        states = set()
        for rel in changed:
            data = after.get(rel)
            assert data in (old.get(rel), new.get(rel)), (
                f"kill {stats['kills']}: {rel} is neither the old nor the new version ({len(data or b'')} bytes)")
            states.add("new" if data == new.get(rel) else "old")
        stats["mixed" if len(states) == 2 else f"all {states.pop()}"] += 1
        for rel in set(after) - set(old) - set(new):
            name = Path(rel).name
            match = TEMP_RE.match(name)
            assert match and (Path(rel).parent / match.group("name")).as_posix() in changed, (
                f"kill {stats['kills']} left an unexpected file: {rel}")
            assert not name.endswith((".yml", ".yaml", ".sql", ".csv", ".json")), rel
            stats["leftovers"].add(rel)
    return stats


def test_sigkill_during_write_never_leaves_a_partial_file(killshop, tmp_path):
    root = killshop.path
    old = _snapshot(root)
    done = killshop.cli("write", *killshop.project_args(), "--no-validate")
    new = _snapshot(root)
    changed = sorted(rel for rel in set(old) | set(new) if old.get(rel) != new.get(rel))
    assert len(changed) == MODELS + 2 and "schema_link_state.json" in changed, (changed, done.stderr)
    assert "models/_orphan_visits__schema_link.yml" in changed and "models/_orphan_visits__schema_link.yml" not in old
    _restore(root, old, new)
    assert _snapshot(root) == old

    # Two copies killed in parallel (one per core); each has its own files and random stream.
    copies = [killshop]
    for n in range(1, WORKERS):
        dest = tmp_path / f"copy{n}" / root.name
        shutil.copytree(root, dest, symlinks=True, ignore=shutil.ignore_patterns("logs"))
        copies.append(BuiltProject(dest, killshop.target, killshop.env))
    plans = []
    for n, project in enumerate(copies):
        watched = sorted({(project.path / rel).parent for rel in changed})
        timing = _calibrate(project, watched)
        assert _snapshot(project.path) == new
        _restore(project.path, old, new)
        plans.append((project, random.Random(SEED + n), KILLS // WORKERS, old, new, changed, watched, timing))
    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(lambda args: _kill_loop(*args), plans))

    total = {k: sum(r[k] for r in results) for k in ("kills", "completed", "all old", "mixed", "all new")}
    leftovers = sum(len(r["leftovers"]) for r in results)
    assert total["kills"] >= KILLS
    # Kills really landed inside the write phase, not only before or after it.
    assert total["mixed"] >= KILLS // 5, total
    for project in copies:
        # The next run completes from whatever the last kill left and yields the new version.
        final = project.cli("write", *project.project_args(), "--no-validate")
        after = _snapshot(project.path)
        for rel in changed:
            assert after.get(rel) == new.get(rel), f"after recovery, {rel} differs from an uninterrupted run"
    # Leftover temp files never reach dbt: the project still parses.
    killshop.dbt("parse")
    first, last, run_time = plans[0][-1]
    print(f"\nkills survived: {total['kills']} ({total['completed']} runs finished first); "
          f"after the kill: {total['all old']} all old, {total['mixed']} mixed, {total['all new']} all new; "
          f"writes {1000 * (last - first):.0f} ms of a {run_time:.2f} s run; temp files left by kills: {leftovers}; "
          f"final run: {final.stderr.strip().splitlines()[-1]}")
