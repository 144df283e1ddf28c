"""The predecessor, `schema-linker` 0.0.5 from PyPI, run on FK-stripped SQLite copies.

It lives in its own virtual environment under the work dir (created once, then reused). Its CLI
(`schema-linker --db-type sqlite --database FILE --output DIR`) writes `DIR/main_schema_links.md`,
which groups the inferred columns into value-domain components:

    ### customerid
    - inferred: Customers.CustomerID, Orders.CustomerID

The report claims every column of a group joins every other, so the scored pairs are all pairs
inside each group (`report_pairs`); this reproduces the peer's published figures. With no FK
declared, a group of three or more columns does not say which pairs were actually linked, so
`peer_runner.py` (which runs that same CLI entry point in the peer's environment) also records the
pairwise `InferredLink`s behind the report (`edge_pairs`), reported as a second reading.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from .databases import Pair, connect_readonly, pair, primary_key, quote_sqlite, table_columns, user_tables

PEER_SPEC = "schema-linker==0.0.5"
PEER_VERSION = "0.0.5"
RUNNER = Path(__file__).with_name("peer_runner.py")


@dataclass
class PeerRun:
    pairs: set[Pair] = field(default_factory=set)       # from the Markdown report (scored)
    edge_pairs: set[Pair] = field(default_factory=set)  # its pairwise inferred links
    seconds: float = 0.0        # wall time of the peer's process (start-up included)
    inner_seconds: float = 0.0  # time inside its CLI entry point, as the runner measured it
    error: str | None = None
    report_path: str | None = None


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def installed_version(python: Path) -> str | None:
    if not python.exists():
        return None
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('schema-linker'))"],
        capture_output=True, text=True)
    return probe.stdout.strip() if probe.returncode == 0 else None


def ensure_peer(venv: Path, log=print) -> Path:
    """Create the peer's virtual environment and install it there, unless already done."""
    python = venv_python(venv)
    if installed_version(python) == PEER_VERSION:
        return python
    log(f"installing {PEER_SPEC} into {venv} ...")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run([str(python), "-m", "pip", "install", "--quiet", PEER_SPEC],
                         capture_output=True, text=True)
    if pip.returncode != 0 or installed_version(python) != PEER_VERSION:
        raise RuntimeError(f"could not install {PEER_SPEC}:\n{pip.stderr[-2000:]}")
    return python


def _unique_constraints(conn: sqlite3.Connection, table: str) -> list[list[str]]:
    out = []
    for _, index, unique, origin, *_ in conn.execute(f"PRAGMA index_list({quote_sqlite(table)})"):
        if unique and origin in ("u", "c"):
            cols = [r[2] for r in conn.execute(f"PRAGMA index_info({quote_sqlite(index)})")]
            if cols and all(cols):
                out.append(cols)
    return out


def create_table_sql(conn: sqlite3.Connection, table: str) -> str:
    """CREATE TABLE with the same columns, types, NOT NULLs, primary and unique keys; no FKs."""
    columns = table_columns(conn, table)
    parts = [" ".join(filter(None, [quote_sqlite(c.name), c.declared_type, "NOT NULL" if c.not_null else ""]))
             for c in columns]
    pk = primary_key(columns)
    if pk:
        parts.append("PRIMARY KEY (" + ", ".join(map(quote_sqlite, pk)) + ")")
    for cols in _unique_constraints(conn, table):
        parts.append("UNIQUE (" + ", ".join(map(quote_sqlite, cols)) + ")")
    return f"CREATE TABLE {quote_sqlite(table)} (\n  " + ",\n  ".join(parts) + "\n)"


def strip_foreign_keys(src_path: Path, dst_path: Path) -> None:
    """Copy `src_path` to `dst_path` with every table recreated without FOREIGN KEY clauses."""
    dst_path.parent.mkdir(parents=True, exist_ok=True)
    dst_path.unlink(missing_ok=True)
    src = connect_readonly(src_path)
    dst = sqlite3.connect(dst_path)
    try:
        for table in user_tables(src):
            dst.execute(create_table_sql(src, table))
            rows = src.execute(f"SELECT * FROM {quote_sqlite(table)}").fetchall()
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                dst.executemany(f"INSERT INTO {quote_sqlite(table)} VALUES ({marks})", rows)
        dst.commit()
        leftover = [t for t in user_tables(dst) if dst.execute(f"PRAGMA foreign_key_list({quote_sqlite(t)})").fetchall()]
        if leftover:
            raise RuntimeError(f"foreign keys left in {dst_path}: {leftover}")
    finally:
        src.close()
        dst.close()


def run_peer(python: Path, sqlite_copy: Path, out_dir: Path, timeout_s: float = 900) -> PeerRun:
    out_dir.mkdir(parents=True, exist_ok=True)
    links_json = out_dir / "inferred_links.json"
    cmd = [str(python), str(RUNNER), "--links-json", str(links_json), "--",
           "--db-type", "sqlite", "--database", str(sqlite_copy), "--output", str(out_dir)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return PeerRun(seconds=time.perf_counter() - start, error=f"timed out after {timeout_s:.0f}s")
    seconds = time.perf_counter() - start
    (out_dir / "peer.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    if proc.returncode != 0 or not links_json.exists():
        return PeerRun(seconds=seconds, error=f"exit {proc.returncode}: {proc.stderr.strip()[-500:]}")
    reports = sorted(out_dir.glob("*_schema_links.md"))
    if len(reports) != 1:
        return PeerRun(seconds=seconds, error=f"expected one *_schema_links.md in {out_dir}, found {len(reports)}")
    data = json.loads(links_json.read_text(encoding="utf-8"))
    return PeerRun(pairs=report_pairs(reports[0].read_text(encoding="utf-8")),
                   edge_pairs={pair(tuple(l["source"]), tuple(l["target"])) for l in data["links"]},
                   seconds=seconds, inner_seconds=data["seconds"], report_path=str(reports[0]))


# --- reading the Markdown report -------------------------------------------------------------
_LABEL = re.compile(r'\s*("(?:[^"]|"")*"|[^.,"]+)\.("(?:[^"]|"")*"|[^,"]+?)\s*(?:,|$)')


def _unquote(part: str) -> str:
    part = part.strip()
    return part[1:-1].replace('""', '"') if part.startswith('"') else part


def parse_labels(text: str) -> list[tuple[str, str]]:
    """`a.b, "Order Details"."Unit Price"` → [(a, b), (Order Details, Unit Price)]."""
    return [(_unquote(t), _unquote(c)) for t, c in _LABEL.findall(text)]


def report_groups(markdown: str) -> list[list[tuple[str, str]]]:
    """One list of columns per `###` group: its `- inferred:` and `- declared:` members
    (plain or `--show-evidence` layout)."""
    groups: list[list[tuple[str, str]]] = []
    for line in markdown.splitlines():
        if line.startswith("### "):
            groups.append([])
        elif groups and line.startswith(("- inferred:", "- declared:")):
            groups[-1].extend(parse_labels(line.split(":", 1)[1]))
        elif groups and line.startswith("  - "):  # --show-evidence: "  - t.c: evidence, ..."
            label = line[4:]
            groups[-1].extend(parse_labels(label.split(": ", 1)[0]))
    return groups


def report_pairs(markdown: str) -> set[Pair]:
    return {pair(a, b) for group in report_groups(markdown) for a, b in combinations(group, 2) if a != b}
