"""A v3 envelope `relation` document built in code: the columns and the rows their profile
statement would return (PROFILE_FIELDS), for tests of the Python assembly."""

from __future__ import annotations

from typing import Any

from dbt_schema_link.profiling.envelope import PROFILE_FIELDS

_EMPTY = {f: None for f in PROFILE_FIELDS}


def relation_doc(unique_id: str, relation: str, columns: list[dict[str, Any]], row_count: int, *,
                 k: int = 128, top_n: int = 10, top_max_distinct: int = 50, sampled: bool = False,
                 row_estimate: int | None = None, sample_percent: float | None = None,
                 sample_method: str | None = None, duplicates: tuple[str, ...] = (), chunk_size: int = 60) -> dict[str, Any]:
    """columns: {name, data_type, skipped?, <PROFILE_FIELDS stats>}; the profiled ones get one
    row each (`rows: False` in a column: the statement returned none for it), in chunks."""
    infos = [{"name": c["name"], "data_type": c.get("data_type"), "skipped": c.get("skipped")} for c in columns]
    profiled = [i for i, c in enumerate(columns) if c.get("skipped") is None]
    chunks = []
    for start in range(0, max(len(profiled), 1), chunk_size):
        positions = profiled[start:start + chunk_size]
        rows = []
        for idx, pos in enumerate(positions):
            stats = {key: value for key, value in columns[pos].items() if key in PROFILE_FIELDS}
            if columns[pos].get("rows") is not False:
                row = {**_EMPTY, "distinct_approx": False, **stats, "col_idx": idx, "row_count": row_count}
                rows.append([row[f] for f in PROFILE_FIELDS])
        if not positions:
            rows.append([{**_EMPTY, "distinct_approx": False, "row_count": row_count}[f] for f in PROFILE_FIELDS])
        chunks.append({"columns": positions, "fields": list(PROFILE_FIELDS), "rows": rows})
    return {
        "unique_id": unique_id, "database": "d", "schema": "s", "identifier": relation.split(".")[-1].strip('"'),
        "relation": relation, "row_estimate": row_estimate, "sampled": sampled, "sample_percent": sample_percent,
        "sample_method": sample_method if sample_method or not sampled else "rows", "k": k, "top_n": top_n, "top_max_distinct": top_max_distinct, "columns": infos, "chunks": chunks,
        "duplicates": list(duplicates),
    }
