"""Helpers for `benchmarks/realproj.py` (the user loop on real dbt projects, issue #61).

Modules: `split` (the fixed tuning / held-back split: three dbt projects + saasbench's split of
the eight SaaS packages), `projects` (find the eleven projects, copy them into the work dir with
their `_deps`, write a DuckDB profiles.yml where one is missing, the reuse stamp and pristine
snapshot), `loop` (the commands a user runs, each timed and logged: dbt deps / seed / build /
docs generate, then `dbt-schema-link init`, `link`, `write`, `dbt test -s tag:schema_link`,
`link` again, `link --check`, `index`), `links` (links.json read with full dbt unique ids, and
its lineage links), `judge` (the verdict of every found link and the labels found: labels.json
records for the dbt projects, truth.json source-column labels through lineage for the SaaS
packages), `report` (tallies, printed tables, JSON).
"""
