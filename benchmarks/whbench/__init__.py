"""warehouse_large benchmark parts: load the JSON databases into DuckDB as a dbt project, make
needle questions from column descriptions and score the answers."""
