"""Helpers for `benchmarks/saas.py` (join discovery on eight real SaaS connector schemas).

Modules: `split` (the fixed tuning / held-back split by package), `labels` (find the packages,
read `truth.json`), `project` (seeds → DuckDB, a sources-only dbt project, `dbt deps`,
`dbt docs generate`, the `link` command; reused with `--reuse`), `scoring` (verdict of every
found link, recall per label subset, precision strict and with allowance, confidence bands),
`report` (table and JSON). Running the CLI and reading links.json are fkbench's
(`fkbench.product`).
"""
