"""The linker's fixtures (a real dbt-duckdb project with schemas `shop` and `school`, profiles with
values, the real embedding model), reused for the LLM stages."""

from tests.linker.conftest import embedder, two_schema_project  # noqa: F401  (pytest fixtures)
