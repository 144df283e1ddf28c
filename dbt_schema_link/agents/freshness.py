"""Whether the artifacts an index was built from changed since it was loaded.

A long-lived server must notice `dbt docs generate` or `dbt-schema-link link` runs while it serves.
Hashing the artifacts on every call would cost as much as a manifest read, so a call compares file
stats (size, modification time) taken at load; the index build itself then decides, by content
fingerprint, what to re-embed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

#: (size, mtime in ns), or None for a missing file.
Stat = tuple[int, int] | None


def _stat(path: Path) -> Stat:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


@dataclass(frozen=True)
class Snapshot:
    stats: tuple[tuple[Path, Stat], ...]

    @classmethod
    def take(cls, paths: Sequence[Path]) -> "Snapshot":
        return cls(tuple((Path(p), _stat(Path(p))) for p in paths))

    def changed(self) -> list[Path]:
        """The files whose size or modification time differ now (appeared or removed included)."""
        return [path for path, stat in self.stats if _stat(path) != stat]
