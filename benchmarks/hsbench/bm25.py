"""The BM25 router the product has to beat, over the same column documents as the product's
index (its column BM25 index: name, relation name, description, tags, sample values): a
database scores the sum of its best `DB_TOP_COLUMNS` column scores; an answer is the best
`ANSWER_COLUMNS` columns of the chosen (or given) database and their relations."""

from __future__ import annotations

import numpy as np

from dbt_schema_link.linker.localization import top_sum
from dbt_schema_link.linker.store import LinkIndex
from dbt_schema_link.linker.text import terms
from hsbench.score import Prediction

#: A database's score: the sum of its best this-many column scores (the issue's baseline).
DB_TOP_COLUMNS = 5
#: Columns in a baseline answer (the haystack target's column count).
ANSWER_COLUMNS = 10


class BM25Router:
    def __init__(self, index: LinkIndex):
        self.index = index
        groups = index.corpus.groups
        self.group_schema = [g.schema.lower() for g in groups]
        self.rel_name = [r.identifier.lower() for r in index.corpus.relations]
        self.col_name = [c.name.lower() for c in index.corpus.columns]

    def predict(self, question: str, hint: str | None, db: str | None) -> Prediction:
        bm = self.index.col_lex.score(terms(question if not hint else f"{question} {hint}"))
        scores = top_sum(bm, self.index.col_group, len(self.group_schema), DB_TOP_COLUMNS)
        ranked = [int(g) for g in np.argsort(-scores, kind="stable")[:3]]
        allowed = self.index.group_index(db) if db else ranked[:1]
        inside = np.flatnonzero(np.isin(self.index.col_group, np.asarray(allowed, dtype=np.int32)))
        best = inside[np.argsort(-bm[inside], kind="stable")[:ANSWER_COLUMNS]]
        rels = self.index.col_relation[best]
        chosen = self.group_schema[allowed[0]] if allowed else None
        return Prediction(chosen, tuple(self.group_schema[g] for g in ranked),
                          frozenset(self.rel_name[r] for r in rels),
                          frozenset((self.rel_name[r], self.col_name[c]) for r, c in zip(rels, best)))
