"""The profiling SQL alone, in DuckDB CPU seconds: what `scale.py`'s wall-time ratios measure
through dbt, without dbt, Jinja or the other jobs of a shared machine in the figure.

Over every source table of a warehouse that `scale.py --size S|M` generated (its work dir), on
one DuckDB thread, each statement timed by `time.process_time()` (best of `--repeat`):

  floor    one statement per table hashing every value of the sketched columns once
           (`sum(hash(c))`, other columns `count(c)`), as scale.py's hash floor
  group    one statement per table grouping each sketched column's values once (`count(*)` of
           `select c from t group by c`, per column, union all): the least exact distinct
           counts can cost, which exact mode pays on top of the hash floor
  exact    the profile statement with nothing sampled (`schema_link_profile_sql`)
  values   the profile statement as a value sample (sample_method 'values', --percent), on the
           tables above --sample-rows only; `exact_big` is exact mode on those same tables

The statements are rendered from a macros folder (default this checkout's; `--macros DIR` for
another commit's, e.g. `git archive <commit> macros | tar -x -C DIR`) by the test harness that
renders them for tests/test_macros_sql.py.

    python benchmarks/profile_sql_cpu.py --work benchmarks/out/scale/S [--macros DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _cpu(con, sql: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        con.execute(sql).fetchall()
        best = min(best, time.process_time() - start)
    return best


def measure(db: Path, macros: Path, percent: float, sample_rows: int, repeat: int) -> dict:
    import duckdb  # noqa: PLC0415

    import tests.test_macros_sql as harness  # noqa: PLC0415

    harness.MACROS = macros
    h = harness.Harness("duckdb")
    con = duckdb.connect(str(db), read_only=True)
    con.execute("SET threads = 1")
    tables = con.execute("select schema_name, table_name, estimated_size from duckdb_tables() "
                         "order by 1, 2").fetchall()
    base = {"k": 128, "top_n": 10, "top_max_distinct": 50, "sample_seed": 42}
    out = {"tables": len(tables), "floor": 0.0, "group": 0.0, "exact": 0.0, "exact_big": 0.0, "values": 0.0, "big_tables": 0}
    for schema, name, rows in tables:
        cols = [{"name": c, "data_type": t} for c, t in con.execute(
            "select column_name, data_type from duckdb_columns() where schema_name = ? and table_name = ? "
            "order by column_index", [schema, name]).fetchall()]
        rel = harness.FakeRelation("warehouse", schema, name)
        rel.type = "table"
        sketch = [c for c in cols if h.call("schema_link_sketch_values", c["data_type"])]
        floor = ("select " + ", ".join(f'sum(hash("{c["name"]}"))' if c in sketch else f'count("{c["name"]}")'
                                       for c in cols) + f' from "{schema}"."{name}"')
        exact = h.call("schema_link_profile_sql", rel, cols, {**base, "sample_percent": None}).replace('"warehouse".', "")
        out["floor"] += _cpu(con, floor, repeat)
        if sketch:
            out["group"] += _cpu(con, " union all ".join(
                f'select count(*) from (select "{c["name"]}" from "{schema}"."{name}" group by 1)' for c in sketch), repeat)
        seconds = _cpu(con, exact, repeat)
        out["exact"] += seconds
        if rows > sample_rows:
            by_value = h.call("schema_link_profile_sql", rel, cols,
                              {**base, "sample_percent": percent, "sample_method": "values"}).replace('"warehouse".', "")
            out["values"] += _cpu(con, by_value, repeat)
            out["exact_big"] += seconds
            out["big_tables"] += 1
    con.close()
    out = {k: round(v, 2) if isinstance(v, float) else v for k, v in out.items()}
    out["exact_floor_ratio"] = round(out["exact"] / max(out["floor"], 1e-9), 2)
    out["exact_group_ratio"] = round(out["exact"] / max(out["group"], 1e-9), 2)
    out["load_avg_1m"] = round(os.getloadavg()[0], 2)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--work", required=True, help="scale.py's work dir of one size (holds warehouse.duckdb)")
    p.add_argument("--macros", default=str(REPO / "macros"), help="macros folder to render the statements from")
    p.add_argument("--percent", type=float, default=10.0, help="sample_percent of the value sample")
    p.add_argument("--sample-rows", type=int, default=500_000, help="tables above this many rows get the value sample")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--json", dest="json_out")
    args = p.parse_args(argv)
    load = os.getloadavg()[0]
    res = measure(Path(args.work) / "warehouse.duckdb", Path(args.macros), args.percent, args.sample_rows, args.repeat)
    res["load_avg_1m"] = f"{load:.2f} -> {res['load_avg_1m']:.2f}"
    for key, value in res.items():
        print(f"{key:20} {value}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
