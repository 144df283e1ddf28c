"""Helpers for `benchmarks/fk_recovery.py` (join discovery against declared foreign keys).

Modules: `databases` (find the SQLite files, read declared FKs), `scoring` (pair sets →
precision/recall/F1), `duckdb_load` and `dbt_project` (build an FK-free dbt project),
`product` (run `dbt-schema-link` through its CLI and read links.json), `peer` and
`peer_runner` (the predecessor, `schema-linker` 0.0.5, in its own virtual environment),
`report` (table and JSON).
"""
