"""The files one planning run reads and edits: loaded once, refused as a whole, rendered at the end.

A file is all-or-nothing: if any edit to it is refused, none of its edits are written (and the
state keys of its edits are dropped, so they are tried again next time).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dbt_schema_link.writers.records import (
    AcceptedLink,
    ChangeKind,
    FileChange,
    Refusal,
)
from dbt_schema_link.writers.yaml_io import (
    YamlFile,
    YamlRefused,
    load_yaml_file,
    new_yaml_file,
)

NEW_FILE_HEADER = (
    "# Written by dbt-schema-link from the joins it found in this project. Edit or delete freely:\n"
    "# removed tests are remembered in the state file and not added again.\n"
)


@dataclass
class _Refused:
    display: str
    reason: str
    links: list[AcceptedLink] = field(default_factory=list)


class Workspace:
    def __init__(self, project_dir: Path) -> None:
        self.project_dir = project_dir
        self.files: dict[Path, YamlFile] = {}
        self.refused: dict[Path, _Refused] = {}
        self.pending: dict[Path, dict[str, set[str]]] = {}
        self.extra: dict[Path, FileChange] = {}
        self.adopted: dict[str, set[str]] = {}

    def display(self, path: Path) -> str:
        try:
            return path.relative_to(self.project_dir.resolve()).as_posix()
        except ValueError:
            return str(path)

    def open(self, path: Path, may_create: bool = True) -> YamlFile:
        """The file, loaded once. Raises YamlRefused (remembered) when it cannot be edited."""
        path = path.resolve()
        if path in self.refused:
            raise YamlRefused(self.refused[path].reason)
        if path in self.files:
            return self.files[path]
        display = self.display(path)
        try:
            if path.exists():
                yfile = load_yaml_file(path, display)
            elif may_create:
                if path.parent.exists() and not path.parent.is_dir():
                    raise YamlRefused(f"{self.display(path.parent)} is not a directory")
                yfile = new_yaml_file(path, display, NEW_FILE_HEADER)
            else:
                raise YamlRefused("the file does not exist: the manifest is stale, run `dbt parse`")
        except YamlRefused as exc:
            self.refused[path] = _Refused(display, str(exc))
            raise
        self.files[path] = yfile
        return yfile

    def refuse(self, path: Path, reason: str, link: AcceptedLink | None = None) -> None:
        path = path.resolve()
        entry = self.refused.setdefault(path, _Refused(self.display(path), reason))
        if link is not None and link not in entry.links:
            entry.links.append(link)
        self.files.pop(path, None)
        self.pending.pop(path, None)

    def record(self, path: Path, kind: str, key: str) -> None:
        self.pending.setdefault(path.resolve(), {}).setdefault(kind, set()).add(key)

    def adopt(self, kind: str, key: str) -> None:
        """A state key for something already in the YAML (no file edit needed)."""
        self.adopted.setdefault(kind, set()).add(key)

    def add_file(self, change: FileChange) -> None:
        """A whole new non-YAML file (the time-spine model)."""
        self.extra[change.path.resolve()] = change

    def finish(self) -> tuple[list[FileChange], list[Refusal], dict[str, set[str]]]:
        """Render every edited file: (changes, refusals, state keys written)."""
        changes: list[FileChange] = []
        additions: dict[str, set[str]] = {}
        for path in sorted(self.files):
            yfile = self.files[path]
            try:
                new = yfile.render()
            except YamlRefused as exc:
                self.refused[path] = _Refused(yfile.display, str(exc))
                continue
            if new == yfile.old_bytes or (yfile.is_new and not yfile.doc):
                continue
            changes.append(FileChange(
                path=path, display=yfile.display, old=yfile.old_bytes, new=new, kind=ChangeKind.YAML,
                old_mtime_ns=yfile.old_mtime_ns, actions=tuple(yfile.actions),
            ))
            for kind, keys in self.pending.get(path, {}).items():
                additions.setdefault(kind, set()).update(keys)
        changes += [self.extra[p] for p in sorted(self.extra)]
        for change in self.extra.values():
            for kind, keys in self.pending.get(change.path.resolve(), {}).items():
                additions.setdefault(kind, set()).update(keys)
        for kind, keys in self.adopted.items():
            additions.setdefault(kind, set()).update(keys)
        refusals = [
            Refusal(r.display, r.reason, tuple(sorted(r.links)))
            for _, r in sorted(self.refused.items())
        ]
        return changes, refusals, additions
