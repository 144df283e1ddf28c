"""The answer to one question, and its JSON form (one object per question; docs/linker.md).

    {
      "id": "q1",                       # from the batch file, or null
      "question": "...", "hint": "..." | null,
      "project": "shop", "database": "shop", "schema": "main",   # the localized group
      "group": "shop:shop.main",
      "spans": [{"group", "project", "database", "schema", "score", "support"}],
                                        # only when the answer also uses another unit, joined
                                        # to this one by a confident link (a second schema)
      "unsure": false,                  # true when the first candidate's confidence is below the sure bar
      "candidates": [{"group", "project", "database", "schema", "score", "confidence", "support"}, ...],
                                        # best first; confidence: calibrated, summing to 1
      "relations": [{"unique_id", "name" (warehouse identifier), "model" (dbt name),
                     "relation_name", "score", "reasons": [...], "bridge": false,
                     "columns": [{"name", "data_type", "score", "reasons": [...]}, ...]}, ...],
      "joins": [{"child": {"unique_id", "name", "column"}, "parent": {...},
                 "on": "orders.customer_id = customers.customer_id", "kind", "confidence"}, ...],
      "unjoined": [unique_id, ...],     # selected relations no join path reaches
      "context": "...",                 # the rendered prompt (md) within the budget
      "render": "full" | "linked",      # whole group schema, or the linked subset filled by score
      "tokens": 812, "budget": 2048,
      "retrieval": "dense+lexical+values" | "lexical+values",
      "latency_ms": 12.3,
      "llm": {...}                      # only with --llm stages (docs/llm.md): stages, requests, tokens, cost
    }
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dbt_schema_link.confidence import confidence_value
from dbt_schema_link.links import Provenance, provenance_text


@dataclass
class ColumnPick:
    column: int  # column id in the index
    name: str
    data_type: str
    score: float
    reasons: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"name": self.name, "data_type": self.data_type or None, "score": round(float(self.score), 4),
                "reasons": self.reasons}


@dataclass(frozen=True)
class FamilyRange:
    """The relation family a picked relation stands for (linker/families.py)."""

    name: str  # the family's stem
    shards: int
    first: str  # first and last shard identifiers
    last: str
    dated: bool

    def to_dict(self) -> dict:
        return {"name": self.name, "shards": self.shards, "first": self.first, "last": self.last, "dated": self.dated}


@dataclass
class RelationPick:
    relation: int
    unique_id: str
    name: str  # warehouse identifier
    model: str  # dbt node name
    relation_name: str
    score: float
    reasons: list[str] = field(default_factory=list)
    bridge: bool = False
    columns: list[ColumnPick] = field(default_factory=list)
    family: FamilyRange | None = None  # None: one relation, not a family

    def to_dict(self) -> dict:
        return {"unique_id": self.unique_id, "name": self.name, "model": self.model,
                "relation_name": self.relation_name, "score": round(float(self.score), 4),
                "reasons": self.reasons, "bridge": self.bridge, "columns": [c.to_dict() for c in self.columns]} \
            | ({"family": self.family.to_dict()} if self.family else {})


@dataclass
class JoinPick:
    edge: int
    child_uid: str
    child_name: str
    child_column: str
    parent_uid: str
    parent_name: str
    parent_column: str
    provenance: Provenance
    confidence: float
    written_confidence: float | None = None
    contradicted: str | None = None  # not a link: names join, the data refutes it (EdgeDoc.contradicted)
    #: a composite key's further (child column, parent column) names, compared with ``and``
    extra_columns: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, edge_id: int, corpus: Any) -> "JoinPick":
        """The pick of edge `edge_id` of an index corpus (documents.Corpus)."""
        edge = corpus.edges[edge_id]
        cc, pc = corpus.columns[edge.child], corpus.columns[edge.parent]
        cr, pr = corpus.relations[cc.relation], corpus.relations[pc.relation]
        extra = tuple((corpus.columns[c].name, corpus.columns[p].name) for c, p in edge.extra)
        return cls(edge_id, cr.unique_id, cr.identifier, cc.name, pr.unique_id, pr.identifier, pc.name,
                   edge.provenance, edge.confidence, edge.written_confidence, edge.contradicted, extra)

    @property
    def on(self) -> str:
        pairs = ((self.child_column, self.parent_column),) + self.extra_columns
        return " and ".join(f"{self.child_name}.{c} = {self.parent_name}.{p}" for c, p in pairs)

    @property
    def note(self) -> str:
        """Where the join comes from and how sure it is (``written by dbt-schema-link at 0.91, ...``)."""
        if self.contradicted is not None:
            return f"not verified: {self.contradicted}; no link joins these relations"
        return provenance_text(self.provenance, self.confidence, self.written_confidence)

    def line(self, written_note: bool = True) -> str:
        """The join in a rendered context; a link `write` wrote says so (it is not a person's)
        unless `written_note` is off; a refuted pair always says it is no link."""
        noted = self.contradicted is not None or (written_note and self.provenance is Provenance.WRITTEN)
        return f"JOIN {self.on} -- {self.note}" if noted else f"JOIN {self.on}"

    def to_dict(self) -> dict:
        return {"child": {"unique_id": self.child_uid, "name": self.child_name, "column": self.child_column},
                "parent": {"unique_id": self.parent_uid, "name": self.parent_name, "column": self.parent_column},
                "on": self.on, "kind": self.provenance.kind.value, "provenance": self.provenance.value,
                "composite": [{"child_column": c, "parent_column": p} for c, p in self.extra_columns],
                "confidence": confidence_value(self.confidence),
                "written_confidence": None if self.written_confidence is None else confidence_value(self.written_confidence),
                "contradicted": self.contradicted, "note": self.note}


@dataclass
class Candidate:
    group: int
    key: str
    project: str
    database: str
    schema: str
    score: float
    support: int
    confidence: float = 1.0  # calibrated chance that this unit is the one (candidates sum to 1)

    def to_dict(self) -> dict:
        return {"group": self.key, "project": self.project, "database": self.database, "schema": self.schema,
                "score": round(float(self.score), 4), "confidence": round(float(self.confidence), 3),
                "support": self.support}


@dataclass
class Answer:
    id: str | int | None
    question: str
    hint: str | None
    candidates: list[Candidate]
    unsure: bool
    relations: list[RelationPick]
    joins: list[JoinPick]
    unjoined: list[str]
    retrieval: str
    context: str = ""
    render: str = "linked"
    tokens: int = 0
    budget: int | None = None
    latency_ms: float = 0.0
    scores: Any = field(default=None, repr=False, compare=False)  # column scores, for rendering
    llm: Any = field(default=None, repr=False, compare=False)  # dbt_schema_link.llm.LLMRecord when stages ran
    spans: list[Candidate] = field(default_factory=list)  # other units the answer uses (joined to its own)

    @property
    def group(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    def choices_note(self, option: str, top: int = 3) -> str | None:
        """When unsure, the first `top` candidate units with their confidence, for the reader to
        choose with `option`; None when the answer is sure."""
        if not self.unsure or len(self.candidates) < 2:
            return None
        named = [f"{c.key} ({c.confidence:.2f})" for c in self.candidates[:top]]
        return f"not sure which database the question is about: {', '.join(named)}; pass {option} to choose"

    def column_names(self) -> set[tuple[str, str]]:
        """(relation identifier, column) pairs, lower case: what evaluation compares."""
        return {(r.name.lower(), c.name.lower()) for r in self.relations for c in r.columns}

    def n_columns(self) -> int:
        return sum(len(r.columns) for r in self.relations)

    def to_dict(self) -> dict:
        g = self.group
        return {
            "id": self.id,
            "question": self.question,
            "hint": self.hint,
            "project": g.project if g else None,
            "database": g.database if g else None,
            "schema": g.schema if g else None,
            "group": g.key if g else None,
        } | ({"spans": [c.to_dict() for c in self.spans]} if self.spans else {}) | {
            "unsure": self.unsure,
            "candidates": [c.to_dict() for c in self.candidates],
            "relations": [r.to_dict() for r in self.relations],
            "joins": [j.to_dict() for j in self.joins],
            "unjoined": self.unjoined,
            "context": self.context,
            "render": self.render,
            "tokens": self.tokens,
            "budget": self.budget,
            "retrieval": self.retrieval,
            "latency_ms": round(float(self.latency_ms), 2),
        } | ({"llm": self.llm.to_dict()} if self.llm is not None else {})
