"""A tiny dbt project whose only join is a composite key: `rooms(floor, code)` references
`bins(floor, code)`; neither column is unique alone. Seeds only, one profile per engine
(DuckDB, PostgreSQL, Spark session), installing this package from the repository."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO

FLOORS = 4
CODES = "ABCDEF"
ROOMS = 60

PROFILES = """\
composite:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: "{{ env_var('COMPOSITE_DUCKDB_PATH', 'target/composite.duckdb') }}"
      threads: 1
    postgres:
      type: postgres
      host: "{{ env_var('SCHEMA_LINK_PG_HOST', '127.0.0.1') }}"
      port: "{{ env_var('SCHEMA_LINK_PG_PORT', '5432') | as_number }}"
      user: "{{ env_var('SCHEMA_LINK_PG_USER', 'postgres') }}"
      password: "{{ env_var('SCHEMA_LINK_PG_PASSWORD', '') }}"
      dbname: "{{ env_var('SCHEMA_LINK_PG_DBNAME', 'postgres') }}"
      schema: composite
      threads: 1
    spark:
      type: spark
      method: session
      host: localhost
      schema: composite
      threads: 1
      server_side_parameters:
        spark.master: "local[1]"
        spark.driver.memory: "1g"
        spark.ui.enabled: "false"
        spark.sql.shuffle.partitions: "1"
        spark.sql.adaptive.enabled: "false"
        spark.sql.warehouse.dir: "{{ env_var('SCHEMA_LINK_SPARK_DIR', 'target/spark') }}/warehouse"
        spark.hadoop.javax.jdo.option.ConnectionURL: "jdbc:derby:;databaseName={{ env_var('SCHEMA_LINK_SPARK_DIR', 'target/spark') }}/metastore_db;create=true"
        spark.driver.extraJavaOptions: "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dderby.system.home={{ env_var('SCHEMA_LINK_SPARK_DIR', 'target/spark') }}"
"""

PROJECT = """\
name: composite
version: "1.0.0"
config-version: 2
profile: composite
seed-paths: ["seeds"]
model-paths: ["models"]
test-paths: ["tests"]
flags:
  send_anonymous_usage_stats: false
seeds:
  composite:
    +quote_columns: false
    bins:
      +column_types: {floor: integer, code: varchar(8), capacity: integer}
    rooms:
      +column_types: {room_id: integer, floor: integer, code: varchar(8), area: integer}
"""


def bins_csv() -> str:
    rows = [f"{f},{c},{10 * (1 + (f + i) % 3)}" for f in range(1, FLOORS + 1) for i, c in enumerate(CODES)]
    return "floor,code,capacity\n" + "\n".join(rows) + "\n"


def rooms_csv(orphan: bool = False) -> str:
    rows = [f"{r},{1 + (r * 7) % FLOORS},{CODES[(r * 5) % len(CODES)]},{20 + (r * 13) % 70}" for r in range(1, ROOMS + 1)]
    if orphan:  # floor 1 has bins, code Z has bins on no floor: only the tuple is missing
        rows.append(f"{ROOMS + 1},1,Z,50")
    return "room_id,floor,code,area\n" + "\n".join(rows) + "\n"


def write_project(dest: Path, spark: bool = False) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for sub in ("seeds", "models", "tests"):
        (dest / sub).mkdir(exist_ok=True)
    project = PROJECT
    if spark:  # Spark has no varchar(8) in seeds' casts that every version accepts
        project = project.replace("varchar(8)", "string")
    (dest / "dbt_project.yml").write_text(project)
    (dest / "profiles.yml").write_text(PROFILES)
    (dest / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    (dest / "seeds" / "bins.csv").write_text(bins_csv())
    (dest / "seeds" / "rooms.csv").write_text(rooms_csv())
    return dest
