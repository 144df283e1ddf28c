"""The profiling statement on PostgreSQL, by sample method, on one generated table.

A throwaway PostgreSQL (tests/support/pgserver.py) gets one table of --rows rows and seven columns
(a unique integer key, an integer reference with ~260k values, a text code with ~65k values, a
7-value integer, unique free text, a float measure, a 2-value status), then each statement runs
--repeat times on one backend (no parallel workers) and the best CPU seconds of that backend
(user + system, from /proc/<pid>/stat) are printed beside the best wall time:

  scan     `count(c)` of every column: one plain read
  exact    the profile statement with nothing sampled
  rows     a sample of rows (`tablesample bernoulli (--percent)`, sample_method 'rows')
  values   a value sample (every row read, each column's values below one hash threshold kept)

The statements are rendered by the test harness of tests/test_macros_sql.py from this
checkout's macros (or --macros DIR). On a shared machine the wall time follows the load (printed);
the backend's CPU seconds much less.

    python benchmarks/profile_sql_pg.py [--rows 1000000] [--percent 10] [--macros DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TABLE_SQL = """create table t as select i as id, (hashint4(i) & 262143) as customer_id,
    'AB-' || lpad((hashint4(i + 7) & 65535)::text, 6, '0') as code, (i % 7) as kind,
    'note ' || hashint4(i + 3)::text || ' about ' || (i % 1000)::text as note,
    (i % 10000) / 100.0::float8 as amount, case when i % 2 = 0 then 'open' else 'closed' end as status
    from generate_series(1, {rows}) i"""
COLUMNS = [("id", "integer"), ("customer_id", "integer"), ("code", "text"), ("kind", "integer"),
           ("note", "text"), ("amount", "double precision"), ("status", "text")]


def _cpu_seconds(pid: int) -> float:
    """utime + stime of a process (Linux /proc), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--percent", type=float, default=10.0)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--macros", default=str(REPO / "macros"))
    args = p.parse_args(argv)

    import psycopg2  # noqa: PLC0415

    import tests.test_macros_sql as harness  # noqa: PLC0415
    from tests.support.pgserver import postgres_server  # noqa: PLC0415

    harness.MACROS = Path(args.macros)
    h = harness.Harness("postgres")
    rel = harness.FakeRelation("bench", "public", "t")
    cols = [{"name": n, "data_type": t} for n, t in COLUMNS]
    base = {"k": 128, "top_n": 10, "top_max_distinct": 50, "sample_seed": 42}
    statements = {
        "scan": "select " + ", ".join(f"count({n})" for n, _ in COLUMNS) + " from t",
        "exact": h.call("schema_link_profile_sql", rel, cols, {**base, "sample_percent": None}),
        "rows": h.call("schema_link_profile_sql", rel, cols, {**base, "sample_percent": args.percent}),
        "values": h.call("schema_link_profile_sql", rel, cols,
                         {**base, "sample_percent": args.percent, "sample_method": "values"}),
    }
    load = os.getloadavg()[0]
    with postgres_server() as pg:
        pg.create_database("bench")
        con = psycopg2.connect(host=pg.host, port=pg.port, user=pg.user, dbname="bench")
        con.autocommit = True
        cur = con.cursor()
        cur.execute("set max_parallel_workers_per_gather = 0")
        cur.execute(TABLE_SQL.format(rows=args.rows))
        cur.execute("analyze t")
        cur.execute("select pg_backend_pid()")
        backend = cur.fetchone()[0]
        for name, sql in statements.items():
            wall = cpu = float("inf")
            for _ in range(args.repeat):
                start, start_cpu = time.perf_counter(), _cpu_seconds(backend)
                cur.execute(sql)
                cur.fetchall()
                wall = min(wall, time.perf_counter() - start)
                cpu = min(cpu, _cpu_seconds(backend) - start_cpu)
            print(f"{name:8} {cpu:8.2f} CPU s {wall:8.2f} s wall")
        con.close()
    print(f"load average (1 min) {load:.2f} -> {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
