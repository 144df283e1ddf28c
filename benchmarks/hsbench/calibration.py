"""The temperature that turns the product's candidate-unit scores into confidences: fitted on
the tuning half (least Brier score of the first candidate's confidence against whether it is the
gold database), checked on the held-back half (Brier, expected calibration error, and how often
the answer is right when it says it is sure)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dbt_schema_link.linker.localization import calibrated

#: Temperatures tried (log-spaced; the scores are sums of shares and cosines, about 0-5).
GRID = tuple(float(t) for t in np.geomspace(0.02, 2.0, 41))
#: Confidence bins of the expected calibration error.
BINS = 5


@dataclass(frozen=True)
class Sample:
    scores: tuple[float, ...]  # the candidates', best first
    right: bool  # the first candidate is the gold database


@dataclass(frozen=True)
class Reliability:
    questions: int
    brier: float
    ece: float
    sure_share: float  # answers at or above the sure bar
    sure_accuracy: float  # ... and how often they are right
    unsure_accuracy: float

    def line(self) -> str:
        return (f"{self.questions:>5} brier {self.brier:.3f}  ece {self.ece:.3f}  sure {self.sure_share:.3f} "
                f"(right {self.sure_accuracy:.3f})  unsure right {self.unsure_accuracy:.3f}")


def top_confidence(samples: list[Sample], temperature: float) -> tuple[np.ndarray, np.ndarray]:
    conf = np.asarray([calibrated(np.asarray(s.scores), temperature)[0] if s.scores else 0.0 for s in samples])
    return conf, np.asarray([s.right for s in samples], dtype=float)


def fit(samples: list[Sample]) -> float:
    def brier(t: float) -> float:
        conf, right = top_confidence(samples, t)
        return float(np.mean((conf - right) ** 2))
    return min(GRID, key=brier)


def reliability(samples: list[Sample], temperature: float, sure: float) -> Reliability:
    conf, right = top_confidence(samples, temperature)
    if not len(conf):
        return Reliability(0, 0, 0, 0, 0, 0)
    bins = np.minimum((conf * BINS).astype(int), BINS - 1)
    ece = sum(abs(conf[bins == b].mean() - right[bins == b].mean()) * (bins == b).mean()
              for b in range(BINS) if (bins == b).any())
    is_sure = conf >= sure
    mean = lambda a: float(a.mean()) if len(a) else 0.0  # noqa: E731
    return Reliability(len(conf), float(np.mean((conf - right) ** 2)), float(ece), mean(is_sure),
                       mean(right[is_sure]), mean(right[~is_sure]))
