"""Atomic file writes: a temp file in the same directory, fsync, then rename over the target.

A reader (or a process killed mid-write) sees the old bytes or the new bytes, never a mix.
"""

from __future__ import annotations

import glob
import os
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path


#: Temp files of an earlier write that was killed are removed once they are this old (seconds).
STALE_TEMP_SECONDS = 60


def _remove_stale_temps(path: Path) -> None:
    """A killed write leaves its `.<name>.<random>.tmp` behind; clean those up (never `.yml`)."""
    cutoff = time.time() - STALE_TEMP_SECONDS
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        try:
            if tmp.stat().st_mtime < cutoff:
                tmp.unlink()
        except OSError:
            pass


def atomic_write_bytes(path: Path, data: bytes) -> None:
    atomic_write_chunks(path, (data,))


def atomic_write_chunks(path: Path, chunks: Iterable[bytes]) -> None:
    """``atomic_write_bytes`` of the chunks one after another, never all held at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temps(path)
    mode = None
    if path.exists():
        mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
