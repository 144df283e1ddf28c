"""Question → databases, models, columns and joins, after MDB-Link's hierarchical reduction:

1. retrieve: score every column (dense cosine, BM25, name coverage, value hits), vectorised;
2. localize: group column evidence by database/schema with support-based pruning, keep a short
   list of candidate groups and say when unsure;
3. select models within the group (relation text + its best columns);
4. ground columns (descriptions and values count as much as names);
5. complete joins: a Steiner tree over the join graph adds bridge models and key columns;
then the renderer fits it into the token budget.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.linker.answer import Answer, Candidate, ColumnPick, JoinPick, RelationPick
from dbt_schema_link.linker.embedder import Embedder
from dbt_schema_link.linker.hook import LinkerHook
from dbt_schema_link.linker.localization import UnitRanker
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.ranking import best_first
from dbt_schema_link.linker.store import LinkIndex
from dbt_schema_link.linker.text import question_terms, spelled_out, terms
from dbt_schema_link.linker.values import ValueHit


#: Entering a bridge relation costs 1 - BRIDGE_COST_SPAN (best scored) to 1 (worst) in join completion.
BRIDGE_COST_SPAN = 0.5
_COUNT_RE = re.compile(r"\b(how many|number of|count|counts|total number)\b", re.IGNORECASE)
#: Questions about a time grain or order in time ("per month", "each year", "over time", "latest")
#: need the relation's date column even when no word names it.
_GRAIN_RE = re.compile(
    r"\b((per|each|every|by|a|in|over|which|what) (day|week|month|quarter|year|date)s?|over time|daily|weekly|monthly|"
    r"quarterly|yearly|annual(ly)?|trend|latest|most recent|earliest|oldest|newest|"
    r"between \d{4}|in \d{4}|year over year|month over month)\b", re.IGNORECASE)
#: Column types and names (dates are often stored as text) that hold a point in time.
_TEMPORAL_TYPE_RE = re.compile(r"date|time", re.IGNORECASE)
_TEMPORAL_NAME_RE = re.compile(r"(^|_)(date|day|time|timestamp|ts)($|_)|_(at|on|dt)$|^(created|updated|ordered|opened)",
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


def _is_temporal(column) -> bool:
    """A date/time type, or a name that says so (dates are often stored as text)."""
    if column.data_type and _TEMPORAL_TYPE_RE.search(column.data_type):
        return True
    return bool(_TEMPORAL_NAME_RE.search(column.name)) and "bool" not in (column.data_type or "").lower()


def _segment_max(values: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    out = np.full(len(starts), -np.inf, dtype=np.float32)
    nonempty = counts > 0
    if len(values) and nonempty.any():
        out[nonempty] = np.maximum.reduceat(values, starts[nonempty])
    return out


class Linker:
    def __init__(self, index: LinkIndex, embedder: Embedder | None, settings: LinkSettings = LinkSettings()):
        self.index = index
        self.settings = settings
        use_dense = embedder is not None and index.has_vectors and index.model == embedder.name
        self.embedder = embedder if use_dense else None
        self.retrieval = "dense+lexical+values" if self.embedder else "lexical+values"
        self._name_index = _NameIndex.build(index)
        self.units = UnitRanker(index, settings)  # the database stage
        self.hook: LinkerHook | None = None  # optional question-time stages (linker/hook.py); None: offline

    # ---------------------------------------------------------------------------------------
    def embed_questions(self, texts: Sequence[str]) -> np.ndarray | None:
        if self.embedder is None:
            return None
        return self.embedder.encode(list(texts), batch_size=64)

    def evidence(self, question: str, hint: str | None, qvec: np.ndarray | None,
                 allowed_groups: Sequence[int] | None = None) -> Evidence:
        s, idx = self.settings, self.index
        n_cols = len(idx.corpus.columns)
        text = question if not hint else f"{question} {hint}"
        qterms = question_terms(text)
        if qvec is not None:
            dense = np.asarray(idx.col_vectors @ qvec, dtype=np.float32)
            rel_dense = np.asarray(idx.rel_vectors @ qvec, dtype=np.float32)
        else:
            dense = np.zeros(n_cols, np.float32)
            rel_dense = np.zeros(len(idx.corpus.relations), np.float32)
        bm = idx.col_lex.score(qterms)
        best_bm = float(bm.max()) if len(bm) else 0.0
        lex = bm / best_bm if best_bm > 0 else bm
        name_cov, rel_name = self._name_index.coverage(qterms)
        hits = {h.column: h for h in idx.values.match(text)}
        value = np.zeros(n_cols, np.float32)
        for c, h in hits.items():
            value[c] = h.strength
        col = s.w_dense * dense + s.w_lex * lex + s.w_name * name_cov + s.w_value * value
        if s.w_label:
            named = rel_name[idx.col_relation] >= 0.5 if len(rel_name) else np.zeros(n_cols, bool)
            col = col + s.w_label * (idx.col_is_label & named)
        if allowed_groups is not None:
            mask = np.isin(idx.col_group, np.asarray(list(allowed_groups), dtype=np.int32))
            col = np.where(mask, col, -np.inf).astype(np.float32)
        rbm = idx.rel_lex.score(qterms)
        best_rbm = float(rbm.max()) if len(rbm) else 0.0
        rlex = rbm / best_rbm if best_rbm > 0 else rbm
        best = _segment_max(col, idx.rel_start, idx.rel_ncols)
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
                   + _segment_max(loc, idx.rel_start, idx.rel_ncols))
        return Evidence(col.astype(np.float32), dense, lex.astype(np.float32), name_cov, value, hits,
                        rel.astype(np.float32), rel_name, counts, bool(_GRAIN_RE.search(text)), loc,
                        rel_loc.astype(np.float32), qterms)

    def _segment_second(self, col: np.ndarray) -> np.ndarray:
        """Second-best column score per relation (0 for one-column relations)."""
        idx = self.index
        best = _segment_max(col, idx.rel_start, idx.rel_ncols)
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
        out = _segment_max(masked, idx.rel_start, idx.rel_ncols)
        return np.where(np.isfinite(out), out, 0.0).astype(np.float32)

    # ---------------------------------------------------------------------------------------
    def localize(self, ev: Evidence) -> list[Candidate]:
        return self.units.rank(ev)

    # ---------------------------------------------------------------------------------------
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

    def _pool(self, group: int, spans: Sequence[int]) -> np.ndarray:
        """Relations to answer from: the unit's, and those of spanned units whose name the unit
        does not already have (a same-named table elsewhere is an alternative, not a complement)."""
        _, rels = self._group_relations(group)
        if not spans:
            return rels
        corpus = self.index.corpus
        own = {corpus.relations[r].short_name.lower() for r in rels.tolist()}
        extra = [r for u in spans for r in self._group_relations(u)[1].tolist()
                 if corpus.relations[r].short_name.lower() not in own]
        return np.concatenate([rels, np.asarray(extra, dtype=rels.dtype)]) if extra else rels

    def select(self, ev: Evidence, group: int, spans: Sequence[int] = ()) \
            -> tuple[list[int], list[int], dict[int, list[int]], list[int], list[int]]:
        """Terminal relations, all relations (terminals + bridges), their columns, tree edges and
        unjoined terminals. `spans`: other units the answer may use (`span_units`); a spanned
        unit's relations that no link joins to the answer are dropped again."""
        s, idx = self.settings, self.index
        in_group, _ = self._group_relations(group)
        if not len(in_group):
            return [], [], {}, [], []
        rels = self._pool(group, spans)
        pool = set(rels.tolist())  # superseded layers only where nothing else is left
        rscore = ev.rel[rels]
        order = rels[np.argsort(-rscore, kind="stable")]
        best = float(ev.rel[order[0]])
        floor = best * s.relation_ratio if best > 0 else best
        terminals = [int(order[0])]
        for r in order[1:]:
            if len(terminals) >= s.max_relations:
                break
            if float(ev.rel[r]) >= floor:
                terminals.append(int(r))
        # relations owning the group's best columns (column evidence can name a model whose
        # own text does not match the question)
        if s.seed_columns > 0:
            member = np.zeros(len(idx.rel_group), dtype=bool)
            member[rels] = True
            cols = np.flatnonzero(member[idx.col_relation])
            for c in best_first(cols, ev.col[cols], s.seed_columns)[: s.seed_columns]:
                r = int(idx.col_relation[c])
                if r not in terminals and len(terminals) < s.max_relations:
                    terminals.append(r)
        if s.named_relations > 0:
            self._add_named(ev, pool, terminals)
        # strong literal evidence pulls its relation in, unless a selected relation explains the
        # word already: it holds the value too, or the word is part of its name (a table, not a value)
        strong = [(c, hit) for c, hit in ev.value_hits.items() if hit.strength >= 0.9]
        held = {hit.literal for c, hit in strong if int(idx.col_relation[c]) in terminals}
        named_words = self._name_words(terminals)
        for c, hit in sorted(strong, key=lambda kv: -kv[1].strength):
            r = int(idx.col_relation[c])
            if hit.literal in held or set(terms(hit.literal, drop_stop=False)) <= named_words:
                continue
            if r in pool and r not in terminals and len(terminals) < s.max_relations + 1:
                terminals.append(r)
        used = sorted({int(idx.rel_group[r]) for r in terminals} - {group})
        chosen, tree, unjoined = self.complete_joins(ev, group, terminals, used)
        if used:
            # a spanned unit stays only where a link joins its relations to the answer
            lone = {int(idx.rel_group[r]) for r in unjoined} - {group}
            keep = [u for u in used if u not in lone or any(int(idx.rel_group[r]) == u and r not in unjoined
                                                           for r in terminals)]
            if keep != used:
                terminals = [r for r in terminals if int(idx.rel_group[r]) == group or int(idx.rel_group[r]) in keep]
                chosen, tree, unjoined = self.complete_joins(ev, group, terminals, keep)
        columns = self._ground(ev, chosen, set(terminals), tree)
        return terminals, chosen, columns, tree, unjoined

    def _name_words(self, relations: Iterable[int]) -> set[str]:
        rels = self.index.corpus.relations
        return {t for r in relations for t in terms(rels[r].short_name, drop_stop=False)}

    def _add_named(self, ev: Evidence, pool: set[int], terminals: list[int]) -> None:
        """Append (in place) relations of the pool that a question word names when no terminal's
        name has that word: the best-scored relation per word, `named_relations` at most."""
        s, names = self.settings, self._name_index
        covered = self._name_words(terminals)
        ptr, docs, _ = names.rel
        added = 0
        for t in dict.fromkeys(ev.terms):
            if added >= s.named_relations or len(terminals) >= s.max_relations:
                return
            v = names.vocab.get(t)
            if t in covered or v is None:
                continue
            named = [int(r) for r in docs[ptr[v]:ptr[v + 1]] if int(r) in pool and int(r) not in terminals]
            if named:
                best = max(named, key=lambda r: (float(ev.rel[r]), -r))
                terminals.append(best)
                covered |= self._name_words([best])
                added += 1

    def _group_relations(self, group: int) -> tuple[np.ndarray, np.ndarray]:
        """The group's relations, and those to answer from: the most downstream copy of a table,
        superseded layers only when nothing else is left."""
        idx = self.index
        in_group = np.flatnonzero(idx.rel_group == group)
        current = in_group[~idx.rel_superseded[in_group]]
        return in_group, (current if len(current) else in_group)

    def complete_joins(self, ev: Evidence, group: int, terminals: list[int], spans: Sequence[int] = ()) \
            -> tuple[list[int], list[int], list[int]]:
        """Terminals plus the bridge relations of a near-minimal join tree, the tree's edges, and
        the terminals it could not join. Only the relations of `group` and of the spanned units
        are searched, and a link between two units only at `span_confidence` or above. Bridges
        the question scores well cost less to enter; superseded relations keep the default cost
        of 1 (used only when nothing else joins)."""
        rels = self._pool(group, spans)
        chosen = list(terminals)
        if not len(rels):
            return chosen, [], []
        scores = ev.rel[rels].astype(np.float64)
        lo, hi = float(scores.min()), float(scores.max())
        node_cost = dict(zip(rels.tolist(), (BRIDGE_COST_SPAN * (1.0 - (scores - lo) / max(hi - lo, 1e-6))).tolist()))
        tree, unjoined = self.index.graph.steiner_tree(terminals, node_cost, self.settings.max_path_cost,
                                                       units=[group, *spans],
                                                       min_cross_confidence=self.settings.span_confidence)
        for e in tree:
            for n in self.index.graph.endpoints(e):
                if n not in chosen:
                    chosen.append(n)
        return chosen, tree, unjoined

    def join_keys(self, chosen: list[int], tree: list[int]) -> dict[int, list[int]]:
        """Per chosen relation, its columns on the join tree (both sides of every edge)."""
        idx = self.index
        keys: dict[int, list[int]] = {r: [] for r in chosen}
        for e in tree:
            for c in (c for pair in idx.graph.edges[e].column_pairs() for c in pair):
                r = int(idx.col_relation[c])
                if c not in keys[r]:
                    keys[r].append(c)
        return keys

    def _ground(self, ev: Evidence, chosen: list[int], terminals: set[int], tree: list[int]) -> dict[int, list[int]]:
        s, idx = self.settings, self.index
        picked = self.join_keys(chosen, tree)
        if s.count_key and ev.counts and terminals:
            top = max(terminals, key=lambda r: (float(ev.rel_name[r]), float(ev.rel[r])))
            pk = [c for c in range(int(idx.rel_start[top]), int(idx.rel_start[top] + idx.rel_ncols[top])) if idx.col_is_pk[c]]
            if len(pk) == 1 and pk[0] not in picked[top]:
                picked[top].append(pk[0])
        if s.time_key and ev.time_grain and terminals:
            self._add_time_column(ev, terminals, picked)
        n_keys = sum(len(v) for v in picked.values()) if s.keys_in_budget else 0
        # candidate non-key columns of terminal relations, by score (and, for the budget fill
        # only, a bridge's columns that have evidence of their own)
        cands: list[tuple[float, int, int]] = []
        bridged: list[tuple[float, int, int]] = []
        best_overall = -np.inf
        for r in chosen:
            a, b = int(idx.rel_start[r]), int(idx.rel_start[r] + idx.rel_ncols[r])
            for c in range(a, b):
                if c in picked[r]:
                    continue
                sc = float(ev.col[c])
                if r in terminals or ev.value[c] > 0:
                    cands.append((sc, r, c))
                    best_overall = max(best_overall, sc)
                elif s.fill_bridges and self._has_evidence(ev, c):
                    bridged.append((sc, r, c))
        cands.sort(key=lambda t: (-t[0], t[2]))
        floor = best_overall * s.column_ratio if best_overall > 0 else best_overall
        budget = max(0, self.column_budget(len(terminals)) - n_keys)
        per_rel = {r: 0 for r in chosen}
        # 1) the best column of every terminal relation
        for sc, r, c in cands:
            if r in terminals and per_rel[r] == 0 and budget > 0:
                picked[r].append(c)
                per_rel[r] += 1
                budget -= 1
        # 2) fill by score, above the floor
        for sc, r, c in cands:
            if budget <= 0:
                break
            if c in picked[r] or per_rel[r] >= s.per_relation or sc < floor:
                continue
            picked[r].append(c)
            per_rel[r] += 1
            budget -= 1
        # 3) the budget left goes to columns with evidence of their own: below the floor, past the
        # per-relation cap (wide tables) and on bridges
        if s.fill_budget:
            for sc, r, c in sorted(cands + bridged, key=lambda t: (-t[0], t[2])):
                if budget <= 0:
                    break
                if c in picked[r] or per_rel[r] >= s.fill_per_relation or not self._has_evidence(ev, c):
                    continue
                picked[r].append(c)
                per_rel[r] += 1
                budget -= 1
        return picked

    def column_budget(self, n_terminals: int) -> int:
        """max_columns, grown by wide_columns per terminal relation from the wide_relations-th
        on (a question whose evidence spans many relations needs more columns), at most
        wide_max_columns."""
        s = self.settings
        extra = s.wide_columns * max(0, n_terminals - s.wide_relations + 1)
        return max(s.max_columns, min(s.max_columns + extra, s.wide_max_columns))

    def _has_evidence(self, ev: Evidence, c: int) -> bool:
        s = self.settings
        return bool(ev.name[c] >= s.fill_name or ev.lex[c] >= s.fill_lex or ev.value[c] > 0)

    def _add_time_column(self, ev: Evidence, terminals: set[int], picked: dict[int, list[int]]) -> None:
        """The best-scoring date/timestamp column (by type or by name) of the best terminal
        relation that has one, unless a picked column already is one."""
        idx, corpus = self.index, self.index.corpus
        for r in sorted(terminals, key=lambda r: (-float(ev.rel_name[r]), -float(ev.rel[r]), r)):
            cols = range(int(idx.rel_start[r]), int(idx.rel_start[r] + idx.rel_ncols[r]))
            temporal = [c for c in cols if _is_temporal(corpus.columns[c])]
            if not temporal:
                continue
            if not any(c in temporal for c in picked[r]):
                picked[r].append(max(temporal, key=lambda c: (float(ev.col[c]), -c)))
            return

    # ---------------------------------------------------------------------------------------
    def link(self, question: str, hint: str | None = None, db: str | None = None,
             qvec: np.ndarray | None = None, id: str | int | None = None) -> Answer:
        start = time.perf_counter()
        question = (question or "").strip()
        if not question:
            raise SchemaLinkError("the question is empty: pass the question text")
        allowed = None
        if db:
            allowed = self.index.group_index(db)
            if not allowed:
                raise SchemaLinkError(f"no indexed database/schema/project is named {db!r}: "
                                      f"use one of the group names in `ask --format json` candidates")
        if qvec is None and self.embedder is not None:
            qvec = self.embed_questions([question if not hint else f"{question} {hint}"])[0]
        ev = self.evidence(question, hint, qvec, allowed)
        run = self.hook.start(self, question, hint, ev) if self.hook is not None else None
        candidates = self.localize(ev)
        if run is not None:
            candidates = run.rerank(candidates)
        if not candidates:
            answer = Answer(id, question, hint, [], False, [], [], [], self.retrieval)
            if run is not None:
                run.finish(answer)
            answer.latency_ms = (time.perf_counter() - start) * 1000
            return answer
        unsure = len(candidates) > 1 and candidates[0].confidence < self.settings.sure_confidence
        picked = run.select(candidates[0].group) if run is not None else None
        spans = self.span_units(candidates)
        terminals, chosen, columns, tree, unjoined = picked or self.select(ev, candidates[0].group, spans)
        answer = self._answer(id, question, hint, candidates, unsure, ev, terminals, chosen, columns, tree, unjoined)
        used = {int(self.index.rel_group[r]) for r in chosen} - {candidates[0].group}
        answer.spans = [c for c in candidates if c.group in used]
        answer.scores = ev.col
        if run is not None:
            run.finish(answer)
        answer.latency_ms = (time.perf_counter() - start) * 1000
        return answer

    def link_many(self, items: Iterable[dict], chunk: int = 64) -> Iterator[Answer]:
        """Batch linking: questions embedded `chunk` at a time, the model loaded once."""
        buffer: list[dict] = []
        for item in items:
            buffer.append(item)
            if len(buffer) >= chunk:
                yield from self._link_chunk(buffer)
                buffer = []
        if buffer:
            yield from self._link_chunk(buffer)

    def _link_chunk(self, items: list[dict]) -> Iterator[Answer]:
        start = time.perf_counter()
        texts = [f"{it['question']} {it['hint']}" if it.get("hint") else it["question"] for it in items]
        vecs = self.embed_questions(texts)
        share = (time.perf_counter() - start) * 1000 / max(1, len(items))
        for i, it in enumerate(items):
            ans = self.link(it["question"], it.get("hint"), it.get("db"), None if vecs is None else vecs[i], it.get("id"))
            ans.latency_ms += share
            yield ans

    # ---------------------------------------------------------------------------------------
    def _answer(self, id, question, hint, candidates, unsure, ev: Evidence, terminals, chosen, columns, tree,
                unjoined) -> Answer:
        idx = self.index
        corpus = idx.corpus
        rels_out: list[RelationPick] = []
        terminal_set = set(terminals)
        key_cols = self._tree_cols(tree)
        for r in sorted(chosen, key=lambda r: -float(ev.rel[r])):
            rd = corpus.relations[r]
            picks = []
            for c in sorted(columns[r], key=lambda c: (c not in key_cols, -float(ev.col[c]))):
                cd = corpus.columns[c]
                picks.append(ColumnPick(c, cd.name, cd.data_type, float(ev.col[c]), self._reasons(ev, c, key_cols)))
            reasons = []
            if ev.rel_name[r] > 0:
                reasons.append("name")
            if r not in terminal_set:
                reasons.append("bridge on the join path")
            rels_out.append(RelationPick(r, rd.unique_id, rd.identifier, rd.name, rd.relation_name, float(ev.rel[r]),
                                         reasons, bridge=r not in terminal_set, columns=picks))
        joins = []
        for e in tree:
            joins.append(JoinPick.of(e, idx.graph.edges[e], corpus))
        return Answer(id, question, hint, candidates, unsure, rels_out, joins,
                      [corpus.relations[r].unique_id for r in unjoined], self.retrieval)

    def _tree_cols(self, tree: list[int]) -> set[int]:
        out: set[int] = set()
        for e in tree:
            for pair in self.index.graph.edges[e].column_pairs():
                out.update(pair)
        return out

    def _reasons(self, ev: Evidence, c: int, key_cols: set[int]) -> list[str]:
        out = []
        if c in key_cols:
            out.append("join key")
        if self.index.col_is_pk[c]:
            out.append("primary key")
        if ev.name[c] > 0:
            out.append(f"name {ev.name[c]:.2f}")
        if ev.lex[c] > 0:
            out.append(f"lexical {ev.lex[c]:.2f}")
        if ev.dense[c] != 0:
            out.append(f"semantic {ev.dense[c]:.2f}")
        hit = ev.value_hits.get(c)
        if hit is not None:
            out.append(f"value {hit.value!r} ~ {hit.literal!r}")
        return out


class _NameIndex:
    """How much of each column's (and relation's) name the question mentions, as postings:
    each name term carries 1/len(name terms), so a bincount gives the covered fraction."""

    def __init__(self, vocab, col_ptr, col_ids, col_w, rel_ptr, rel_ids, rel_w, n_cols, n_rels):
        self.vocab = vocab
        self.col = (col_ptr, col_ids, col_w)
        self.rel = (rel_ptr, rel_ids, rel_w)
        self.n_cols, self.n_rels = n_cols, n_rels

    @classmethod
    def build(cls, index: LinkIndex) -> "_NameIndex":
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
