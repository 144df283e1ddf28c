"""Which relations an answer may come from: the chosen unit's (the most downstream copy of each
table), plus those of other units the question spans through a confident link."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from dbt_schema_link.linker.answer import Candidate
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.store import LinkIndex


class SpanStage:
    def __init__(self, index: LinkIndex, settings: LinkSettings):
        self.index = index
        self.settings = settings

    def span_units(self, candidates: Sequence[Candidate]) -> list[int]:
        """Units the answer may add to the best one: other candidates the question's evidence
        points at nearly as strongly, joined to the best unit by a confident link."""
        s = self.settings
        if not candidates or s.max_spans < 1:
            return []
        top = candidates[0]
        linked = self.index.graph.unit_links.get(top.group, {})
        out = []
        for c in candidates[1:]:
            if linked.get(c.group, 0.0) >= s.span_confidence and top.score > 0 \
                    and c.score >= s.span_ratio * top.score:
                out.append(c.group)
        return out[: s.max_spans]

    def group_relations(self, group: int) -> tuple[np.ndarray, np.ndarray]:
        """The group's relations, and those to answer from: the most downstream copy of a table,
        superseded layers only when nothing else is left."""
        idx = self.index
        in_group = np.flatnonzero(idx.rel_group == group)
        current = in_group[~idx.rel_superseded[in_group]]
        return in_group, (current if len(current) else in_group)

    def pool(self, group: int, spans: Sequence[int]) -> np.ndarray:
        """Relations to answer from: the unit's, and those of spanned units whose name the unit
        does not already have (a same-named table elsewhere is an alternative, not a complement)."""
        _, rels = self.group_relations(group)
        if not spans:
            return rels
        corpus = self.index.corpus
        own = {corpus.relations[r].short_name.lower() for r in rels.tolist()}
        extra = [r for u in spans for r in self.group_relations(u)[1].tolist()
                 if corpus.relations[r].short_name.lower() not in own]
        return np.concatenate([rels, np.asarray(extra, dtype=rels.dtype)]) if extra else rels
