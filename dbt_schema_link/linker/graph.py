"""The join graph over relations, and join completion as a minimal Steiner tree.

Nodes are relations; an edge is a link (declared, inferred or lineage) between a column of one
and a column of the other, weighted ``1 - ln(confidence)`` so that fewer hops and surer links
win, plus a node cost that prefers bridges relevant to the question. The Steiner tree over the
selected relations is the Kou–Markowsky–Berman 2-approximation (shortest paths between terminals,
minimum spanning tree, expanded paths, MST again, non-terminal leaves pruned) — exact on the
small trees that questions need in practice, and polynomial on large graphs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dbt_schema_link.linker.documents import ColumnDoc, EdgeDoc


@dataclass(frozen=True)
class Adjacent:
    node: int
    edge: int  # index into the edge list
    weight: float


def edge_weight(confidence: float) -> float:
    return 1.0 - math.log(max(0.01, min(1.0, confidence)))


class JoinGraph:
    def __init__(self, edges: Sequence[EdgeDoc], columns: Sequence[ColumnDoc], n_relations: int):
        self.edges = list(edges)
        self.columns = columns
        self.n = n_relations
        self.adj: list[list[Adjacent]] = [[] for _ in range(n_relations)]
        # The cheapest edge of each related pair (lowest index on ties), both directions, as arrays
        # for scipy's Dijkstra: on a large warehouse a search touches thousands of relations.
        best: dict[tuple[int, int], tuple[float, int]] = {}
        for i, e in enumerate(self.edges):
            a, b = columns[e.child].relation, columns[e.parent].relation
            if a == b:
                continue
            w = edge_weight(e.confidence)
            self.adj[a].append(Adjacent(b, i, w))
            self.adj[b].append(Adjacent(a, i, w))
            for key in ((a, b), (b, a)):
                if key not in best or w < best[key][0]:
                    best[key] = (w, i)
        self._pair_edge = {key: i for key, (_, i) in best.items()}
        self._src = np.fromiter((k[0] for k in best), dtype=np.int64, count=len(best))
        self._dst = np.fromiter((k[1] for k in best), dtype=np.int64, count=len(best))
        self._w = np.fromiter((v[0] for v in best.values()), dtype=np.float64, count=len(best))

    def endpoints(self, edge: int) -> tuple[int, int]:
        e = self.edges[edge]
        return self.columns[e.child].relation, self.columns[e.parent].relation

    def neighbours(self, node: int) -> list[Adjacent]:
        return self.adj[node]

    def _shortest_paths(self, terms: list[int], node_cost: dict[int, float], limit: float):
        """Distances and predecessors from each terminal; entering a relation costs its node cost
        (default 1) on top of the edge weight. Paths longer than `limit` are not searched."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import dijkstra

        cost = np.ones(self.n, dtype=np.float64)
        if node_cost:
            cost[np.fromiter(node_cost.keys(), dtype=np.int64)] = np.fromiter(node_cost.values(), dtype=np.float64)
        graph = csr_matrix((self._w + cost[self._dst], (self._src, self._dst)), shape=(self.n, self.n))
        return dijkstra(graph, directed=True, indices=terms, return_predecessors=True, limit=limit)

    def steiner_tree(self, terminals: Sequence[int], node_cost: dict[int, float] | None = None,
                     max_hops_cost: float = 12.0) -> tuple[list[int], list[int]]:
        """Edges (indices) of a near-minimal tree connecting `terminals`, and the terminals left
        unconnected (no path within the cost limit). `node_cost` (0..1, default 1) is the price of
        entering a relation: question-relevant bridges are cheaper."""
        terms = list(dict.fromkeys(terminals))
        if len(terms) < 2:
            return [], []
        cost = node_cost or {}
        dist, pred = self._shortest_paths(terms, cost, max_hops_cost)
        row = {t: i for i, t in enumerate(terms)}
        # Prim over the metric closure of the terminals (components handled separately).
        in_tree = {terms[0]}
        closure_edges: list[tuple[int, int]] = []
        remaining = set(terms[1:])
        while remaining:
            best = None
            for u in in_tree:
                for v in remaining:
                    d = float(dist[row[u], v])
                    if best is None or d < best[0]:
                        best = (d, u, v)
            if best is None or best[0] == math.inf:
                # start a new component from the best-connected remaining terminal
                v = min(remaining)
                remaining.discard(v)
                in_tree.add(v)
                continue
            _, u, v = best
            closure_edges.append((u, v))
            in_tree.add(v)
            remaining.discard(v)
        # Expand closure edges into graph paths.
        chosen: set[int] = set()
        for u, v in closure_edges:
            prev = pred[row[u]]
            node = v
            while node != u:
                p = int(prev[node])
                chosen.add(self._pair_edge[(p, node)])
                node = p
        tree = self._mst(sorted(chosen), cost)
        tree = self._prune(tree, set(terms))
        connected = {n for e in tree for n in self.endpoints(e)}
        unconnected = [t for t in terms if t not in connected]
        return tree, unconnected if tree or len(terms) > 1 else []

    def _mst(self, edges: list[int], cost: dict[int, float]) -> list[int]:
        parent: dict[int, int] = {}

        def find(x: int) -> int:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        out = []
        for e in sorted(edges, key=lambda e: (edge_weight(self.edges[e].confidence), e)):
            a, b = (find(n) for n in self.endpoints(e))
            if a != b:
                parent[a] = b
                out.append(e)
        return out

    def _prune(self, tree: list[int], terminals: set[int]) -> list[int]:
        edges = set(tree)
        while True:
            degree: dict[int, int] = {}
            for e in edges:
                for n in self.endpoints(e):
                    degree[n] = degree.get(n, 0) + 1
            leaves = {n for n, d in degree.items() if d == 1 and n not in terminals}
            if not leaves:
                return sorted(edges)
            edges = {e for e in edges if not (set(self.endpoints(e)) & leaves)}

    def parallel_edges(self, a: int, b: int) -> list[int]:
        """Every edge between relations a and b."""
        return sorted({adj.edge for adj in self.adj[a] if adj.node == b})
