"""The bounded exact-verification budget: which pairs are worth a check in the warehouse, and
how a result measured on one pair carries to its lineage copies."""

from __future__ import annotations

from dbt_schema_link.artifacts.records import ResourceType
from dbt_schema_link.discovery.domains import PairRank, UnionFind, canonical_pair
from dbt_schema_link.discovery.evaluate import Scored
from dbt_schema_link.discovery.evidence import Block
from dbt_schema_link.discovery.features import ColInfo
from dbt_schema_link.discovery.records import Signal
from dbt_schema_link.discovery.scoring import confidence
from dbt_schema_link.discovery.settings import DiscoverySettings


def pairs_to_verify(scored: dict, settings: DiscoverySettings, lineage_uf: UnionFind,
                    profiled: bool = False) -> list[Scored]:
    """The pairs worth an exact check: usable, not traps, scoring at least
    ``verify_min_confidence``, and (``profiled``: the run has profiles) both relations profiled:
    a declared relation the warehouse lacks was skipped by profiling and is never queried, since
    one missing object must not stop the run; one per lineage group (the pair that would be
    kept), at most ``max_verify_per_child`` per child and ``max_verify_total`` in all, best first."""
    groups: dict[tuple, list[Scored]] = {}
    for s in scored.values():
        if (s.exact is None and s.trap is None and s.block in (None, Block.TYPES_NEED_VALUES)
                and not (profiled and (s.cand.child.rel.profile is None or s.cand.parent.rel.profile is None))
                and _worth_checking(s) >= settings.verify_min_confidence):
            key = (lineage_uf.find(s.cand.child.key), lineage_uf.find(s.cand.parent.key))
            groups.setdefault(key, []).append(s)
    representatives = []
    for members in groups.values():
        members.sort(key=lambda s: (str(s.cand.child.ref), str(s.cand.parent.ref)))
        representatives.append(members[canonical_pair([pair_rank(s) for s in members])])
    representatives.sort(key=lambda s: (-s.confidence, str(s.cand.child.ref), str(s.cand.parent.ref)))
    chosen: list[Scored] = []
    per_child: dict[object, int] = {}
    for s in representatives:
        if len(chosen) >= settings.max_verify_total:
            break
        child_class = lineage_uf.find(s.cand.child.key)
        if per_child.get(child_class, 0) >= settings.max_verify_per_child:
            continue
        per_child[child_class] = per_child.get(child_class, 0) + 1
        chosen.append(s)
    return chosen


def _worth_checking(s: Scored) -> float:
    """The confidence that decides whether a pair is verified: with or without the MinHash
    estimate, whichever is higher — the check replaces the estimate, so a noisy estimate against
    the pair (few minima of a small child in a large parent) must not stop it."""
    without = [e for e in s.raw if e.signal is not Signal.VALUE_CONTAINMENT_ESTIMATE]
    if len(without) == len(s.raw):
        return s.confidence
    return max(s.confidence, confidence(without, s.measured))


def share_with_copies(measured: dict, scored: dict, lineage_uf: UnionFind) -> dict:
    """An exact result measured on one pair holds for its lineage copies (same child class, same
    parent class: pass-through copies of the same columns), so it is applied to all of them."""
    def group(key: tuple) -> tuple:
        return (lineage_uf.find(key[0]), lineage_uf.find(key[1]))

    by_group = {group(key): result for key, result in measured.items()}
    out = dict(measured)
    for key in scored:
        if key not in out and group(key) in by_group:
            out[key] = by_group[group(key)]
    return out


def pair_rank(s: Scored) -> PairRank:
    return PairRank(s.cand.child.rel.depth, s.cand.parent.rel.depth,
                    _is_model(s.cand.child) and _is_model(s.cand.parent), s.confidence,
                    f"{s.cand.child.ref} -> {s.cand.parent.ref}",
                    s.cand.child.rel.pass_through or s.cand.parent.rel.pass_through)


def _is_model(col: ColInfo) -> bool:
    return col.rel.relation.resource_type is ResourceType.MODEL
