"""Haystack benchmark parts (benchmarks/haystack.py): the one dbt project holding the question
databases beside warehouse_large, the per-level scores, and the BM25 baseline."""
