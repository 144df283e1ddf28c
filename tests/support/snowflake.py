"""A local Snowflake emulator for tests: fakesnow's HTTP server on a free loopback port.

fakesnow (Snowflake on DuckDB, SQL translated by sqlglot) answers the Snowflake connector's HTTP
protocol, so dbt-snowflake reaches it as a subprocess through the profiles' `snowflake` target
(account `fakesnow`, `protocol: http`, SCHEMA_LINK_SF_HOST / SCHEMA_LINK_SF_PORT). The server
keeps its databases in memory (fakesnow 0.12.1's server mode ignores `-d`), so its state lives
as long as the process: one server per test module. Where the emulator differs from Snowflake:
docs/snowflake_emulator.md.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from tests.support.packages import first_missing
from tests.support.pgserver import free_port

#: Hosts the connector must reach directly, whatever proxy the environment sets.
LOOPBACK = ("127.0.0.1", "localhost")
#: Seconds to wait for the server to accept connections (its imports take a few).
START_TIMEOUT_S = 60.0


class SnowflakeUnavailable(RuntimeError):
    """dbt-snowflake or fakesnow[server] is missing, or the emulator did not start."""


def check_snowflake() -> None:
    """Raise SnowflakeUnavailable naming what is missing (install: pip install -e '.[snowflake,snowflake-emulator]')."""
    missing = first_missing((("dbt.adapters.snowflake", "dbt-snowflake"), ("fakesnow", "fakesnow[server]"),
                             ("uvicorn", "fakesnow[server]"), ("starlette", "fakesnow[server]")))
    if missing:
        raise SnowflakeUnavailable(f"{missing} is not installed (pip install -e '.[snowflake,snowflake-emulator]')")


def _no_proxy(current: str) -> str:
    hosts = [h for h in current.split(",") if h.strip()]
    return ",".join([*hosts, *(h for h in LOOPBACK if h not in hosts)])


@dataclass(frozen=True)
class FakesnowServer:
    host: str
    port: int
    root: Path

    def env(self) -> dict[str, str]:
        """Environment the profiles' snowflake targets read, with loopback excluded from proxies."""
        return {
            "SCHEMA_LINK_SF_HOST": self.host,
            "SCHEMA_LINK_SF_PORT": str(self.port),
            "NO_PROXY": _no_proxy(os.environ.get("NO_PROXY", "")),
            "no_proxy": _no_proxy(os.environ.get("no_proxy", "")),
        }

    def log(self) -> str:
        path = self.root / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""


def _accepts(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def _stop(proc: subprocess.Popen) -> None:
    # fakesnow's CLI waits for SIGINT, yet here it did not stop within 10 s of one; SIGTERM does
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            return
        proc.send_signal(sig)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            continue


@contextmanager
def fakesnow_server() -> Iterator[FakesnowServer]:
    """Start `fakesnow -s` on a free 127.0.0.1 port in a temporary folder; stop it on exit."""
    check_snowflake()
    root = Path(tempfile.mkdtemp(prefix="schema_link_fakesnow_"))
    host, port = LOOPBACK[0], free_port()
    server = FakesnowServer(host, port, root)
    log = (root / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "fakesnow", "-s", "-p", str(port), "--host", host],
                            cwd=root, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **server.env()})
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _accepts(host, port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SnowflakeUnavailable(f"fakesnow server did not start: {server.log()[-2000:].strip()}")
            time.sleep(0.2)
        yield server
    finally:
        _stop(proc)
        log.close()
        shutil.rmtree(root, ignore_errors=True)
