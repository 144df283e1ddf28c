"""BM25 over weighted document fields, stored as an inverted index of numpy arrays.

Scoring a query concatenates the postings of its terms and sums them with one `np.bincount`, so
question time does not loop over documents in Python and grows with the postings touched, not
with the number of documents.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

K1 = 1.2
B = 0.75


@dataclass
class LexicalIndex:
    vocab: dict[str, int]
    term_ptr: np.ndarray  # int64, len(vocab) + 1: postings of term t are [term_ptr[t], term_ptr[t+1])
    doc_ids: np.ndarray  # int32
    weights: np.ndarray  # float32 BM25 weight of the term in the document
    n_docs: int

    @classmethod
    def build(cls, docs: Iterable[Sequence[tuple[str, float]]], n_docs: int) -> "LexicalIndex":
        """`docs` yields, per document, (term, field weight) pairs."""
        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        tfs: list[float] = []
        lengths = np.zeros(n_docs, dtype=np.float64)
        for d, pairs in enumerate(docs):
            counts: Counter[str] = Counter()
            for term, weight in pairs:
                counts[term] += weight
            lengths[d] = sum(counts.values())
            for term, tf in counts.items():
                rows.append(d)
                cols.append(vocab.setdefault(term, len(vocab)))
                tfs.append(tf)
        row = np.asarray(rows, dtype=np.int32)
        col = np.asarray(cols, dtype=np.int64)
        tf = np.asarray(tfs, dtype=np.float64)
        avgdl = float(lengths.mean()) if n_docs else 1.0
        df = np.bincount(col, minlength=len(vocab)).astype(np.float64)
        idf = np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        norm = K1 * (1.0 - B + B * lengths[row] / max(avgdl, 1e-9)) if len(row) else np.zeros(0)
        weight = idf[col] * tf * (K1 + 1.0) / (tf + norm) if len(row) else np.zeros(0)
        order = np.argsort(col, kind="stable")
        term_ptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(col, minlength=len(vocab)), out=term_ptr[1:])
        return cls(vocab, term_ptr, row[order], weight[order].astype(np.float32), n_docs)

    def score(self, query_terms: Sequence[str]) -> np.ndarray:
        """BM25 score of every document (float32 array of n_docs); repeated terms count once."""
        ids = sorted({self.vocab[t] for t in query_terms if t in self.vocab})
        if not ids:
            return np.zeros(self.n_docs, dtype=np.float32)
        spans = [(self.term_ptr[t], self.term_ptr[t + 1]) for t in ids]
        docs = np.concatenate([self.doc_ids[a:b] for a, b in spans])
        weights = np.concatenate([self.weights[a:b] for a, b in spans])
        return np.bincount(docs, weights=weights, minlength=self.n_docs).astype(np.float32)

    def max_score(self, query_terms: Sequence[str]) -> float:
        """An upper bound used to normalise: the sum of each term's largest weight."""
        total = 0.0
        for t in {self.vocab[t] for t in query_terms if t in self.vocab}:
            a, b = self.term_ptr[t], self.term_ptr[t + 1]
            if b > a:
                total += float(self.weights[a:b].max())
        return total

    # persistence -----------------------------------------------------------------------------
    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        return {f"{prefix}term_ptr": self.term_ptr, f"{prefix}doc_ids": self.doc_ids,
                f"{prefix}weights": self.weights, f"{prefix}n_docs": np.asarray([self.n_docs])}

    @classmethod
    def from_arrays(cls, vocab: list[str], arrays, prefix: str) -> "LexicalIndex":
        return cls({t: i for i, t in enumerate(vocab)}, arrays[f"{prefix}term_ptr"], arrays[f"{prefix}doc_ids"],
                   arrays[f"{prefix}weights"], int(arrays[f"{prefix}n_docs"][0]))

    def vocab_list(self) -> list[str]:
        out = [""] * len(self.vocab)
        for term, i in self.vocab.items():
            out[i] = term
        return out
