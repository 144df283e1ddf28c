"""The relations an engine joins to look up value candidates (``schema_link_band_candidates``):
their column layout and the port that runs the join. Below discovery, so the profiling side
that runs the join in the warehouse (:mod:`.band_join`) and discovery's LSH bands
(:mod:`dbt_schema_link.discovery.bands`) share one definition."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: Column names of the three relations, in the order of the arrays' columns (and of the files the
#: ``schema_link_band_candidates`` macro reads).
PARENT_COLUMNS = ("parent_id", "part", "r", "band", "band_key", "width_rank")
CHILD_COLUMNS = ("child_id", "r", "band", "band_key")
QUERY_COLUMNS = ("child_id", "part", "r", "b", "need_rank")
HIT_COLUMNS = ("child_id", "part", "parent_id", "band_hits")


@dataclass(frozen=True, slots=True)
class BandTables:
    """The relations an engine joins to look up value candidates (int64 arrays, one row per row)."""

    parents: np.ndarray  # PARENT_COLUMNS: every indexed parent's bands, for each rows-per-band width
    children: np.ndarray  # CHILD_COLUMNS: each child's bands, for each width it reads
    queries: np.ndarray  # QUERY_COLUMNS: per child and partition read, the width and bands read
    max_bucket: int  # buckets of more parents than this are not read; 0: every bucket
    # partitions are read, smallest first, until ``cap`` usable parents are in hand (a parent is
    # usable by a child when its width rank is at least the child's need rank); 0: every partition
    cap: int = 0

    @property
    def rows(self) -> int:
        return len(self.parents) + len(self.children) + len(self.queries)


#: Runs the join of a BandTables in an engine: ``(child_id, part, parent_id, band_hits)`` rows.
BandJoin = Callable[[BandTables], np.ndarray]
