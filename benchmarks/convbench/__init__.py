"""Helpers for `benchmarks/conventions.py` (join discovery under other naming conventions).

Modules: `naming` (the conventions: a database's names → new names), `generate` (write the
renamed SQLite copy, declared FKs renamed as the truth), `split` (the fixed tuning / held-back
halves), `runner` (prepare a dbt project per convention and database once, rerun `link`
cheaply), `report` (scores per convention and half, the reliability table, the candidate dump).
The dbt project, DuckDB load, scoring and links.json reading are fkbench's.
"""
