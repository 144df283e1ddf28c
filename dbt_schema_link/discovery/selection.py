"""Selection: accepted candidates -> one link per (child lineage class, chosen parent class),
oriented, moved to the root of a chain, collapsed over lineage copies."""

from __future__ import annotations

import functools

from dbt_schema_link.discovery.domains import UnionFind, canonical_pair
from dbt_schema_link.discovery.evaluate import Scored
from dbt_schema_link.discovery.materialise import inferred_link
from dbt_schema_link.discovery.evidence import designates, names_or_sql
from dbt_schema_link.discovery.policy import SELECTION
from dbt_schema_link.discovery.records import NAME_SIGNALS, Link
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.verification import pair_rank


def select(scored: dict, settings: DiscoverySettings,
           lineage_uf: UnionFind) -> list[Link]:
    """Accepted candidates -> one link per (child lineage class, chosen parent class)."""
    ok = [s for s in scored.values() if s.block is None and s.trap is None
          and s.confidence >= settings.min_confidence]
    # a partial link (orphans) is the fallback of a child whose values no other parent holds
    # fully: a same-named sibling column with orphans does not beat the key that contains them all;
    # but a partial parent the name designates (`eye_colour_id` -> colour) is beaten only by a full
    # one names or SQL vouch for: a few small ids fit any dense key by numbering alone;
    # and where the name designates one candidate relation (or the SQL joins it), only that one's
    # key may be a partial parent: the entity's key beats a bridge or history table's column
    full = {lineage_uf.find(s.cand.child.key) for s in ok if not _partial(s, settings)}
    full_vouched = {lineage_uf.find(s.cand.child.key) for s in ok if not _partial(s, settings) and names_or_sql(s.raw)}
    partial = [s for s in ok if _partial(s, settings)]
    designated = {lineage_uf.find(s.cand.child.key) for s in partial if _designated(s)}
    ok = [s for s in ok if not _partial(s, settings)
          or (lineage_uf.find(s.cand.child.key) not in (full_vouched if _designated(s) else full)
              and (_designated(s) or lineage_uf.find(s.cand.child.key) not in designated))]
    # orientation: of a->b and b->a keep the better
    best_of_pair: dict[frozenset, Scored] = {}
    for s in ok:
        pair = frozenset((s.cand.child.key, s.cand.parent.key))
        other = best_of_pair.get(pair)
        if other is None or _better(s, other):
            best_of_pair[pair] = s
    ok = list(best_of_pair.values())

    cls = lineage_uf.find
    # group candidates by (child class, parent class)
    groups: dict[tuple, list[Scored]] = {}
    for s in ok:
        groups.setdefault((cls(s.cand.child.key), cls(s.cand.parent.key)), []).append(s)
    by_child_class: dict[object, list[tuple]] = {}
    for gkey in groups:
        by_child_class.setdefault(gkey[0], []).append(gkey)

    ranks: dict[tuple, tuple] = {}

    def group_rank(gkey: tuple) -> tuple:
        rank = ranks.get(gkey)
        if rank is None:
            rank = ranks[gkey] = max(sort_key(s) for s in groups[gkey])
        return rank

    chosen: dict[object, list[tuple]] = {}
    for child_class, gkeys in by_child_class.items():
        gkeys.sort(key=group_rank, reverse=True)
        chosen[child_class] = gkeys[: settings.max_parents_per_child]
    # orientation across lineage copies: of A -> B and B -> A (seen on different copies) keep one
    for child_class in sorted(chosen, key=str):
        for gkey in list(chosen[child_class]):
            reverse = (gkey[1], gkey[0])
            if reverse in chosen.get(gkey[1], ()) and group_rank(reverse) > group_rank(gkey):
                chosen[child_class].remove(gkey)

    # prefer the root of a chain: c -> p where p -> g is itself chosen and c -> g is a candidate
    # nearly as good (two foreign keys of one parent join, but the FK -> key link is the one)
    def group_conf(gkey: tuple) -> float:
        return max(s.confidence for s in groups[gkey])

    for _ in range(4):
        changed = False
        for child_class, gkeys in chosen.items():
            new = []
            for gkey in gkeys:
                parent_class = gkey[1]
                target = gkey
                for up in chosen.get(parent_class, ()):
                    alt = (child_class, up[1])
                    if (alt in groups and alt != gkey and up[1] != child_class
                            and group_conf(alt) >= group_conf(gkey) - SELECTION.root_margin):
                        target = alt
                        break
                changed |= target != gkey
                if target not in new:
                    new.append(target)
            chosen[child_class] = new
        if not changed:
            break

    links: list[Link] = []
    for child_class in sorted(chosen, key=str):
        for gkey in chosen[child_class]:
            members = sorted(groups[gkey], key=lambda s: (str(s.cand.child.ref), str(s.cand.parent.ref)))
            if not settings.collapse_lineage:
                links.extend(inferred_link(s, ()) for s in members)
                continue
            keep = members[canonical_pair([pair_rank(s) for s in members])]
            collapsed = tuple((s.cand.child.ref, s.cand.parent.ref) for s in members if s is not keep)
            links.append(inferred_link(keep, collapsed))
    return links


def _designated(s: Scored) -> bool:
    """The parent is the key of the relation the child's name designates by its whole name, or
    the project's SQL joins the pair."""
    return bool(s.cand.joins) or designates(s.cand.child, s.cand.parent)


def _partial(s: Scored, settings: DiscoverySettings) -> bool:
    """Verified with fewer values contained than a link needs without the names' word for it."""
    return s.exact is not None and s.exact.child_distinct > 0 and s.exact.containment < settings.min_exact_containment


def sort_key(s: Scored) -> tuple:
    child, parent = s.cand.child, s.cand.parent
    coverage = child.distinct / parent.distinct if parent.distinct and child.distinct else 0.0
    return (round(s.confidence, 6), _name_strength(s), round(coverage, 6), round(parent.pk_score, 6),
            -parent.rel.depth, _reverse_text(str(parent.ref)))


def _name_strength(s: Scored) -> float:
    """What the names say, which orders pairs a cap left level (two parents of an all-NULL
    `created_by` at 0.6: the table of users before a list of contacts), never the alphabet."""
    return round(sum(e.strength for e in s.raw if e.signal in NAME_SIGNALS), 6)


@functools.lru_cache(maxsize=1 << 16)
def _reverse_text(text: str) -> tuple:
    return tuple(-ord(ch) for ch in text)  # so that max() prefers the alphabetically first


def _better(a: Scored, b: Scored) -> bool:
    ka = (round(a.confidence, 6), _name_strength(a), a.cand.parent.pk_score, -a.cand.child.pk_score)
    kb = (round(b.confidence, 6), _name_strength(b), b.cand.parent.pk_score, -b.cand.child.pk_score)
    if ka != kb:
        return ka > kb
    return str(a.cand.parent.ref) < str(b.cand.parent.ref)
