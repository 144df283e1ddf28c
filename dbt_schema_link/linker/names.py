"""How much of each column's (and relation's) name a question mentions: the name-coverage
evidence, and the postings the relation selection looks question words up in."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from dbt_schema_link.linker.store import LinkIndex
from dbt_schema_link.linker.text import spelled_out, terms


class NameIndex:
    """Name terms as postings: each name term carries 1/len(name terms), so a bincount gives
    the covered fraction."""

    def __init__(self, vocab, col_ptr, col_ids, col_w, rel_ptr, rel_ids, rel_w, n_cols, n_rels):
        self.vocab = vocab
        self.col = (col_ptr, col_ids, col_w)
        self.rel = (rel_ptr, rel_ids, rel_w)
        self.n_cols, self.n_rels = n_cols, n_rels

    @classmethod
    def build(cls, index: LinkIndex) -> "NameIndex":
        vocab: dict[str, int] = {}

        def postings(names: list[str], spelled: list[dict[str, str]]):
            rows, cols, ws = [], [], []
            for i, name in enumerate(names):
                ts = sorted(set(terms(name, drop_stop=False)))
                long = spelled[i]
                for t in ts:
                    # an abbreviated name term counts as the word its description spells out, too
                    for term in (t, long[t]) if t in long else (t,):
                        rows.append(i)
                        cols.append(vocab.setdefault(term, len(vocab)))
                        ws.append(1.0 / len(ts))
            return rows, cols, ws

        columns = index.corpus.columns
        c_rows, c_cols, c_w = postings([c.name for c in columns],
                                       [spelled_out(c.name, c.description) for c in columns])
        r_rows, r_cols, r_w = postings([r.short_name for r in index.corpus.relations],
                                       [{} for _ in index.corpus.relations])

        def pack(rows, cols, ws):
            cols_a = np.asarray(cols, dtype=np.int64)
            order = np.argsort(cols_a, kind="stable")
            ptr = np.zeros(len(vocab) + 1, dtype=np.int64)
            np.cumsum(np.bincount(cols_a, minlength=len(vocab)), out=ptr[1:])
            return ptr, np.asarray(rows, dtype=np.int32)[order], np.asarray(ws, dtype=np.float32)[order]

        return cls(vocab, *pack(c_rows, c_cols, c_w), *pack(r_rows, r_cols, r_w),
                   len(index.corpus.columns), len(index.corpus.relations))

    def _cover(self, ids: list[int], ptr, docs, ws, n: int) -> np.ndarray:
        spans = [(ptr[t], ptr[t + 1]) for t in ids if t + 1 < len(ptr)]
        if not spans:
            return np.zeros(n, np.float32)
        d = np.concatenate([docs[a:b] for a, b in spans])
        w = np.concatenate([ws[a:b] for a, b in spans])
        # a name term and its spelled-out word both in the question still cover the name once
        return np.minimum(np.bincount(d, weights=w, minlength=n), 1.0).astype(np.float32)

    def coverage(self, qterms: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        ids = sorted({self.vocab[t] for t in qterms if t in self.vocab})
        return (self._cover(ids, *self.col, self.n_cols), self._cover(ids, *self.rel, self.n_rels))

    def relations_named(self, term: str) -> np.ndarray:
        """Relations whose name has `term` (empty when no name has it)."""
        v = self.vocab.get(term)
        if v is None:
            return np.zeros(0, np.int32)
        ptr, docs, _ = self.rel
        return docs[ptr[v]:ptr[v + 1]]
