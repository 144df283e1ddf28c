"""The fixed split of the eleven real projects: tune on the first half, report both.

Fixed in code before any result of `realproj.py` was seen, and never changed after. The eight SaaS
packages keep saasbench's split (`saasbench/split.py`), so figures of `saas.py` and `realproj.py`
on one half are about the same packages; the three dbt projects are split here.
"""

from __future__ import annotations

from saasbench.split import HALVES, Half  # noqa: F401  (re-exported: one Half for both benchmarks)
from saasbench.split import HELD_BACK as SAAS_HELD_BACK
from saasbench.split import TUNING as SAAS_TUNING
from saasbench.split import half_in

# FIXED. Never edit after seeing results (see the module docstring).
DBT_TUNING = ("jaffle_shop", "synthea_omop")
DBT_HELD_BACK = ("adventureworks_kimball",)

TUNING = DBT_TUNING + SAAS_TUNING
HELD_BACK = DBT_HELD_BACK + SAAS_HELD_BACK


def half_of(project: str) -> Half | None:
    """The half a project belongs to; None for a project outside the split."""
    return half_in(project, TUNING, HELD_BACK)
