"""Run dbt as a subprocess and stream its JSON log.

dbt runs out of process on purpose: in-process `dbtRunner` is not thread-safe, keeps DuckDB files
locked, and dbt 2.0's shim rejects callbacks. `--log-format json` makes every `log(info=True)`
line of our macros a `JinjaLogInfo` event on every supported dbt version.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from dbt_schema_link.errors import WarehouseError


@dataclass(frozen=True)
class LogMessage:
    level: str  # dbt's level: debug/info/warn/error
    name: str  # dbt event name, e.g. JinjaLogInfo
    msg: str


def parse_log_line(line: str) -> LogMessage | None:
    """One line of `dbt --log-format json` output; non-JSON lines (rare) become plain info."""
    line = line.strip()
    if not line:
        return None
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):  # not JSON (or absurd: 5,000-digit numbers, deep nesting)
        return LogMessage("info", "", line)
    if not isinstance(event, dict):
        return None
    info = event.get("info") if isinstance(event.get("info"), dict) else {}
    data = event.get("data") if isinstance(event.get("data"), dict) else {}
    msg = data.get("msg") if isinstance(data.get("msg"), str) else info.get("msg")
    if not isinstance(msg, str):
        return None
    return LogMessage(str(info.get("level", "info")), str(info.get("name", "")), msg)


#: Bytes one `--args` payload may take. Linux refuses any single argv entry over 128 KiB
#: (MAX_ARG_STRLEN) with "Argument list too long", and a dbt macro cannot read a file (its Jinja
#: is sandboxed: no file access), so callers split long inputs over several invocations.
MAX_ARGS_BYTES = 96 * 1024


def args_size(args: dict) -> int:
    """Bytes `args` takes as the `--args` entry of a dbt command line."""
    return len(json.dumps(args).encode("utf-8"))


def find_dbt() -> str:
    """The dbt beside this Python (its venv), else the one on PATH."""
    beside = Path(sys.executable).parent / "dbt"
    if beside.exists():
        return str(beside)
    found = shutil.which("dbt")
    if not found:
        raise WarehouseError("dbt executable not found: install dbt with an adapter extra (pip install 'dbt-schema-link[duckdb]', or [postgres], [snowflake], [spark]) or pass --dbt PATH")
    return found


@dataclass(frozen=True)
class DbtInvocation:
    """Where and how to run dbt for one project."""

    project_dir: Path
    profiles_dir: Path | None = None
    target: str | None = None
    dbt_executable: str | None = None
    vars: dict = field(default_factory=dict)

    def executable(self) -> str:
        return self.dbt_executable or find_dbt()

    def command(self, *args: str) -> list[str]:
        cmd = [self.executable(), "--log-format", "json", "--no-use-colors", *args,
               "--project-dir", str(self.project_dir)]
        profiles_dir = self.profiles_dir
        if profiles_dir is None and (self.project_dir / "profiles.yml").exists():
            profiles_dir = self.project_dir
        if profiles_dir is not None:
            cmd += ["--profiles-dir", str(profiles_dir)]
        if self.target:
            cmd += ["--target", self.target]
        if self.vars:
            cmd += ["--vars", json.dumps(self.vars)]
        return cmd


@dataclass
class DbtResult:
    returncode: int
    messages: list[LogMessage]

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def errors(self) -> list[str]:
        return [m.msg for m in self.messages if m.level == "error" and m.msg.strip()]

    def error_summary(self) -> str:
        """The most specific one-line error dbt gave."""
        lines: list[str] = []
        for msg in self.errors():
            for line in msg.splitlines():
                line = line.strip()
                if line and not line.startswith(("Encountered an error", "Traceback")):
                    lines.append(line)
        if not lines:
            return f"dbt exited with code {self.returncode}"
        # Prefer the database's own error text when dbt wrapped it.
        for line in lines:
            if "Error" in line and ":" in line:
                return line[:500]
        return lines[0][:500]


def stream_dbt(inv: DbtInvocation, args: list[str], on_message: Callable[[LogMessage], None] | None = None) -> DbtResult:
    """Run dbt, calling `on_message` for each log event as it arrives."""
    cmd = inv.command(*args)
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1"}
    try:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            encoding="utf-8", errors="replace", env=env, cwd=str(inv.project_dir),
        )
    except OSError as exc:
        raise WarehouseError(f"cannot start dbt ({cmd[0]}): {exc.strerror}") from None
    messages: list[LogMessage] = []
    assert proc.stdout is not None
    try:
        for line in _lines(proc.stdout):
            message = parse_log_line(line)
            if message is None:
                continue
            messages.append(message)
            if on_message is not None:
                on_message(message)
    except BaseException:
        # We gave up on this run (unusable output, Ctrl-C): do not leave dbt running behind us.
        proc.kill()
        proc.wait()
        raise
    finally:
        proc.stdout.close()
    return DbtResult(proc.wait(), messages)


def _lines(stream) -> Iterator[str]:
    for line in stream:
        yield line


def run_operation(inv: DbtInvocation, macro: str, args: dict,
                  on_message: Callable[[LogMessage], None] | None = None) -> DbtResult:
    # --no-write-json: leave the user's manifest.json alone (run-operation would rewrite it without
    # compiled_code, which discovery reads for the joins used in models' SQL).
    size = args_size(args)
    if size > MAX_ARGS_BYTES:
        raise WarehouseError(f"arguments for dbt run-operation {macro} take {size:,} bytes, over the "
                             f"{MAX_ARGS_BYTES:,} one command-line entry may hold: split them over several runs")
    return stream_dbt(inv, ["--no-write-json", "run-operation", macro, "--args", json.dumps(args)], on_message)
