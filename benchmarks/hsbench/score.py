"""Per-level scores of one system on one question set: database (the answer's database is the
gold one; the gold one among the first three), relation (share of gold tables; all of them) and
column (non-strict: share of gold columns; strict: all gold columns and tables), with the mean
column count. With the database left open, relations and columns count only from an answer in
the gold database (the same table name in a distractor database is not the gold table)."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean

from dbt_schema_link.evaluation.gold import Gold


@dataclass(frozen=True)
class Prediction:
    """One system's answer to one question, names lower case."""

    db: str | None
    top_dbs: tuple[str, ...]
    tables: frozenset[str]
    columns: frozenset[tuple[str, str]]
    scores: tuple[float, ...] = ()  # the candidate units' scores, best first (the product's)


@dataclass(frozen=True)
class Asked:
    id: str
    db: str  # lower case
    gold: Gold


@dataclass(frozen=True)
class Figures:
    questions: int
    localization: float
    top3: float
    table_recall: float
    table_strict: float
    recall: float
    strict: float
    columns: float

    def cells(self) -> str:
        return (f"{self.questions:>5} {self.localization:>6.3f} {self.top3:>6.3f} {self.table_recall:>7.3f} "
                f"{self.table_strict:>7.3f} {self.recall:>7.3f} {self.strict:>7.3f} {self.columns:>6.2f}")


HEADER = f"{'qs':>5} {'loc':>6} {'top3':>6} {'tables':>7} {'tbl_all':>7} {'recall':>7} {'strict':>7} {'cols':>6}"


def _one(a: Asked, p: Prediction) -> tuple[float, ...]:
    right_db = (p.db or "") == a.db
    tables = p.tables if right_db else frozenset()
    columns = p.columns if right_db else frozenset()
    gold_t, gold_c = a.gold.tables, a.gold.columns
    t_share = len(gold_t & tables) / len(gold_t) if gold_t else 1.0
    c_share = len(gold_c & columns) / len(gold_c) if gold_c else float(gold_t <= tables)
    return (float(right_db), float(a.db in p.top_dbs[:3]), t_share, float(gold_t <= tables), c_share,
            float(gold_c <= columns and gold_t <= tables), float(len(p.columns)))


def figures(asked: list[Asked], predicted: dict[str, Prediction]) -> Figures:
    rows = [_one(a, predicted[a.id]) for a in asked if a.id in predicted]
    if not rows:
        return Figures(0, 0, 0, 0, 0, 0, 0, 0)
    return Figures(len(rows), *(fmean(col) for col in zip(*rows)))
