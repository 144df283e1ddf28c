"""Write a plan: every file atomically (temp file + rename), after checking that nothing changed
on disk since planning. Also the unified diff for ``--dry-run``."""

from __future__ import annotations

import difflib
import hashlib
import os
from dataclasses import dataclass

from dbt_schema_link.errors import YamlWriteError
from dbt_schema_link.fileio import atomic_write_bytes
from dbt_schema_link.writers.records import ChangeKind, FileChange, WritePlan


@dataclass(frozen=True)
class ApplyResult:
    written: tuple[str, ...]  # display paths, in write order


def _current(change: FileChange) -> tuple[bytes | None, int | None]:
    try:
        return change.path.read_bytes(), change.path.stat().st_mtime_ns
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        raise YamlWriteError(f"cannot read {change.display} ({exc.strerror}); nothing was written") from None


def check_unchanged(plan: WritePlan) -> None:
    """Raise if any planned file changed on disk (or appeared/vanished) since it was planned."""
    for change in plan.changes:
        data, _ = _current(change)
        if change.old is None:
            if data is not None:
                raise YamlWriteError(f"{change.display} was created by someone else during the run; nothing was written, re-run")
            continue
        if data is None:
            raise YamlWriteError(f"{change.display} was deleted during the run; nothing was written, re-run")
        # The bytes decide (always hashed: mtime granularity can hide a quick edit); a file that
        # was only touched (new mtime, same bytes) is still safe to replace.
        if hashlib.sha256(data).hexdigest() != change.old_sha256:
            raise YamlWriteError(f"{change.display} changed on disk during the run; nothing was written, re-run")


def _check_writable(change: FileChange) -> None:
    if change.path.exists():
        mode = change.path.stat().st_mode
        if not os.access(change.path, os.W_OK) or not mode & 0o222:
            raise YamlWriteError(f"{change.display} is read-only; nothing was written (make it writable and re-run)")
    else:
        parent = change.path.parent
        while not parent.exists():
            parent = parent.parent
        if not os.access(parent, os.W_OK):
            raise YamlWriteError(f"cannot create {change.display}: {parent} is not writable; nothing was written")


def apply(plan: WritePlan, check_unchanged_on_disk: bool = True) -> ApplyResult:
    """Write every change of the plan; the state file last, so an interrupted run never records
    a test as written before its YAML is on disk."""
    if check_unchanged_on_disk:
        check_unchanged(plan)
    for change in plan.changes:
        _check_writable(change)
    ordered = [c for c in plan.changes if c.kind is not ChangeKind.STATE] + [
        c for c in plan.changes if c.kind is ChangeKind.STATE
    ]
    written = []
    for change in ordered:
        if check_unchanged_on_disk and change.old is not None:
            data, _ = _current(change)  # a last look right before replacing this one file
            if data != change.old:
                done = f" ({', '.join(written)} already written)" if written else ""
                raise YamlWriteError(f"{change.display} changed on disk during the run; it was not written{done}, re-run")
        try:
            atomic_write_bytes(change.path, change.new)
        except OSError as exc:
            done = f" ({', '.join(written)} already written)" if written else ""
            raise YamlWriteError(f"cannot write {change.display} ({exc.strerror}){done}") from None
        written.append(change.display)
    return ApplyResult(tuple(written))


def unified_diff(plan: WritePlan, include_state: bool = False) -> str:
    """A unified diff of every planned change (``a/`` old, ``b/`` new), like `git diff`."""
    chunks = []
    for change in plan.changes:
        if change.kind is ChangeKind.STATE and not include_state:
            continue
        old = change.old.decode("utf-8", errors="replace").splitlines(keepends=True) if change.old else []
        new = change.new.decode("utf-8", errors="replace").splitlines(keepends=True)
        fromfile = "/dev/null" if change.old is None else f"a/{change.display}"
        lines = list(difflib.unified_diff(old, new, fromfile=fromfile, tofile=f"b/{change.display}"))
        for i, line in enumerate(lines):
            if not line.endswith("\n"):
                lines[i] = line + "\n\\ No newline at end of file\n"
        chunks.append("".join(lines))
    return "".join(chunks)
