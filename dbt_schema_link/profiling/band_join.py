"""Value lookups run in the engine (`schema_link_band_candidates` macro): a `BandJoin` for
discovery that writes the band relations as CSV files, has the engine join them, and reads the
candidate pairs back. Local files only: DuckDB and Spark (a local session) read them."""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from dbt_schema_link.dbt_runner import DbtInvocation, run_operation
from dbt_schema_link.profiling.band_tables import HIT_COLUMNS, BandTables
from dbt_schema_link.errors import WarehouseError

BAND_MACRO = "schema_link_band_candidates"


#: Rows turned into text at a time (the text of a million rows is some tens of MB).
CSV_CHUNK_ROWS = 250_000


def write_int_csv(path: Path, rows: np.ndarray) -> None:
    """Integer rows as CSV without a header, a chunk of rows at a time (numbers as text column
    by column, which numpy does in C)."""
    rows = np.asarray(rows, dtype=np.int64)
    with path.open("w", encoding="ascii") as f:
        for start in range(0, len(rows), CSV_CHUNK_ROWS):
            columns = [col.astype(str).tolist() for col in rows[start:start + CSV_CHUNK_ROWS].T]
            f.write("".join(line + "\n" for line in map(",".join, zip(*columns))))


def read_int_csv(path: Path, width: int) -> np.ndarray:
    """Integer CSV rows from a file, or from a directory's part files (Spark writes those)."""
    files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(("_", "."))) \
        if path.is_dir() else [path]
    text = "".join(p.read_text(encoding="ascii") for p in files)
    lines = text.split()
    values = ",".join(lines).split(",") if lines else []
    if len(values) != len(lines) * width:
        raise WarehouseError(f"{BAND_MACRO} wrote {path} with rows of other than {width} fields")
    return np.array(values, dtype=np.int64).reshape(-1, width)


@dataclass
class BandJoinTimings:
    """Where the last join's time went (seconds), and its size."""

    write_seconds: float = 0.0
    engine_seconds: float = 0.0  # the dbt run-operation: start, the join, the output file
    read_seconds: float = 0.0
    band_rows: int = 0
    hits: int = 0


class WarehouseBandJoin:
    """A `BandJoin` that runs the join in the warehouse's engine, exchanging files in a fresh
    directory under ``workdir`` (removed afterwards); ``timings`` describes the last call."""

    def __init__(self, inv: DbtInvocation, workdir: Path, progress: Callable[[str], None] | None = None) -> None:
        self.inv, self.workdir, self.progress = inv, workdir, progress
        self.timings = BandJoinTimings()

    def __call__(self, tables: BandTables) -> np.ndarray:
        say = self.progress or (lambda _msg: None)
        self.workdir.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="bands-", dir=self.workdir))
        timings = self.timings = BandJoinTimings(band_rows=tables.rows)
        try:
            say(f"writing {tables.rows} band rows for the engine's value lookups")
            start = time.perf_counter()
            files = {name: folder / f"{name}.csv" for name in ("parent_bands", "child_bands", "queries")}
            write_int_csv(files["parent_bands"], tables.parents)
            write_int_csv(files["child_bands"], tables.children)
            write_int_csv(files["queries"], tables.queries)
            output = folder / "hits"
            timings.write_seconds = time.perf_counter() - start
            say("joining band keys in the engine")
            start = time.perf_counter()
            result = run_operation(self.inv, BAND_MACRO, {**{k: str(v.resolve()) for k, v in files.items()},
                                                          "output": str(output.resolve()),
                                                          "max_bucket": tables.max_bucket, "cap": tables.cap})
            timings.engine_seconds = time.perf_counter() - start
            if not result.ok or not output.exists():
                raise WarehouseError(f"value lookups in the engine failed: {result.error_summary()} (the engine reads "
                                     f"the band files from {folder}: DuckDB, or Spark in a local session; "
                                     "set engine_lookup_min_columns to 0 to look up in Python)")
            start = time.perf_counter()
            hits = read_int_csv(output, len(HIT_COLUMNS))
            timings.read_seconds, timings.hits = time.perf_counter() - start, len(hits)
            return hits
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def warehouse_band_join(inv: DbtInvocation, workdir: Path,
                        progress: Callable[[str], None] | None = None) -> WarehouseBandJoin:
    """A `BandJoin` for discovery: value lookups run by the `schema_link_band_candidates` macro."""
    return WarehouseBandJoin(inv, workdir, progress)
