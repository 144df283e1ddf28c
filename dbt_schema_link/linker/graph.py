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


#: Extra cost of an edge per DAG layer it spans (seed -> staging 1, seed -> marts 2): a join holds
#: at every layer, so join completion stays inside one layer when it can, never detours through
#: another layer's relations for a join the same layer has, and between two marts goes through
#: staging rather than down to the seeds.
CROSS_LAYER_COST = 0.5


class JoinGraph:
    """`rel_group` (the localization unit of each relation) lets join completion search only the
    units an answer uses: the edges are kept sorted by the pair of units they connect, so a
    question touches the edges of its own units, never the whole warehouse's."""

    def __init__(self, edges: Sequence[EdgeDoc], columns: Sequence[ColumnDoc], n_relations: int,
                 rel_group: np.ndarray | None = None, rel_layer: Sequence[int] | None = None):
        self.edges = list(edges)
        self.columns = columns
        self.n = n_relations
        self.adj: list[list[Adjacent]] = [[] for _ in range(n_relations)]
        # The cheapest edge of each related pair (lowest index on ties), both directions, as arrays
        # for scipy's Dijkstra: on a large warehouse a search touches thousands of relations.
        # A pair's edge is a link when it has one (a contradicted pair only when nothing else
        # joins the two relations), then the cheapest.
        best: dict[tuple[int, int], tuple[bool, float, int]] = {}
        for i, e in enumerate(self.edges):
            a, b = columns[e.child].relation, columns[e.parent].relation
            if a == b:
                continue
            w = edge_weight(e.confidence)
            if rel_layer is not None:
                w += CROSS_LAYER_COST * abs(rel_layer[a] - rel_layer[b])
            self.adj[a].append(Adjacent(b, i, w))
            self.adj[b].append(Adjacent(a, i, w))
            rank = (e.contradicted is not None, w, i)
            for key in ((a, b), (b, a)):
                if key not in best or rank < best[key]:
                    best[key] = rank
        self._pair_edge = {key: i for key, (_, _, i) in best.items()}
        self._src = np.fromiter((k[0] for k in best), dtype=np.int64, count=len(best))
        self._dst = np.fromiter((k[1] for k in best), dtype=np.int64, count=len(best))
        self._w = np.fromiter((v[1] for v in best.values()), dtype=np.float64, count=len(best))
        self._refuted = np.fromiter((v[0] for v in best.values()), dtype=bool, count=len(best))
        # a contradicted pair is no evidence that two units join
        self._conf = np.fromiter((0.0 if v[0] else self.edges[v[2]].confidence for v in best.values()),
                                 dtype=np.float64, count=len(best))
        self._unit_slices: dict[tuple[int, int], tuple[int, int]] | None = None
        self.unit_links: dict[int, dict[int, float]] = {}  # unit -> other unit -> best link confidence
        if rel_group is not None and len(best):
            self._by_units(np.asarray(rel_group, dtype=np.int64))

    def _by_units(self, rel_group: np.ndarray) -> None:
        ga, gb = rel_group[self._src], rel_group[self._dst]
        lo, hi = np.minimum(ga, gb), np.maximum(ga, gb)
        order = np.lexsort((hi, lo))
        self._src, self._dst, self._w, self._conf, self._refuted = (
            a[order] for a in (self._src, self._dst, self._w, self._conf, self._refuted))
        lo, hi = lo[order], hi[order]
        change = np.flatnonzero((np.diff(lo) != 0) | (np.diff(hi) != 0)) + 1
        starts = np.concatenate([[0], change])
        ends = np.concatenate([change, [len(lo)]])
        self._unit_slices = {}
        for a, b in zip(starts.tolist(), ends.tolist()):
            u, v = int(lo[a]), int(hi[a])
            self._unit_slices[(u, v)] = (a, b)
            conf = float(self._conf[a:b].max())
            if u != v and conf > 0.0:
                self.unit_links.setdefault(u, {})[v] = conf
                self.unit_links.setdefault(v, {})[u] = conf

    def endpoints(self, edge: int) -> tuple[int, int]:
        e = self.edges[edge]
        return self.columns[e.child].relation, self.columns[e.parent].relation

    def neighbours(self, node: int) -> list[Adjacent]:
        return self.adj[node]

    @property
    def has_contradicted(self) -> bool:
        return bool(self._refuted.any())

    def _arrays(self, units: Sequence[int] | None, min_cross_confidence: float, contradicted: bool):
        """(src, dst, weight) of the searchable edges: all of them, or those inside `units` plus
        the links between two of them at or above `min_cross_confidence`; contradicted pairs only
        when asked (inside a unit)."""
        if units is None or self._unit_slices is None:
            if contradicted:
                return self._src, self._dst, self._w
            keep = ~self._refuted
            return self._src[keep], self._dst[keep], self._w[keep]
        us = sorted(set(int(u) for u in units))
        parts = []
        for i, u in enumerate(us):
            for v in us[i:]:
                sl = self._unit_slices.get((u, v))
                if sl is None:
                    continue
                part = np.arange(*sl)
                if u != v:
                    part = part[self._conf[part] >= min_cross_confidence]
                elif not contradicted:
                    part = part[~self._refuted[part]]
                parts.append(part)
        take = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        return self._src[take], self._dst[take], self._w[take]

    def _shortest_paths(self, terms: list[int], node_cost: dict[int, float], limit: float,
                        units: Sequence[int] | None, min_cross_confidence: float, contradicted: bool):
        """Distances and predecessors from each terminal over the relations the searchable edges
        touch (renumbered, so the search is as large as the answer's units); entering a relation
        costs its node cost (default 1) on top of the edge weight. Paths longer than `limit` are
        not searched. Returns (dist, pred, local id of each relation, relation of each local id)."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import dijkstra

        src, dst, w = self._arrays(units, min_cross_confidence, contradicted)
        nodes = np.unique(np.concatenate([src, dst, np.asarray(terms, dtype=np.int64)]))
        local = {int(n): i for i, n in enumerate(nodes.tolist())}
        ls, ld = np.searchsorted(nodes, src), np.searchsorted(nodes, dst)
        cost = np.ones(len(nodes), dtype=np.float64)
        if node_cost:
            keys = np.fromiter(node_cost.keys(), dtype=np.int64)
            vals = np.fromiter(node_cost.values(), dtype=np.float64)
            pos = np.searchsorted(nodes, keys)
            ok = (pos < len(nodes)) & (nodes[np.minimum(pos, len(nodes) - 1)] == keys)
            cost[pos[ok]] = vals[ok]
        graph = csr_matrix((w + cost[ld], (ls, ld)), shape=(len(nodes), len(nodes)))
        dist, pred = dijkstra(graph, directed=True, indices=[local[t] for t in terms], return_predecessors=True,
                              limit=limit)
        return dist, pred, local, nodes

    def steiner_tree(self, terminals: Sequence[int], node_cost: dict[int, float] | None = None,
                     max_hops_cost: float = 12.0, units: Sequence[int] | None = None,
                     min_cross_confidence: float = 0.0, contradicted: bool = False) -> tuple[list[int], list[int]]:
        """Edges (indices) of a near-minimal tree connecting `terminals`, and the terminals left
        unconnected (no path within the cost limit). `node_cost` (0..1, default 1) is the price of
        entering a relation: question-relevant bridges are cheaper. With `units`, only relations
        of those units are searched, and a link between two units only at or above
        `min_cross_confidence`. `contradicted`: also search the pairs the names join and the data
        refutes (for what links alone leave unjoined)."""
        terms = list(dict.fromkeys(terminals))
        if len(terms) < 2:
            return [], []
        cost = node_cost or {}
        dist, pred, local, nodes = self._shortest_paths(terms, cost, max_hops_cost, units, min_cross_confidence,
                                                        contradicted)
        row = {t: i for i, t in enumerate(terms)}
        # Prim over the metric closure of the terminals (components handled separately). Between
        # equally short paths, the one from the relation the question scores best (lowest entry
        # cost): "orders per store" joins orders to stores, not order lines to stores.
        in_tree = {terms[0]}
        closure_edges: list[tuple[int, int]] = []
        remaining = set(terms[1:])
        while remaining:
            best = None
            for u in sorted(in_tree):
                for v in sorted(remaining):
                    d = float(dist[row[u], local[v]])
                    rank = (round(d, 9), cost.get(u, 1.0))
                    if best is None or rank < best[0]:
                        best = (rank, u, v)
            if best is None or best[0][0] == math.inf:
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
            node, target = local[v], local[u]
            while node != target:
                p = int(prev[node])
                chosen.add(self._pair_edge[(int(nodes[p]), int(nodes[node]))])
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

        def key(e: int) -> tuple[float, float, int]:
            # equally sure edges: the one between the relations the question scores best (the
            # lowest entry costs) closes the tree, "orders per store" joins orders to stores
            return (edge_weight(self.edges[e].confidence), sum(cost.get(n, 1.0) for n in self.endpoints(e)), e)

        out = []
        for e in sorted(edges, key=key):
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
