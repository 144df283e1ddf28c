"""links.json of a real project, read with the dbt unique ids kept.

fkbench.product reads links.json of a sources-only project and names a column by its table alone;
a real project has seeds, sources and models of several layers whose names may repeat
(`seed.x.orders`, `model.x.orders`), and its labels name dbt nodes, so here a column is
`(unique_id, column)` with the column lower-cased. What is read (links.json v3):

- every link whose `kind` is not `lineage` (fkbench.product.EXCLUDED_KINDS) is a join, with its
  `provenance` (`inferred`, `sql`: discovered; `declared`: a relationships test or constraint of
  the project; `written`: one `write` wrote), confidence, a composite key's `extra_pairs`, and
  `collapsed` (the pairs between lineage copies of its two columns the link stands for);
- every `lineage` link is a copy: child column selected unchanged (perhaps renamed) from the
  parent column (`lineage_map`), which is how a column of a layered project is traced back to
  the seed it comes from (judge.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from fkbench.product import EXCLUDED_KINDS

Ref = tuple[str, str]  # (dbt unique id, column lower-cased)
Pair = tuple[Ref, Ref]  # (child, parent)

#: Provenances of links the product found itself (what precision and the bands are about).
DISCOVERED = frozenset({"inferred", "sql"})


def ref(entry: dict) -> Ref:
    return (str(entry["relation"]), str(entry["column"]).lower())


def relation_name(unique_id: str) -> str:
    """The node's name: the last part of its unique id (`model.pkg.stg_x__order_tmp` -> `stg_x__order_tmp`)."""
    return unique_id.rsplit(".", 1)[-1]


def is_tmp(unique_id: str) -> bool:
    """A `_tmp` view: the pass-through `select *` of a source a Fivetran package stages first."""
    return relation_name(unique_id).lower().endswith("_tmp")


@dataclass(frozen=True)
class Link:
    child: Ref
    parent: Ref
    provenance: str
    confidence: float
    extra: tuple[Pair, ...] = ()
    collapsed: tuple[Pair, ...] = ()

    @property
    def pairs(self) -> tuple[Pair, ...]:
        """(child, parent), then a composite key's further pairs."""
        return ((self.child, self.parent),) + self.extra

    @property
    def discovered(self) -> bool:
        return self.provenance in DISCOVERED

    @property
    def on_tmp(self) -> bool:
        return is_tmp(self.child[0]) or is_tmp(self.parent[0])

    def name(self) -> str:
        """`child_rel.col -> parent_rel.col` (a composite: `rel.(a,b) -> rel.(c,d)`)."""
        def side(i: int) -> str:
            cols = [p[i][1] for p in self.pairs]
            rel = relation_name(self.pairs[0][i][0])
            return f"{rel}.{cols[0]}" if len(cols) == 1 else f"{rel}.({','.join(cols)})"
        return f"{side(0)} -> {side(1)}"


def _pair(entry: dict) -> Pair:
    return (ref(entry["child"]), ref(entry["parent"]))


def join_links(doc: dict) -> list[Link]:
    """Every link of links.json that is a join (not lineage), in file order."""
    out = []
    for entry in doc.get("links", []):
        if entry.get("kind") in EXCLUDED_KINDS:
            continue
        out.append(Link(ref(entry["child"]), ref(entry["parent"]), str(entry.get("provenance") or entry.get("kind")),
                        float(entry.get("confidence") or 0.0),
                        tuple(_pair(x) for x in entry.get("extra_pairs", ())),
                        tuple(_pair(x) for x in entry.get("collapsed", ()))))
    return out


def lineage_map(doc: dict) -> dict[Ref, list[Ref]]:
    """Copy column -> the upstream columns it is selected from (the `lineage` links)."""
    out: dict[Ref, list[Ref]] = {}
    for entry in doc.get("links", []):
        if entry.get("kind") in EXCLUDED_KINDS:
            child, parent = _pair(entry)
            out.setdefault(child, [])
            if parent not in out[child]:
                out[child].append(parent)
    return out


def provenance_counts(links: list[Link]) -> dict[str, int]:
    out: dict[str, int] = {}
    for link in links:
        out[link.provenance] = out.get(link.provenance, 0) + 1
    return dict(sorted(out.items()))
