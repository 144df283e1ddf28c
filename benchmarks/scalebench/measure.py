"""Wall time and peak memory of a command's whole process tree (its summed resident memory,
sampled from /proc every 0.25 s)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Measured:
    returncode: int
    seconds: float
    peak_mib: float       # max over samples of the summed RSS of the tree
    max_proc_mib: float   # ru_maxrss from wait4 (includes the parent's size at fork: not a peak)
    timed_out: bool = False
    over_memory: bool = False


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def _tree_rss_kib(root: int) -> int:
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            continue
        stack += _children(pid)
    return total


def run(cmd: list[str], *, cwd: Path | None = None, env: dict | None = None, timeout: float = 3600,
        log: Path | None = None, interval: float = 0.25, limit_mib: float | None = None) -> Measured:
    """Run ``cmd``; kill it past ``timeout`` seconds or (``limit_mib``) that much resident memory
    in its process tree (the machine is shared: a runaway benchmark must not take it down)."""
    handle = open(log, "w", encoding="utf-8") if log else subprocess.DEVNULL
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=handle, stderr=subprocess.STDOUT if log else None)
    peak = [0]
    over = [False]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss_kib(proc.pid))
            if limit_mib and peak[0] > limit_mib * 1024:
                over[0] = True
                proc.kill()
            done.wait(interval)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    timed_out = False
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            timed_out = True
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if log:
        handle.close()
    # ru_maxrss is not used for the peak: on Linux a child's maxrss starts from its parent's
    # resident size at fork (kept across exec), so a large benchmark process inflates it
    return Measured(proc.returncode, seconds, round((peak[0] or usage.ru_maxrss) / 1024, 1),
                    round(usage.ru_maxrss / 1024, 1), timed_out, over[0])


def python() -> str:
    return sys.executable
