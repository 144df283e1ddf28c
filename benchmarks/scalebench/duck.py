"""Sizes S and M: the warehouse's data generated inside DuckDB with SQL (`range()` and `hash()`,
no rows pass through Python), the sources in one schema per source, and a dbt project (dbt-duckdb,
with a `postgres` target for the side-by-side) declaring them as sources, with the staging and
mart models of the spec."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import yaml

from .spec import ENUMS, Col, Kind, Rel, Warehouse

PROJECT = "scalebench"
#: DuckDB's own limits, in the generator's connection and in the dbt profile (`settings`): its
#: buffer pool otherwise grows to 80% of the machine's memory, and M's hash-floor run-operation
#: was killed for memory (dbt at 18.5 GiB) on a machine shared with other jobs. Past the limit
#: DuckDB spills to a temporary directory beside the database file.
DUCKDB_SETTINGS = {"memory_limit": "4GB", "threads": 2}


def _hash(col: Col, extra: int = 0) -> str:
    return f"hash(i, {col.salt * 10 + extra})"


def value_sql(col: Col, rows: int) -> str:
    """DuckDB expression for one column over `range(rows) t(i)` (i = 0..rows-1)."""
    h = _hash(col)
    k = col.kind
    if k is Kind.SERIAL:
        expr = "i + 1"
    elif k is Kind.CODE:
        expr = f"'{col.prefix}-' || lpad(CAST(i + 1 AS VARCHAR), 6, '0')"
    elif k is Kind.REF:
        expr = f"CAST(1 + {h} % {col.n} AS BIGINT)"
        if col.sql_type == "VARCHAR":
            expr = f"CAST({expr} AS VARCHAR)"
    elif k is Kind.CODE_REF:
        expr = f"'{col.prefix}-' || lpad(CAST(1 + {h} % {col.n} AS VARCHAR), 6, '0')"
    elif k is Kind.ENUM:
        words = ENUMS[col.enum]
        expr = "([" + ", ".join(f"'{w}'" for w in words) + f"])[CAST(1 + {h} % {len(words)} AS BIGINT)]"
    elif k is Kind.FLAG:
        expr = f"({h} % 2 = 0)" if col.sql_type == "BOOLEAN" else f"CAST({h} % 2 AS INTEGER)"
    elif k is Kind.SMALL_INT:
        expr = f"CAST(1 + {h} % {col.n} AS INTEGER)"
    elif k is Kind.MEASURE:
        expr = f"round(CAST({h} % 1000000 AS DOUBLE) / 100, 2)"
    elif k is Kind.TEXT:
        expr = f"'customer note ' || CAST({h} AS VARCHAR) || ' about item ' || CAST({_hash(col, 1)} % 100000 AS VARCHAR)"
    elif k is Kind.DATE:
        expr = f"DATE '2020-01-01' + CAST({h} % 1800 AS INTEGER)"
    else:  # LABEL
        expr = f"'name ' || CAST({h} % {max(10, 2 * rows)} AS VARCHAR)"
    if col.null_pct:
        expr = f"CASE WHEN {_hash(col, 2)} % 100 < {col.null_pct} THEN NULL ELSE {expr} END"
    return f"{expr} AS {col.name}"


def table_sql(rel: Rel) -> str:
    cols = ",\n  ".join(value_sql(c, rel.rows) for c in rel.cols)
    return f"CREATE TABLE {rel.schema}.{rel.name} AS SELECT\n  {cols}\nFROM range({rel.rows}) t(i)"


def generate(w: Warehouse, path: Path, progress=None) -> float:
    """Write every source table of `w` into a fresh DuckDB file; returns seconds."""
    for stale in (path, path.with_name(path.name + ".wal")):
        stale.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    con = duckdb.connect(str(path))
    try:
        for name, value in DUCKDB_SETTINGS.items():
            con.execute(f"SET {name} = '{value}'")
        sources = [r for r in w.relations if not r.is_model]
        for schema in sorted({r.schema for r in sources}):
            con.execute(f"CREATE SCHEMA {schema}")
        for i, rel in enumerate(sources):
            con.execute(table_sql(rel))
            if progress and (i + 1) % 50 == 0:
                progress(f"generated {i + 1}/{len(sources)} tables")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return time.perf_counter() - start


def model_sql(w: Warehouse, rel: Rel) -> str:
    if rel.role == "staging":
        src = w.rel(rel.source)
        cols = ",\n  ".join(u if u == o else f"{u} as {o}" for u, o in rel.select)
        return f"select\n  {cols}\nfrom {{{{ source('{src.schema}', '{src.name}') }}}}\n"
    fact, fk, ent, key = rel.join
    outs = ",\n  ".join(u if u.startswith("e.") else f"f.{u}" for u, _ in rel.select)
    return (f"select\n  {outs}\nfrom {{{{ ref('{fact}') }}}} as f\n"
            f"join {{{{ ref('{ent}') }}}} as e on f.{fk} = e.{key}\n")


COUNT_MACRO = """
{% macro scalebench_count_all(hash=false) %}
  {# one plain full scan of every relation the profiler reads: count(c) of each column; with
     hash=true the hash floor instead: every value of the columns the profiler sketches hashed
     once (sum(hash(c))), the least an exact value sketch can cost #}
  {% set nodes = [] %}
  {% for node in graph.sources.values() %}{% do nodes.append(node) %}{% endfor %}
  {% for node in graph.nodes.values() if node.resource_type == 'model' and node.package_name == project_name %}
    {% do nodes.append(node) %}
  {% endfor %}
  {% for node in nodes %}
    {% set rel = adapter.get_relation(node.database, node.schema, node.identifier or node.alias or node.name) %}
    {% if rel is not none %}
      {% set exprs = [] %}
      {% for col in adapter.get_columns_in_relation(rel) %}
        {% if hash and dbt_schema_link.schema_link_sketch_values(col.dtype) %}
          {% do exprs.append('sum(hash(' ~ adapter.quote(col.name) ~ '))') %}
        {% else %}
          {% do exprs.append('count(' ~ adapter.quote(col.name) ~ ')') %}
        {% endif %}
      {% endfor %}
      {% do run_query('select ' ~ (exprs | join(', ')) ~ ' from ' ~ rel) %}
    {% endif %}
  {% endfor %}
  {{ log(('hashed ' if hash else 'counted ') ~ nodes | length ~ ' relations', info=True) }}
{% endmacro %}
{% macro scalebench_noop() %}{{ log('noop', info=True) }}{% endmacro %}
"""


def _dump(path: Path, data: object) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def write_project(w: Warehouse, project_dir: Path, duckdb_path: Path, repo_root: Path) -> Path:
    """The dbt project: sources (no tests, no descriptions), staging and mart models (views)."""
    (project_dir / "models" / "staging").mkdir(parents=True, exist_ok=True)
    (project_dir / "models" / "marts").mkdir(parents=True, exist_ok=True)
    (project_dir / "macros").mkdir(parents=True, exist_ok=True)
    _dump(project_dir / "dbt_project.yml", {
        "name": PROJECT, "version": "1.0.0", "config-version": 2, "profile": PROJECT,
        "model-paths": ["models"], "macro-paths": ["macros"],
        "models": {PROJECT: {"+materialized": "view"}},
    })
    pg = {"type": "postgres", "host": "{{ env_var('SCALEBENCH_PG_HOST', '127.0.0.1') }}",
          "port": "{{ env_var('SCALEBENCH_PG_PORT', '5432') | as_number }}",
          "user": "{{ env_var('SCALEBENCH_PG_USER', 'postgres') }}", "password": "",
          "dbname": "{{ env_var('SCALEBENCH_PG_DBNAME', 'bench') }}", "schema": "analytics", "threads": 1}
    _dump(project_dir / "profiles.yml", {PROJECT: {"target": "duckdb", "outputs": {
        "duckdb": {"type": "duckdb", "path": str(duckdb_path.resolve()), "threads": 1, "schema": "analytics",
                   "settings": dict(DUCKDB_SETTINGS)},
        "postgres": pg}}})
    _dump(project_dir / "packages.yml", {"packages": [{"local": str(repo_root.resolve())}]})
    (project_dir / "macros" / "scalebench.sql").write_text(COUNT_MACRO, encoding="utf-8")
    by_schema: dict[str, list[dict]] = {}
    for rel in w.relations:
        if not rel.is_model:
            by_schema.setdefault(rel.schema, []).append({"name": rel.name})
    _dump(project_dir / "models" / "sources.yml", {"version": 2, "sources": [
        {"name": s, "schema": s, "tables": tables} for s, tables in sorted(by_schema.items())]})
    for rel in w.relations:
        if rel.is_model:
            folder = "staging" if rel.role == "staging" else "marts"
            (project_dir / "models" / folder / f"{rel.name}.sql").write_text(model_sql(w, rel), encoding="utf-8")
    return project_dir


PG_TYPES = {"BIGINT": "bigint", "INTEGER": "integer", "VARCHAR": "text", "DOUBLE": "double precision",
            "DATE": "date", "BOOLEAN": "boolean"}


def export_csv(w: Warehouse, duckdb_path: Path, out_dir: Path) -> dict[str, Path]:
    """Every source table as a CSV file written by DuckDB itself (for PostgreSQL's COPY)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {}
    con = duckdb.connect(str(duckdb_path), read_only=True)
    try:
        for rel in w.relations:
            if rel.is_model:
                continue
            path = out_dir / f"{rel.schema}.{rel.name}.csv"
            con.execute(f"COPY (SELECT * FROM {rel.schema}.{rel.name}) TO '{path}' (HEADER false, DELIMITER ',')")
            files[rel.name] = path
    finally:
        con.close()
    return files


def pg_ddl(w: Warehouse) -> str:
    parts = [f"CREATE SCHEMA IF NOT EXISTS {s};" for s in sorted({r.schema for r in w.relations if not r.is_model})]
    for rel in w.relations:
        if rel.is_model:
            continue
        cols = ", ".join(f"{c.name} {PG_TYPES[c.sql_type]}" for c in rel.cols)
        parts.append(f"CREATE TABLE {rel.schema}.{rel.name} ({cols});")
    return "\n".join(parts)
