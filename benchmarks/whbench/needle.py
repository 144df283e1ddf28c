"""Needle questions without gold questions: a random column that has a description becomes a
question made of that description alone (the data has no table descriptions), with the column's
and the table's names taken out; the answer should bring back the column, its table and its
database (the DuckDB schema).

Only descriptions that occur once in the whole warehouse are drawn (a description shared by many
columns, "Unique identifier", names no single needle); how many were left out is reported."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

from whbench.load import Table

#: Fewest characters a description keeps after names are taken out to make a question.
MIN_QUESTION_CHARS = 20


@dataclass(frozen=True)
class Needle:
    id: str
    question: str
    unique_id: str      # the table's dbt unique_id
    database: str       # the DuckDB schema
    column: str         # lower case


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _without_names(text: str, names: list[str]) -> str:
    for name in names:
        for form in {name, name.replace("_", " ")}:
            if len(form) >= 2:
                text = re.sub(rf"(?i)(?<![a-z0-9]){re.escape(form)}(?![a-z0-9])", " ", text)
    return " ".join(text.split())


def make_needles(tables: list[Table], n: int, seed: int = 18) -> tuple[list[Needle], dict]:
    counts = Counter(_normal(c.description) for t in tables for c in t.columns if c.description)
    pool = []
    for t in tables:
        for c in t.columns:
            if not c.description or counts[_normal(c.description)] != 1:
                continue
            question = _without_names(c.description, [c.name, t.identifier, t.identifier.split("__")[-1]])
            if len(question) >= MIN_QUESTION_CHARS:
                pool.append((t, c, question))
    described = sum(1 for t in tables for c in t.columns if c.description)
    rng = random.Random(seed)
    chosen = rng.sample(pool, min(n, len(pool)))
    needles = [Needle(f"n{i}", q, t.unique_id, t.database, c.name.lower()) for i, (t, c, q) in enumerate(chosen)]
    return needles, {"described_columns": described, "eligible": len(pool), "drawn": len(needles)}


def score(needles: list[Needle], answers: dict[str, dict], top: int) -> dict:
    """Recall of the column (within the answer's first `top` columns by score), its table (in the
    answer; first), its database (first-ranked group)."""
    hits = Counter()
    for needle in needles:
        a = answers.get(needle.id)
        if a is None:
            continue
        rels = a.get("relations") or []
        cols = sorted(((c.get("score") or 0.0, r.get("unique_id"), str(c.get("name", "")).lower())
                       for r in rels for c in r.get("columns") or []), key=lambda x: -x[0])[:top]
        hits["column_top"] += any(uid == needle.unique_id and name == needle.column for _, uid, name in cols)
        hits["column_any"] += any(r.get("unique_id") == needle.unique_id and
                                  any(str(c.get("name", "")).lower() == needle.column for c in r.get("columns") or [])
                                  for r in rels)
        hits["table_any"] += any(r.get("unique_id") == needle.unique_id for r in rels)
        hits["table_first"] += bool(rels) and rels[0].get("unique_id") == needle.unique_id
        hits["database_first"] += a.get("schema") == needle.database
        hits["n_columns"] += sum(len(r.get("columns") or []) for r in rels)
        hits["answered"] += 1
    n = max(1, len(needles))
    return {
        f"needle_column_top{top}": round(hits["column_top"] / n, 3),
        "needle_column_in_answer": round(hits["column_any"] / n, 3),
        "needle_table_in_answer": round(hits["table_any"] / n, 3),
        "needle_table_first": round(hits["table_first"] / n, 3),
        "needle_database_first": round(hits["database_first"] / n, 3),
        "needle_columns_per_answer": round(hits["n_columns"] / max(1, hits["answered"]), 1),
        "needles": len(needles), "needles_answered": hits["answered"],
    }
