"""Relation stage: which relations of the chosen unit (and of spanned units) answer the question,
then join completion and column grounding over them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from dbt_schema_link.linker.evidence import Evidence
from dbt_schema_link.linker.grounding import GroundingStage
from dbt_schema_link.linker.joins import JoinStage
from dbt_schema_link.linker.names import NameIndex
from dbt_schema_link.linker.ranking import best_first
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.spans import SpanStage
from dbt_schema_link.linker.store import LinkIndex
from dbt_schema_link.linker.text import terms


@dataclass
class Selection:
    """What the answer is built from (relation and column ids, join-graph edge ids)."""

    terminals: list[int] = field(default_factory=list)  # relations the question asks about
    chosen: list[int] = field(default_factory=list)  # terminals + bridges on the join tree
    columns: dict[int, list[int]] = field(default_factory=dict)  # per chosen relation, its columns
    tree: list[int] = field(default_factory=list)  # join-tree edges
    unjoined: list[int] = field(default_factory=list)  # terminals no link joins to the others


class SelectionStage:
    def __init__(self, index: LinkIndex, settings: LinkSettings, names: NameIndex, spans: SpanStage,
                 joins: JoinStage, grounding: GroundingStage):
        self.index = index
        self.settings = settings
        self.names = names
        self.spans = spans
        self.joins = joins
        self.grounding = grounding

    def select(self, ev: Evidence, group: int, spans: Sequence[int] = ()) -> Selection:
        """Terminal relations, all relations (terminals + bridges), their columns, tree edges and
        unjoined terminals. `spans`: other units the answer may use (`SpanStage.span_units`); a
        spanned unit's relations that no link joins to the answer are dropped again."""
        s, idx = self.settings, self.index
        in_group, _ = self.spans.group_relations(group)
        if not len(in_group):
            return Selection()
        rels = self.spans.pool(group, spans)
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
        if s.named_columns > 0:
            self._add_named_columns(ev, pool, terminals)
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
        chosen, tree, unjoined = self.joins.complete(ev, group, terminals, used)
        if used:
            # a spanned unit stays only where a link joins its relations to the answer
            lone = {int(idx.rel_group[r]) for r in unjoined} - {group}
            keep = [u for u in used if u not in lone or any(int(idx.rel_group[r]) == u and r not in unjoined
                                                           for r in terminals)]
            if keep != used:
                terminals = [r for r in terminals if int(idx.rel_group[r]) == group or int(idx.rel_group[r]) in keep]
                chosen, tree, unjoined = self.joins.complete(ev, group, terminals, keep)
        columns = self.grounding.ground(ev, chosen, set(terminals), tree)
        return Selection(terminals, chosen, columns, tree, unjoined)

    def _name_words(self, relations: Iterable[int]) -> set[str]:
        rels = self.index.corpus.relations
        return {t for r in relations for t in terms(rels[r].short_name, drop_stop=False)}

    def _add_named(self, ev: Evidence, pool: set[int], terminals: list[int]) -> None:
        """Append (in place) relations of the pool that a question word names when no terminal's
        name has that word: the best-scored relation per word, `named_relations` at most."""
        s = self.settings
        covered = self._name_words(terminals)
        added = 0
        for t in dict.fromkeys(ev.terms):
            if added >= s.named_relations or len(terminals) >= s.max_relations:
                return
            if t in covered:
                continue
            named = [int(r) for r in self.names.relations_named(t) if int(r) in pool and int(r) not in terminals]
            if named:
                best = max(named, key=lambda r: (float(ev.rel[r]), -r))
                terminals.append(best)
                covered |= self._name_words([best])
                added += 1

    def _add_named_columns(self, ev: Evidence, pool: set[int], terminals: list[int]) -> None:
        """Append (in place) the relation of a column the question names in full ("the names of
        poker players", "their birth date") when no terminal has a column of that name and a link
        joins the relation to a terminal: an entity's attributes often live one join away, in
        the relation its key references. `named_columns` relations at most, best column first."""
        s, idx = self.settings, self.index
        corpus = idx.corpus
        graph = idx.graph
        named = np.flatnonzero(ev.name >= 1.0)
        if not len(named):
            return
        held = {self._words(corpus.columns[c].name) for r in terminals
                for c in range(int(idx.rel_start[r]), int(idx.rel_start[r] + idx.rel_ncols[r]))}
        added = 0
        for c in named[np.argsort(-ev.col[named], kind="stable")].tolist():
            if added >= s.named_columns or len(terminals) >= s.max_relations:
                return
            r = int(idx.col_relation[c])
            if r not in pool or r in terminals or idx.col_is_key[c] or self._words(corpus.columns[c].name) in held:
                continue
            if any(adj.node in terminals and graph.edges[adj.edge].contradicted is None for adj in graph.neighbours(r)):
                terminals.append(r)
                added += 1

    @staticmethod
    def _words(name: str) -> frozenset[str]:
        return frozenset(terms(name, drop_stop=False))
