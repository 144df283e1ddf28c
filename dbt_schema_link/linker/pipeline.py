"""Question → databases, models, columns and joins, after MDB-Link's hierarchical reduction.
`Linker` runs the stages, one module each:

1. evidence: score every column and relation (dense cosine, BM25, name coverage, value hits);
2. localization: rank the units (database/schema) with support-based pruning and say when unsure;
3. spans: other units the answer may use through confident links;
4. selection: the relations of the unit the question is about;
5. joins: a Steiner tree over the join graph adds bridge relations and key columns;
6. grounding: the columns shown, within the column budget;
7. assembly: the typed answer, which the renderer fits into the token budget.
"""

from __future__ import annotations

import time
from typing import Iterable, Iterator, Sequence

import numpy as np

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.linker.answer import Answer, Candidate
from dbt_schema_link.linker.assembly import AnswerAssembly
from dbt_schema_link.linker.embedder import Embedder
from dbt_schema_link.linker.evidence import Evidence, EvidenceStage
from dbt_schema_link.linker.grounding import GroundingStage
from dbt_schema_link.linker.hook import LinkerHook
from dbt_schema_link.linker.joins import JoinStage
from dbt_schema_link.linker.localization import UnitRanker
from dbt_schema_link.linker.selection import Selection, SelectionStage
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.spans import SpanStage
from dbt_schema_link.linker.store import LinkIndex


class Linker:
    def __init__(self, index: LinkIndex, embedder: Embedder | None, settings: LinkSettings = LinkSettings()):
        self.index = index
        self.settings = settings
        use_dense = embedder is not None and index.has_vectors and index.model == embedder.name
        self.embedder = embedder if use_dense else None
        self.retrieval = "dense+lexical+values" if self.embedder else "lexical+values"
        self.evidence_stage = EvidenceStage(index, settings)
        self.name_index = self.evidence_stage.names
        self.units = UnitRanker(index, settings)  # the database stage
        self.spans = SpanStage(index, settings)
        self.joins = JoinStage(index, settings, self.spans)
        self.grounding = GroundingStage(index, settings, self.joins)
        self.selection = SelectionStage(index, settings, self.name_index, self.spans, self.joins, self.grounding)
        self.assembly = AnswerAssembly(index, self.joins, self.retrieval)
        self.hook: LinkerHook | None = None  # optional question-time stages (linker/hook.py); None: offline

    # -- the stages, as the optional question-time hooks call them ---------------------------
    def embed_questions(self, texts: Sequence[str]) -> np.ndarray | None:
        if self.embedder is None:
            return None
        return self.embedder.encode(list(texts), batch_size=64)

    def evidence(self, question: str, hint: str | None, qvec: np.ndarray | None,
                 allowed_groups: Sequence[int] | None = None) -> Evidence:
        return self.evidence_stage.gather(question, hint, qvec, allowed_groups)

    def localize(self, ev: Evidence) -> list[Candidate]:
        return self.units.rank(ev)

    def span_units(self, candidates: Sequence[Candidate]) -> list[int]:
        return self.spans.span_units(candidates)

    def select(self, ev: Evidence, group: int, spans: Sequence[int] = ()) -> Selection:
        return self.selection.select(ev, group, spans)

    def complete_joins(self, ev: Evidence, group: int, terminals: list[int], spans: Sequence[int] = ()) \
            -> tuple[list[int], list[int], list[int]]:
        return self.joins.complete(ev, group, terminals, spans)

    def join_keys(self, chosen: list[int], tree: list[int]) -> dict[int, list[int]]:
        return self.joins.join_keys(chosen, tree)

    def column_budget(self, n_terminals: int) -> int:
        return self.grounding.column_budget(n_terminals)

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
        sel = picked or self.select(ev, candidates[0].group, self.span_units(candidates))
        answer = self.assembly.answer(id, question, hint, candidates, unsure, ev, sel)
        used = {int(self.index.rel_group[r]) for r in sel.chosen} - {candidates[0].group}
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
