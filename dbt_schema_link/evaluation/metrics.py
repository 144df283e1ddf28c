"""Schema-linking metrics over (gold, answer) pairs."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dbt_schema_link.evaluation.gold import Gold


@dataclass
class QuestionResult:
    id: str
    db: str
    gold: Gold
    predicted_columns: set[tuple[str, str]]
    predicted_tables: set[str]
    predicted_db: str | None
    latency_ms: float
    tokens: int = 0
    spans: int = 0  # other units the answer uses besides its own

    @property
    def strict(self) -> bool:
        return self.gold.columns <= self.predicted_columns and self.gold.tables <= self.predicted_tables

    @property
    def column_recall(self) -> float:
        if not self.gold.columns:
            return 1.0 if self.gold.tables <= self.predicted_tables else 0.0
        return len(self.gold.columns & self.predicted_columns) / len(self.gold.columns)

    @property
    def table_recall(self) -> float:
        if not self.gold.tables:
            return 1.0
        return len(self.gold.tables & self.predicted_tables) / len(self.gold.tables)

    @property
    def precision(self) -> float | None:
        if not self.predicted_columns or not self.gold.columns:
            return None
        return len(self.gold.columns & self.predicted_columns) / len(self.predicted_columns)

    @property
    def missed(self) -> set[tuple[str, str]]:
        return self.gold.columns - self.predicted_columns


@dataclass
class Summary:
    name: str
    questions: int
    unresolved: int  # gold queries that could not be parsed/resolved (excluded)
    partial: int  # gold queries with some unresolved references (evaluated on the rest)
    strict_recall: float
    recall: float
    table_recall: float
    precision: float
    mean_columns: float
    localization: float | None
    latency_p50: float
    latency_p95: float
    mean_tokens: float
    extra: dict = field(default_factory=dict)

    def row(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "extra"}
        out.update(self.extra)
        return out


def summarize(name: str, results: list[QuestionResult], unresolved: int, partial: int,
              localization: bool = False) -> Summary:
    n = len(results)
    if n == 0:
        return Summary(name, 0, unresolved, partial, 0, 0, 0, 0, 0, None, 0, 0, 0)
    lat = np.asarray([r.latency_ms for r in results])
    precs = [p for p in (r.precision for r in results) if p is not None]
    loc = None
    if localization:
        loc = float(np.mean([(r.predicted_db or "").lower() == r.db.lower() for r in results]))
    return Summary(
        name=name,
        questions=n,
        unresolved=unresolved,
        partial=partial,
        strict_recall=float(np.mean([r.strict for r in results])),
        recall=float(np.mean([r.column_recall for r in results])),
        table_recall=float(np.mean([r.table_recall for r in results])),
        precision=float(np.mean(precs)) if precs else 0.0,
        mean_columns=float(np.mean([len(r.predicted_columns) for r in results])),
        localization=loc,
        latency_p50=float(np.percentile(lat, 50)),
        latency_p95=float(np.percentile(lat, 95)),
        mean_tokens=float(np.mean([r.tokens for r in results])),
        extra={"spanned": int(sum(1 for r in results if r.spans))},
    )
