"""The verdict of every found link, and which labelled joins were found.

Two kinds of labels, one interface (`judge_pairs`, `matches`, `truth`):

DbtJudge (the three dbt projects, `labels.json`)
    A record judges one oriented pair of dbt nodes and columns (`child_node`, `parent_node`, the
    columns of `child` / `parent`; a composite key `relation.(a,b)` is the set of its column
    pairs). A link's verdict is the record's with the same nodes and column pairs: `true`,
    `false`, anything else (`doubtful`, ...) is doubtful. A link whose reverse is a record is
    false (`reversed`): labels are oriented child -> parent. No record: unjudged.

SaasJudge (the eight SaaS packages built as layered projects, `truth.json`)
    Labels name source columns (`table.column`, the table being the source table). A column of
    the built project is traced to source columns through the `lineage` links of links.json
    (model column -> the column it selects unchanged, perhaps renamed, down to a seed; a seed
    is mapped to its source table through the manifest: the source whose identifier is the
    seed's alias). A link is judged on the traced pairs (every child source column x every
    parent source column), the best of them: a label (saasbench's `Label.matches`: same
    orientation, either for a sibling) is true; saasbench's allowance (a key the child's name
    designates, two children of one labelled parent) is allowed; two copies of one source
    column, or anything else, false. A side that traces to no source column (a computed
    column, a date spine) leaves the link unjudged. A composite key: the worst of its pairs.

Both: a link unjudged on its own pair takes the verdict of the first of its `collapsed` pairs that
is judged (`via: collapsed`: the lineage copies the product says the link stands for). A labelled
join counts as found when some link's pair (a composite as a whole) or one of its collapsed pairs
matches it: the reading of labels.json's own `found` field. Recall is over `true` records
(dbt projects) or all labels (SaaS).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Protocol

from fkbench.databases import pair as unordered_pair
from fkbench.product import FoundLink
from saasbench import scoring as saas_scoring
from saasbench.labels import Column, Label

from .links import Link, Pair, Ref, relation_name


class Verdict(str, Enum):
    TRUE = "true"
    ALLOWED = "allowed"  # SaaS only: an unlabelled join saasbench's allowance accepts
    DOUBTFUL = "doubtful"
    FALSE = "false"
    UNJUDGED = "unjudged"


#: Best first: a link traced to several pairs takes the best; a composite the worst of its pairs.
RANK = {Verdict.TRUE: 0, Verdict.ALLOWED: 1, Verdict.DOUBTFUL: 2, Verdict.FALSE: 3, Verdict.UNJUDGED: 4}


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    label: str | None = None  # the record or label it matched, as `child -> parent`
    via: str = "pair"  # pair | collapsed
    reversed: bool = False  # the reverse of a record / an fk label
    copy: bool = False  # SaaS: both sides copies of one source column

    def to_dict(self) -> dict:
        out: dict = {"verdict": self.verdict.value, "via": self.via}
        if self.label:
            out["label"] = self.label
        if self.reversed:
            out["reversed"] = True
        if self.copy:
            out["copy"] = True
        return out


UNJUDGED = Judgement(Verdict.UNJUDGED)


class Judge(Protocol):
    truth: list  # the labelled joins recall is over

    def judge_pairs(self, pairs: tuple[Pair, ...]) -> Judgement: ...

    def matches(self, label, pairs: tuple[Pair, ...]) -> bool: ...


# --- dbt projects: labels.json ---------------------------------------------------------------
RecordKey = tuple[str, str, frozenset]  # (child node, parent node, {(child col, parent col)})


def columns_of(text: str) -> list[str]:
    """The columns of `relation.column` or a composite `relation.(a,b)`, lower-cased."""
    text = text.strip()
    if text.endswith(")") and "(" in text:
        return [c.strip().lower() for c in text[text.rindex("(") + 1:-1].split(",")]
    return [text.rsplit(".", 1)[-1].lower()]


@dataclass(frozen=True)
class Record:
    child_node: str
    parent_node: str
    columns: frozenset  # {(child column, parent column)}
    verdict: str  # as labels.json writes it
    text: str  # `child -> parent` as labels.json writes it
    why: str = ""
    sources: tuple[str, ...] = ()

    @property
    def key(self) -> RecordKey:
        return (self.child_node, self.parent_node, self.columns)

    @property
    def is_true(self) -> bool:
        return self.verdict == "true"

    def to_dict(self) -> dict:
        return {"label": self.text, "child_node": self.child_node, "parent_node": self.parent_node,
                "verdict": self.verdict, "why": self.why, "sources": list(self.sources)}


def read_records(path: Path) -> list[Record]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for r in doc.get("records", []):
        child, parent = columns_of(r["child"]), columns_of(r["parent"])
        if len(child) != len(parent):
            continue  # not a pairing of columns (none in the data)
        out.append(Record(str(r["child_node"]), str(r["parent_node"]), frozenset(zip(child, parent)),
                          str(r.get("verdict")), f"{r['child']} -> {r['parent']}", str(r.get("why", "")),
                          tuple(r.get("sources", ()))))
    return out


def verdict_of(text: str) -> Verdict:
    return {"true": Verdict.TRUE, "false": Verdict.FALSE}.get(text, Verdict.DOUBTFUL)


def pairs_key(pairs: tuple[Pair, ...]) -> RecordKey | None:
    """The record key of a link's pairs; None when they are not between one pair of relations."""
    child_rels = {c[0] for c, _ in pairs}
    parent_rels = {p[0] for _, p in pairs}
    if len(child_rels) != 1 or len(parent_rels) != 1:
        return None
    return (pairs[0][0][0], pairs[0][1][0], frozenset((c[1], p[1]) for c, p in pairs))


class DbtJudge:
    def __init__(self, records: list[Record]):
        self.records = records
        self.by_key = {r.key: r for r in records}
        self.truth = [r for r in records if r.is_true]

    def judge_pairs(self, pairs: tuple[Pair, ...]) -> Judgement:
        key = pairs_key(pairs)
        if key is None:
            return UNJUDGED
        record = self.by_key.get(key)
        if record is not None:
            return Judgement(verdict_of(record.verdict), record.text)
        child, parent, cols = key
        reverse = self.by_key.get((parent, child, frozenset((p, c) for c, p in cols)))
        if reverse is not None:
            return Judgement(Verdict.FALSE, reverse.text, reversed=True)
        return UNJUDGED

    def matches(self, label: Record, pairs: tuple[Pair, ...]) -> bool:
        return pairs_key(pairs) == label.key


# --- SaaS packages: truth.json through lineage -----------------------------------------------
def source_tables(manifest: dict) -> dict[str, str]:
    """Unique id of a source, or of the seed a source reads (its identifier is the seed's alias)
    -> the source table's name, lower-cased (the tables of truth.json)."""
    out: dict[str, str] = {}
    by_identifier: dict[str, str] = {}
    for uid, source in manifest.get("sources", {}).items():
        name = str(source.get("name", relation_name(uid))).lower()
        out[uid] = name
        by_identifier.setdefault(str(source.get("identifier") or name).lower(), name)
    for uid, node in manifest.get("nodes", {}).items():
        if node.get("resource_type") == "seed":
            alias = str(node.get("alias") or node.get("name") or relation_name(uid)).lower()
            if alias in by_identifier:
                out[uid] = by_identifier[alias]
    return out


def label_text(label: Label) -> str:
    return f"{'.'.join(label.child)} -> {'.'.join(label.parent)}"


_SAAS_VERDICT = {saas_scoring.Verdict.LABEL: Verdict.TRUE, saas_scoring.Verdict.NAMED_KEY: Verdict.ALLOWED,
                 saas_scoring.Verdict.SIBLING_OF_LABEL: Verdict.ALLOWED, saas_scoring.Verdict.FALSE: Verdict.FALSE}


class SaasJudge:
    def __init__(self, labels: list[Label], lineage: dict[Ref, list[Ref]], tables: dict[str, str]):
        self.truth = labels
        self.lineage = lineage
        self.tables = tables
        self._traced: dict[Ref, frozenset[Column]] = {}

    def trace(self, column: Ref) -> frozenset[Column]:
        """The source columns `column` is a copy of (itself, on a source or a mapped seed)."""
        if column in self._traced:
            return self._traced[column]
        found: set[Column] = set()
        seen = {column}
        stack = [column]
        while stack:
            uid, col = stack.pop()
            if uid in self.tables:
                found.add((self.tables[uid], col))
                continue
            for parent in self.lineage.get((uid, col), ()):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        self._traced[column] = frozenset(found)
        return self._traced[column]

    def candidates(self, pair: Pair) -> list[tuple[Column, Column]]:
        return sorted(itertools.product(self.trace(pair[0]), self.trace(pair[1])))

    def judge_pair(self, pair: Pair) -> Judgement:
        cands = self.candidates(pair)
        if not cands:
            return UNJUDGED
        copies = [(c, p) for c, p in cands if c == p]
        joins = [(c, p) for c, p in cands if c != p]
        best = Judgement(Verdict.FALSE, f"{'.'.join(copies[0][0])} (copy)", copy=True) if copies else None
        found = [FoundLink(unordered_pair(c, p), c, p, "traced", 1.0, {}) for c, p in joins]
        for scored in saas_scoring.judge(found, self.truth):
            j = Judgement(_SAAS_VERDICT[scored.verdict],
                          label_text(scored.label) if scored.label else f"{'.'.join(scored.child)} -> "
                                                                         f"{'.'.join(scored.parent)}",
                          reversed=scored.reversed_label)
            if best is None or RANK[j.verdict] < RANK[best.verdict]:
                best = j
        return best if best is not None else UNJUDGED

    def judge_pairs(self, pairs: tuple[Pair, ...]) -> Judgement:
        judged = [self.judge_pair(p) for p in pairs]
        return max(judged, key=lambda j: RANK[j.verdict])

    def matches(self, label: Label, pairs: tuple[Pair, ...]) -> bool:
        return any(label.matches(c, p) for pair in pairs for c, p in self.candidates(pair))


# --- links ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScoredLink:
    link: Link
    judgement: Judgement

    @property
    def verdict(self) -> Verdict:
        return self.judgement.verdict

    def to_dict(self) -> dict:
        return {"link": self.link.name(), "child": list(self.link.child), "parent": list(self.link.parent),
                "provenance": self.link.provenance, "confidence": round(self.link.confidence, 4),
                "band": saas_scoring.band_of(self.link.confidence), "on_tmp": self.link.on_tmp,
                **self.judgement.to_dict()}


def judge_link(judge: Judge, link: Link) -> Judgement:
    """The verdict of the link's own pairs; unjudged, that of its first judged collapsed pair."""
    own = judge.judge_pairs(link.pairs)
    if own.verdict is not Verdict.UNJUDGED:
        return own
    for pair in link.collapsed:
        j = judge.judge_pairs((pair,))
        if j.verdict is not Verdict.UNJUDGED:
            return replace(j, via="collapsed")
    return own


def score_links(judge: Judge, links: list[Link]) -> list[ScoredLink]:
    return [ScoredLink(link, judge_link(judge, link)) for link in links]


def link_finds(judge: Judge, label, link: Link) -> bool:
    return judge.matches(label, link.pairs) or any(judge.matches(label, (pair,)) for pair in link.collapsed)


def labels_found(judge: Judge, links: list[Link]) -> list[bool]:
    """For each labelled join of `judge.truth`, whether one of `links` finds it."""
    return [any(link_finds(judge, label, link) for link in links) for label in judge.truth]


def truth_text(label) -> str:
    return label.text if isinstance(label, Record) else label_text(label)
