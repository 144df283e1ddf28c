"""Helpers for `benchmarks/scale.py` (a synthetic warehouse of thousands of relations).

Modules: `spec` (the seeded warehouse description: relations, columns, value generators, planted
joins and traps), `duck` (S/M: data generated inside DuckDB with SQL, a dbt-duckdb project),
`metadata` (L: manifest.json, catalog.json and cached profiles written directly, with MinHash
signatures computed from the value sets the spec defines), `truth` (scoring found links against
the planted joins), `measure` (wall time and peak memory of a subprocess tree), `infer` (inference
from cached profiles, run in a subprocess), `pg` (the side-by-side on PostgreSQL), `report`.
"""
