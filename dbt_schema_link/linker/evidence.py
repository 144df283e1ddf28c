"""Retrieval stage: one question's score vectors over every column and relation of the index
(dense cosine, BM25, name coverage, value hits), vectorised; the later stages only read them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dbt_schema_link.linker.lexicon import attribute_terms
from dbt_schema_link.linker.names import NameIndex
from dbt_schema_link.linker.ranking import share_of_best
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.store import LinkIndex
from dbt_schema_link.linker.text import question_terms
from dbt_schema_link.linker.values import ValueHit

_COUNT_RE = re.compile(r"\b(how many|number of|count|counts|total number)\b"
                       # "the most stores", "at least 3 manufacturers": a count compared
                       r"|\b(the most|the fewest|the least|(more|fewer) than \d+|at least \d+) (\w+ )?\w+s\b",
                       re.IGNORECASE)
#: Questions that ask for people ("Who are our top customers?"): a person's name parts are the label.
_PERSON_RE = re.compile(r"\b(who|whom|whose)\b", re.IGNORECASE)
#: Questions about a time grain or order in time ("per month", "each year", "over time", "latest")
#: need the relation's date column even when no word names it.
_GRAIN_RE = re.compile(
    r"\b((per|each|every|by|a|in|over|which|what) (day|week|month|quarter|year|date)s?|over time|daily|weekly|monthly|"
    r"quarterly|yearly|annual(ly)?|trend|latest|most recent|earliest|oldest|newest|"
    r"between \d{4}|in \d{4}|year over year|month over month|(last|this|past|previous) (day|week|month|quarter|year)s?)\b",
    re.IGNORECASE)


@dataclass
class Evidence:
    """Per-question score vectors over the whole index (or the allowed groups)."""

    col: np.ndarray  # fused column score
    dense: np.ndarray
    lex: np.ndarray
    name: np.ndarray
    value: np.ndarray
    value_hits: dict[int, ValueHit]
    rel: np.ndarray  # fused relation score
    rel_name: np.ndarray
    counts: bool = False  # the question asks how many
    time_grain: bool = False  # the question groups or orders by time (per month, latest, ...)
    loc: np.ndarray | None = None  # column score used for localization
    rel_loc: np.ndarray | None = None  # relation score used for localization
    terms: Sequence[str] = ()  # the question's (and hint's) terms
    persons: bool = False  # the question asks who: a person's name (first and last) is the label


def segment_max(values: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per segment (a relation's column range), the largest value; -inf for empty segments."""
    out = np.full(len(starts), -np.inf, dtype=np.float32)
    nonempty = counts > 0
    if len(values) and nonempty.any():
        out[nonempty] = np.maximum.reduceat(values, starts[nonempty])
    return out


class EvidenceStage:
    def __init__(self, index: LinkIndex, settings: LinkSettings):
        self.index = index
        self.settings = settings
        self.names = NameIndex.build(index)

    def gather(self, question: str, hint: str | None, qvec: np.ndarray | None,
               allowed_groups: Sequence[int] | None = None) -> Evidence:
        s, idx = self.settings, self.index
        n_cols = len(idx.corpus.columns)
        text = question if not hint else f"{question} {hint}"
        qterms = question_terms(text)
        qterms += [t for t in attribute_terms(text) if t not in qterms]  # "tallest" asks for a height
        if qvec is not None:
            dense = np.asarray(idx.col_vectors @ qvec, dtype=np.float32)
            rel_dense = np.asarray(idx.rel_vectors @ qvec, dtype=np.float32)
        else:
            dense = np.zeros(n_cols, np.float32)
            rel_dense = np.zeros(len(idx.corpus.relations), np.float32)
        lex = share_of_best(idx.col_lex.score(qterms))
        name_cov, rel_name = self.names.coverage(qterms)
        hits = {h.column: h for h in idx.values.match(text)}
        value = np.zeros(n_cols, np.float32)
        for c, h in hits.items():
            value[c] = h.strength
        col = s.w_dense * dense + s.w_lex * lex + s.w_name * name_cov + s.w_value * value
        persons = bool(_PERSON_RE.search(text))
        if s.w_label:
            named = rel_name[idx.col_relation] >= 0.5 if len(rel_name) else np.zeros(n_cols, bool)
            labels = idx.col_is_label & ~idx.col_is_name_part
            if persons:  # asked who, a person's name is the label, unless the question names a part
                spelled = segment_max((idx.col_is_name_part & (name_cov >= 1.0)).astype(np.float32),
                                      idx.rel_start, idx.rel_ncols)
                labels = labels | (idx.col_is_name_part & ~(spelled[idx.col_relation] > 0))
            col = col + s.w_label * (labels & named)
        if allowed_groups is not None:
            mask = np.isin(idx.col_group, np.asarray(list(allowed_groups), dtype=np.int32))
            col = np.where(mask, col, -np.inf).astype(np.float32)
        rlex = share_of_best(idx.rel_lex.score(qterms))
        best = segment_max(col, idx.rel_start, idx.rel_ncols)
        second = self._segment_second(col)
        rel = (s.r_dense * rel_dense + s.r_lex * rlex + s.r_name * rel_name + s.r_best_col * best
               + s.r_second_col * second)
        if allowed_groups is not None:
            rmask = np.isin(idx.rel_group, np.asarray(list(allowed_groups), dtype=np.int32))
            rel = np.where(rmask, rel, -np.inf)
        counts = bool(_COUNT_RE.search(text))
        loc = dense + s.l_lex * lex + s.l_name * name_cov + s.l_value * value
        if allowed_groups is not None:
            loc = np.where(mask, loc, -np.inf)
        loc = loc.astype(np.float32)
        rel_loc = (s.l_rel_dense * rel_dense + s.l_rel_lex * rlex + s.l_rel_name * rel_name
                   + segment_max(loc, idx.rel_start, idx.rel_ncols))
        return Evidence(col.astype(np.float32), dense, lex.astype(np.float32), name_cov, value, hits,
                        rel.astype(np.float32), rel_name, counts, bool(_GRAIN_RE.search(text)), loc,
                        rel_loc.astype(np.float32), qterms, persons)

    def _segment_second(self, col: np.ndarray) -> np.ndarray:
        """Second-best column score per relation (0 for one-column relations)."""
        idx = self.index
        best = segment_max(col, idx.rel_start, idx.rel_ncols)
        if not len(col):
            return best
        rel_of = idx.col_relation
        is_best = col >= best[rel_of]
        # drop one best per relation: take max over columns that are not the first argmax
        first = np.zeros(len(col), dtype=bool)
        order = np.flatnonzero(is_best)
        _, first_pos = np.unique(rel_of[order], return_index=True)
        first[order[first_pos]] = True
        masked = np.where(first, -np.inf, col).astype(np.float32)
        out = segment_max(masked, idx.rel_start, idx.rel_ncols)
        return np.where(np.isfinite(out), out, 0.0).astype(np.float32)
