"""Score a set of found links against the declared FKs.

strict:  a found pair is a true positive when it is a declared FK pair.
lenient: also correct when both columns are FK columns referencing the same parent column
         (e.g. `orders.customer_id` ~ `invoices.customer_id`, both → `customers.id`): a real
         join path. Recall is always strict. Totals are micro-averaged (sums over databases).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable

from .databases import GroundTruth, Pair


@dataclass(frozen=True)
class Score:
    gold: int
    found: int
    tp: int
    lenient_tp: int

    @property
    def fp(self) -> int:
        return self.found - self.tp

    @property
    def fn(self) -> int:
        return self.gold - self.tp

    @property
    def precision(self) -> float | None:
        return self.tp / self.found if self.found else None

    @property
    def lenient_precision(self) -> float | None:
        return self.lenient_tp / self.found if self.found else None

    @property
    def recall(self) -> float | None:
        return self.tp / self.gold if self.gold else None

    @property
    def f1(self) -> float | None:
        if not self.gold and not self.found:
            return None
        denominator = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denominator if denominator else 0.0

    def __add__(self, other: "Score") -> "Score":
        return Score(self.gold + other.gold, self.found + other.found, self.tp + other.tp,
                     self.lenient_tp + other.lenient_tp)

    def to_dict(self) -> dict:
        return {**asdict(self), "fp": self.fp, "fn": self.fn, "precision": self.precision,
                "lenient_precision": self.lenient_precision, "recall": self.recall, "f1": self.f1}


def is_lenient_match(found: Pair, truth: GroundTruth, parents: dict | None = None) -> bool:
    """Both ends are FK columns that reference a common parent column."""
    if len(found) != 2:
        return False
    parents = truth.parents_of() if parents is None else parents
    a, b = tuple(found)
    return bool(parents.get(a, set()) & parents.get(b, set()))


def score(found: Iterable[Pair], truth: GroundTruth) -> Score:
    found_set = {p for p in found if len(p) == 2}
    gold = truth.pairs
    tp = len(found_set & gold)
    parents = truth.parents_of()
    extra = sum(1 for p in found_set - gold if is_lenient_match(p, truth, parents))
    return Score(gold=len(gold), found=len(found_set), tp=tp, lenient_tp=tp + extra)


def total(scores: Iterable[Score]) -> Score:
    out = Score(0, 0, 0, 0)
    for s in scores:
        out = out + s
    return out
