"""Helpers of the question-linking benchmark (benchmarks/question_linking.py): link diagnostics
for the inferred condition, miss categories, and generated variants of the dev databases."""
