"""Value lookups run in the engine (`schema_link_band_candidates` macro): a `BandJoin` for
discovery that writes the band relations as CSV files, has the engine join them, and reads the
candidate pairs back. Local files only: DuckDB and Spark (a local session) read them."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from dbt_schema_link.dbt_runner import DbtInvocation, run_operation
from dbt_schema_link.discovery.bands import HIT_COLUMNS, BandJoin, BandTables
from dbt_schema_link.errors import WarehouseError

BAND_MACRO = "schema_link_band_candidates"


def write_int_csv(path: Path, rows: np.ndarray) -> None:
    """Integer rows as CSV without a header (numbers as text, column by column)."""
    columns = [col.astype(str).tolist() for col in np.asarray(rows, dtype=np.int64).T]
    with path.open("w", encoding="ascii") as f:
        for start in range(0, len(rows), 1_000_000):  # bounded text in memory at a time
            chunk = [c[start:start + 1_000_000] for c in columns]
            f.write("".join(line + "\n" for line in map(",".join, zip(*chunk))))


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


def warehouse_band_join(inv: DbtInvocation, workdir: Path,
                        progress: Callable[[str], None] | None = None) -> BandJoin:
    """A `BandJoin` that runs the join in the warehouse's engine, exchanging files in a fresh
    directory under ``workdir`` (removed afterwards)."""

    def join(tables: BandTables) -> np.ndarray:
        workdir.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="bands-", dir=workdir))
        try:
            if progress:
                progress(f"writing {tables.rows} band rows for the engine's value lookups")
            files = {name: folder / f"{name}.csv" for name in ("parent_bands", "child_bands", "queries")}
            write_int_csv(files["parent_bands"], tables.parents)
            write_int_csv(files["child_bands"], tables.children)
            write_int_csv(files["queries"], tables.queries)
            output = folder / "hits"
            if progress:
                progress("joining band keys in the engine")
            result = run_operation(inv, BAND_MACRO, {**{k: str(v.resolve()) for k, v in files.items()},
                                                     "output": str(output.resolve()), "max_bucket": tables.max_bucket})
            if not result.ok or not output.exists():
                raise WarehouseError(f"value lookups in the engine failed: {result.error_summary()}")
            return read_int_csv(output, len(HIT_COLUMNS))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return join
