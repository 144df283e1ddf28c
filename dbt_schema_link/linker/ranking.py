"""Best-first selection over large score arrays without sorting all of them."""

from __future__ import annotations

import numpy as np


def best_first(ids: np.ndarray, scores: np.ndarray, limit: int) -> list[int]:
    """`ids` by descending score, ties in their given order, cut after the `limit` best (ties at
    the cut are kept, so which of them come first never depends on the partial sort)."""
    neg = -np.asarray(scores, dtype=np.float64)
    if len(ids) > limit > 0:
        cut = np.partition(neg, limit - 1)[limit - 1]
        keep = neg <= cut
        ids, neg = ids[keep], neg[keep]
    return [int(i) for i in ids[np.argsort(neg, kind="stable")]]


def share_of_best(scores: np.ndarray) -> np.ndarray:
    """Scores as a share of the best one (unchanged when none is positive)."""
    best = float(scores.max()) if len(scores) else 0.0
    return scores / best if best > 0 else scores
