"""Start a throwaway PostgreSQL server for tests: initdb + pg_ctl on a free loopback port.

PostgreSQL refuses to run as root, so when we are root the server runs as the ``postgres`` OS
user on a data directory that user owns. The server is stopped (and its files removed) on exit.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL binaries are missing or the server did not start."""


@dataclass(frozen=True)
class PgServer:
    host: str
    port: int
    user: str
    socket_dir: Path
    data_dir: Path

    def env(self, dbname: str) -> dict[str, str]:
        """Environment variables the example/integration profiles.yml read."""
        return {
            "SCHEMA_LINK_PG_HOST": self.host,
            "SCHEMA_LINK_PG_PORT": str(self.port),
            "SCHEMA_LINK_PG_USER": self.user,
            "SCHEMA_LINK_PG_PASSWORD": "",
            "SCHEMA_LINK_PG_DBNAME": dbname,
        }

    def psql(self, sql: str, dbname: str = "postgres", user: str | None = None) -> str:
        out = subprocess.run(
            ["psql", "-h", self.host, "-p", str(self.port), "-U", user or self.user,
             "-d", dbname, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql],
            capture_output=True, text=True, check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(f"psql failed: {out.stderr.strip()}")
        return out.stdout

    def create_database(self, name: str) -> None:
        self.psql(f'CREATE DATABASE "{name}"')


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return str(candidate)
    raise PostgresUnavailable(f"{name} not found on PATH (install PostgreSQL server binaries)")


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@contextmanager
def postgres_server(log_statements: bool = False) -> Iterator[PgServer]:
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    root = Path(tempfile.mkdtemp(prefix="schema_link_pg_"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
        root.chmod(0o755)
    port = free_port()
    run = lambda cmd: subprocess.run(_as_server_user(cmd), capture_output=True, text=True)  # noqa: E731
    res = run([initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C"])
    if res.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise PostgresUnavailable(f"initdb failed: {res.stderr.strip()}")
    opts = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off"
    if log_statements:
        opts += " -c log_statement=all -c log_destination=stderr"
    log = root / "server.log"
    res = run([pg_ctl, "-D", str(data), "-o", opts, "-l", str(log), "-w", "-t", "60", "start"])
    if res.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else res.stderr
        shutil.rmtree(root, ignore_errors=True)
        raise PostgresUnavailable(f"pg_ctl start failed: {tail.strip()}")
    server = PgServer("127.0.0.1", port, "postgres", sock, data)
    try:
        deadline = time.time() + 30
        while True:
            try:
                server.psql("select 1")
                break
            except RuntimeError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        yield server
    finally:
        run([pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)


def server_log(server: PgServer) -> str:
    path = server.data_dir.parent / "server.log"
    return path.read_text(errors="replace") if path.exists() else ""
