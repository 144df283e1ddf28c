"""Join completion: a near-minimal Steiner tree over the join graph adds the bridge relations
and key columns that connect the selected relations."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from dbt_schema_link.linker.evidence import Evidence
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.spans import SpanStage
from dbt_schema_link.linker.store import LinkIndex

#: Entering a bridge relation costs 1 - BRIDGE_COST_SPAN (best scored) to 1 (worst) in join completion.
BRIDGE_COST_SPAN = 0.5


class JoinStage:
    def __init__(self, index: LinkIndex, settings: LinkSettings, spans: SpanStage):
        self.index = index
        self.settings = settings
        self.spans = spans

    def complete(self, ev: Evidence, group: int, terminals: list[int], spans: Sequence[int] = ()) \
            -> tuple[list[int], list[int], list[int]]:
        """Terminals plus the bridge relations of a near-minimal join tree, the tree's edges, and
        the terminals it could not join. Only the relations of `group` and of the spanned units
        are searched, and a link between two units only at `span_confidence` or above. Bridges
        the question scores well cost less to enter; superseded relations keep the default cost
        of 1 (used only when nothing else joins)."""
        rels = self.spans.pool(group, spans)
        chosen = list(terminals)
        if not len(rels):
            return chosen, [], []
        scores = ev.rel[rels].astype(np.float64)
        lo, hi = float(scores.min()), float(scores.max())
        node_cost = dict(zip(rels.tolist(), (BRIDGE_COST_SPAN * (1.0 - (scores - lo) / max(hi - lo, 1e-6))).tolist()))
        graph = self.index.graph
        tree, unjoined = graph.steiner_tree(terminals, node_cost, self.settings.max_path_cost, units=[group, *spans],
                                            min_cross_confidence=self.settings.span_confidence)
        if unjoined and self.settings.contradicted_joins and graph.has_contradicted:
            # no link joins them: the pairs the names join and the data refutes are better than no
            # join at all (the answer labels them)
            again, still = graph.steiner_tree(terminals, node_cost, self.settings.max_path_cost, units=[group, *spans],
                                              min_cross_confidence=self.settings.span_confidence, contradicted=True)
            if len(still) < len(unjoined):
                tree, unjoined = again, still
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

    def tree_columns(self, tree: list[int]) -> set[int]:
        """Both key columns of every edge of the tree."""
        out: set[int] = set()
        for e in tree:
            for pair in self.index.graph.edges[e].column_pairs():
                out.update(pair)
        return out
