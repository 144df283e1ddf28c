"""Database stage of the hierarchical retrieval (database → relation → column): which
localization unit (database/schema, or project) a question is about, with the runners-up.

A unit's score adds up independent kinds of evidence, each on its own scale:
- column support: its best retrieved columns' scores and its best relation's (MDB-Link's
  support-based reduction), plus how many of the globally retrieved columns it holds per
  sqrt(its size);
- term coverage: the idf-weighted share of the question's terms some column of the unit holds;
- the lexical router: the sum of the unit's best few column BM25 scores, as a share of the
  best unit's (a plain BM25 router is a strong localizer on long enterprise questions; here it
  is one feature of the product's ranking, not the ranking);
- the unit document: BM25 of the question against a schema summary (its relation names,
  relation descriptions and column names), as a share of the best unit's.

Superseded layers (a seed or staging model whose columns a downstream model passes through) give
no evidence: the question is about the table, and the unit holding its most downstream copy is
where to answer it. A schema of raw seeds never outranks the schema of the models built on them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from dbt_schema_link.linker.answer import Candidate
from dbt_schema_link.linker.lexical import LexicalIndex
from dbt_schema_link.linker.ranking import share_of_best
from dbt_schema_link.linker.store import LinkIndex
from dbt_schema_link.linker.text import terms

from dbt_schema_link.linker.settings import LinkSettings

if TYPE_CHECKING:
    from dbt_schema_link.linker.evidence import Evidence

def unit_documents(index: LinkIndex, s: LinkSettings) -> LexicalIndex:
    """One BM25 document per unit: the schema summary (field weights: the unit_* settings)."""
    corpus = index.corpus
    docs: list[list[tuple[str, float]]] = [[] for _ in corpus.groups]
    for rel in corpus.relations:
        if rel.superseded:
            continue
        doc = docs[rel.group]
        doc += [(t, s.unit_relation_name) for t in terms(rel.short_name, drop_stop=False)]
        if rel.description:
            doc += [(t, s.unit_relation_description * rel.description_weight) for t in terms(rel.description)]
        for col in corpus.columns[rel.col_start:rel.col_end]:
            doc += [(t, s.unit_column_name) for t in terms(col.name, drop_stop=False)]
    return LexicalIndex.build(docs, len(docs))


def top_sum(values: np.ndarray, groups: np.ndarray, n_groups: int, k: int) -> np.ndarray:
    """Per group, the sum of its best `k` positive values (`groups[i]`: the group of value i)."""
    hit = np.flatnonzero(values > 0)
    if not len(hit):
        return np.zeros(n_groups)
    g = groups[hit]
    order = np.lexsort((-values[hit], g))  # by group, best first inside it
    hit, g = hit[order], g[order]
    keep = np.arange(len(hit)) - np.searchsorted(g, g, side="left") < k
    return np.bincount(g[keep], weights=values[hit[keep]], minlength=n_groups)


def calibrated(scores: np.ndarray, temperature: float) -> np.ndarray:
    """The candidates' scores as chances that sum to 1 (a softmax at the temperature fitted on
    the haystack's tuning half: benchmarks/haystack.py prints the fit and its reliability)."""
    if not len(scores):
        return np.zeros(0)
    z = (scores - scores.max()) / max(temperature, 1e-6)
    e = np.exp(z)
    return e / e.sum()


class UnitRanker:
    def __init__(self, index: LinkIndex, settings: LinkSettings):
        self.index = index
        self.settings = settings
        self.col_current = ~index.rel_superseded[index.col_relation]  # columns that give evidence
        self.group_ncols = np.bincount(index.col_group[self.col_current], minlength=len(index.corpus.groups))
        self._documents: LexicalIndex | None = None  # built on first use: one-unit indexes never need it

    @property
    def documents(self) -> LexicalIndex:
        if self._documents is None:
            self._documents = unit_documents(self.index, self.settings)
        return self._documents

    def term_coverage(self, qterms: Sequence[str], n_groups: int) -> np.ndarray:
        """Per unit, the idf-weighted share of the question's terms some column document of the
        unit holds. Walks the postings of the question's terms only (as BM25 does)."""
        lex, idx = self.index.col_lex, self.index
        covered = np.zeros(n_groups, np.float64)
        total = 0.0
        for t in sorted({lex.vocab[t] for t in qterms if t in lex.vocab}):
            docs = lex.doc_ids[lex.term_ptr[t]:lex.term_ptr[t + 1]]
            units = np.unique(idx.col_group[docs[self.col_current[docs]]])
            if not len(units):
                continue
            weight = float(np.log(1.0 + n_groups / len(units)))
            covered[units] += weight
            total += weight
        return covered / total if total > 0 else covered

    def router(self, lex: np.ndarray, n_groups: int) -> np.ndarray:
        """Per unit, the sum of its best `router_columns` column BM25 scores (a share of the best unit's)."""
        lex = np.where(self.col_current, lex, 0.0)
        return share_of_best(top_sum(lex, self.index.col_group, n_groups, self.settings.router_columns))

    def support(self, ev: "Evidence", n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Column support: (score, retrieved-column count, best relation score) per unit."""
        s, idx = self.settings, self.index
        col = ev.loc if ev.loc is not None else ev.col
        finite = np.isfinite(col) & self.col_current
        k = min(s.retrieve_k, int(finite.sum()))
        if k == 0:
            return None
        top = np.argpartition(-np.where(finite, col, -1e9), k - 1)[:k]
        top = top[np.argsort(-col[top], kind="stable")]
        scores = np.zeros(n_groups, np.float64)
        support = np.zeros(n_groups, np.int64)
        taken = np.zeros(n_groups, np.int64)
        for c, g in zip(top, idx.col_group[top]):
            support[g] += 1
            if taken[g] < s.group_top_cols:
                scores[g] += float(col[c])
                taken[g] += 1
        rel_scores = ev.rel_loc if ev.rel_loc is not None else ev.rel
        rel = np.where(np.isfinite(rel_scores) & ~idx.rel_superseded, rel_scores, -np.inf)
        best_rel = np.full(n_groups, -np.inf)
        np.maximum.at(best_rel, idx.rel_group, rel)
        scores = scores / max(1, s.group_top_cols) + np.where(np.isfinite(best_rel), best_rel, 0.0)
        # a large schema does not win on sheer number of columns
        scores += s.l_coverage * support / np.sqrt(np.maximum(self.group_ncols, 1))
        return scores, support, best_rel

    def rank(self, ev: "Evidence") -> list[Candidate]:
        s, idx = self.settings, self.index
        n_groups = len(idx.corpus.groups)
        if n_groups == 0:
            return []
        found = self.support(ev, n_groups)
        if found is None:
            return []
        scores, support, best_rel = found
        if n_groups > 1:
            if s.l_term_cover:
                scores = scores + s.l_term_cover * self.term_coverage(ev.terms, n_groups)
            if s.l_router:
                scores = scores + s.l_router * self.router(ev.lex, n_groups)
            if s.l_unit_lex:
                scores = scores + s.l_unit_lex * share_of_best(self.documents.score(ev.terms).astype(np.float64))
        pruned = [g for g in np.argsort(-scores, kind="stable") if (support[g] > 0 or np.isfinite(best_rel[g]))
                  and np.isfinite(scores[g])]
        kept = pruned[: s.candidates]
        confidence = calibrated(scores[kept], s.unit_temperature)
        out = []
        for g, p in zip(kept, confidence):
            gd = idx.corpus.groups[g]
            out.append(Candidate(int(g), gd.key, gd.project, gd.database, gd.schema, float(scores[g]), int(support[g]),
                                 float(p)))
        return out
