"""The dirt benchmark's parts (see benchmarks/dirt.py): dirty copies of the dev databases, one
task per (variant, database), scores per variant and half."""
