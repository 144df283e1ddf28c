"""Evaluation of the question-time linker on Spider/BIRD-style benchmarks (see harness.py)."""
