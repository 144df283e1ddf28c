"""Score found links against the planted joins.

A column is `(table, column)`; a model column is replaced by the source column it copies
(lineage), so `stg_orders.customer_id ~ stg_customers.customer_id` counts as the planted
`orders.customer_id -> customers.id`. A link is an unordered pair (direction is not scored);
lineage links and links between two copies of one column are left out. Lenient precision also
accepts a link between two references to the same planted parent (a real join path).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fkbench.scoring import Score as Counts

from .spec import Warehouse

Column = tuple[str, str]


def table_of(unique_id: str) -> str:
    return unique_id.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Score(Counts):
    """fkbench's counts and rates (``gold`` is the number of planted joins), plus recall by kind
    of planted join and examples of what went wrong."""

    by_kind: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> (found, planted)
    false_positives: list[list[str]] = field(default_factory=list)
    missed: list[list[str]] = field(default_factory=list)

    @property
    def planted(self) -> int:
        return self.gold

    def to_dict(self, examples: int = 25) -> dict:
        return {"planted": self.planted, "found": self.found, "tp": self.tp, "lenient_tp": self.lenient_tp,
                "recall": self.recall, "precision": self.precision, "lenient_precision": self.lenient_precision,
                "recall_by_kind": {k: {"found": f, "planted": p, "recall": round(f / p, 4) if p else None}
                                   for k, (f, p) in sorted(self.by_kind.items())},
                "false_positive_examples": self.false_positives[:examples],
                "missed_examples": self.missed[:examples]}


def _norm(c: Column) -> Column:
    return (c[0].lower(), c[1].lower())


def score_pairs(w: Warehouse, found: set[frozenset]) -> Score:
    """`found`: unordered pairs of (table, column), any case; model columns allowed."""
    copies = {_norm(k): _norm(v) for k, v in w.copies.items()}

    def root(c: Column) -> Column:
        c = _norm(c)
        for _ in range(10):
            if c not in copies:
                break
            c = copies[c]
        return c

    planted = {frozenset((_norm(p.child), _norm(p.parent))): p.kind for p in w.planted}
    parents: dict[Column, set[Column]] = {}
    for p in w.planted:
        parents.setdefault(_norm(p.child), set()).add(_norm(p.parent))
    mapped = set()
    for pair in found:
        ends = [root(c) for c in pair]
        if len(ends) == 2 and ends[0] != ends[1]:
            mapped.add(frozenset(ends))
    tp = mapped & set(planted)
    lenient = 0
    for pair in mapped - set(planted):
        a, b = tuple(pair)
        if parents.get(a, set()) & parents.get(b, set()):
            lenient += 1
    by_kind: dict[str, list[int]] = {}
    for pair, kind in planted.items():
        entry = by_kind.setdefault(kind, [0, 0])
        entry[1] += 1
        entry[0] += pair in tp
    show = lambda pairs: sorted(sorted(f"{t}.{c}" for t, c in p) for p in pairs)  # noqa: E731
    return Score(gold=len(planted), found=len(mapped), tp=len(tp), lenient_tp=len(tp) + lenient,
                 by_kind={k: (v[0], v[1]) for k, v in by_kind.items()},
                 false_positives=show(mapped - set(planted)), missed=show(set(planted) - tp))


def links_pairs(links_json: dict) -> set[frozenset]:
    """Joins in a links.json document (declared + inferred; lineage left out)."""
    out = set()
    for link in links_json.get("links", []):
        if link.get("kind") == "lineage":
            continue
        for child, parent in [(link["child"], link["parent"])] + [
                (c["child"], c["parent"]) for c in link.get("collapsed", [])]:
            out.add(frozenset(((table_of(child["relation"]), child["column"]),
                               (table_of(parent["relation"]), parent["column"]))))
    return out
