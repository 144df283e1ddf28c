"""What a dirty copy's own data says about each declared FK: the classes recall is split by.

The SaaS source schemas of the issue show why one recall figure is not enough: where sample rows
are not referentially consistent, a join whose child values are mostly absent from the parent
cannot be confirmed by any check, and an empty child column has nothing to check. Each truth pair
is put in one class by the share of the child's distinct values its parent holds.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from fkbench.databases import GroundTruth, Pair, connect_readonly, quote_sqlite

from .inject import found_in

#: At least this share of the child's distinct values in the parent: the data confirms the join.
CONFIRMS_SHARE = 0.9
#: Under this share: the data contradicts what the names declare.
CONTRADICTS_SHARE = 0.1


class DataSays(str, Enum):
    EMPTY = "empty"  # the child column holds no value
    CONFIRMS = "confirms"
    PARTIAL = "partial"
    CONTRADICTS = "contradicts"


def classify(path: Path, truth: GroundTruth) -> dict[Pair, DataSays]:
    """Every declared column pair of the SQLite file at `path` with what its data says."""
    conn = connect_readonly(path)
    try:
        def values(table: str, column: str) -> list:
            return [v for (v,) in conn.execute(f"SELECT DISTINCT {quote_sqlite(column)} FROM {quote_sqlite(table)}")]

        out = {}
        for fk in truth.foreign_keys:
            matched, distinct = found_in(values(*fk.child), values(*fk.parent))
            if not distinct:
                out[fk.pair] = DataSays.EMPTY
                continue
            share = matched / distinct
            out[fk.pair] = (DataSays.CONFIRMS if share >= CONFIRMS_SHARE
                            else DataSays.CONTRADICTS if share < CONTRADICTS_SHARE else DataSays.PARTIAL)
        return out
    finally:
        conn.close()
