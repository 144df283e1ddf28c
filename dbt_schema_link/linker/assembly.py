"""Answer assembly: the selection as typed picks (relations best first, join keys first inside
each, every pick with the evidence behind it)."""

from __future__ import annotations


from dbt_schema_link.linker.answer import Answer, Candidate, ColumnPick, JoinPick, RelationPick
from dbt_schema_link.linker.evidence import Evidence
from dbt_schema_link.linker.joins import JoinStage
from dbt_schema_link.linker.selection import Selection
from dbt_schema_link.linker.store import LinkIndex


class AnswerAssembly:
    def __init__(self, index: LinkIndex, joins: JoinStage, retrieval: str):
        self.index = index
        self.joins = joins
        self.retrieval = retrieval

    def answer(self, id, question: str, hint: str | None, candidates: list[Candidate], unsure: bool,
               ev: Evidence, sel: Selection) -> Answer:
        idx = self.index
        corpus = idx.corpus
        rels_out: list[RelationPick] = []
        terminal_set = set(sel.terminals)
        key_cols = self.joins.tree_columns(sel.tree)
        for r in sorted(sel.chosen, key=lambda r: -float(ev.rel[r])):
            rd = corpus.relations[r]
            picks = []
            for c in sorted(sel.columns[r], key=lambda c: (c not in key_cols, -float(ev.col[c]))):
                cd = corpus.columns[c]
                picks.append(ColumnPick(c, cd.name, cd.data_type, float(ev.col[c]), self._reasons(ev, c, key_cols)))
            reasons = []
            if ev.rel_name[r] > 0:
                reasons.append("name")
            if r not in terminal_set:
                reasons.append("bridge on the join path")
            rels_out.append(RelationPick(r, rd.unique_id, rd.identifier, rd.name, rd.relation_name, float(ev.rel[r]),
                                         reasons, bridge=r not in terminal_set, columns=picks, family=rd.family()))
        joins = [JoinPick.of(e, corpus) for e in sel.tree]
        return Answer(id, question, hint, candidates, unsure, rels_out, joins,
                      [corpus.relations[r].unique_id for r in sel.unjoined], self.retrieval)

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
