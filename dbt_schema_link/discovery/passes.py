"""The two scoring passes over candidate pairs, child by child: before exact verification
(estimates, value fits, evidence, the cap per child) and with its results. Given a
:class:`~.memo.Relink`, a child whose inputs are unchanged since the last run gets its stored
scores back instead (:mod:`.memo`); the result is the same either way. Pure."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from dbt_schema_link.discovery import memo as memos
from dbt_schema_link.discovery.candidates import CandidateCounts, CandidateSources, name_roles, pairs
from dbt_schema_link.discovery.domains import UnionFind
from dbt_schema_link.discovery.evaluate import Scored, cap_per_child, evaluate, value_fits
from dbt_schema_link.discovery.evidence import RelationMatches, containment_estimates
from dbt_schema_link.discovery.features import Features
from dbt_schema_link.discovery.memo import Child, ChildScores, Digest, PairKey, Relink, ScoreMemo
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.sqlfacts import SqlJoin
from dbt_schema_link.profiling.records import ContainmentResult


class ScoringPasses:
    """One run's candidates, their estimates and, with a relink, each child's digest and the
    memo this run keeps. The candidates come from ``sources``: every column's, or with a usable
    memo only those of the columns whose candidates may have changed (:func:`.memo.unaffected`);
    the others' scores are the last run's. Children come in column order either way."""

    def __init__(self, sources: CandidateSources, features: Features, settings: DiscoverySettings,
                 lineage_uf: UnionFind, joins: list[SqlJoin], relink: Relink | None = None,
                 scope: Digest = b"") -> None:
        self.sources, self.features, self.settings, self.lineage_uf = sources, features, settings, lineage_uf
        self._by_child: dict[Child, list[PairKey]] | None = None
        self.estimates: dict = {}
        self.matches = RelationMatches()
        self.relink = relink
        self.memo: ScoreMemo | None = None  # this run's, when there is a relink
        self.previous: ScoreMemo | None = None  # the last run's, when it can be used
        self.digests: dict[Child, Digest] = {}
        #: children whose own or a candidate parent's relation changed since the last run
        self.touched: set[Child] = set()
        self.join_ids = {id(join): i for i, join in enumerate(joins)}
        self.restore: memos.Restorer | None = None
        self.shared: memos.Interner | None = None
        #: children whose candidates are the last run's, not generated again (their stored first
        #: scores; ``None``: no candidates)
        self.unchanged: dict[Child, ChildScores | None] = {}
        changed: set[str] = set()
        if relink is not None:
            relations = memos.relation_digests(features)
            previous = relink.previous
            self.memo = relink.memo = ScoreMemo(memos.MEMO_VERSION_TAG, scope, relations,
                                                names=memos.name_digests(features),
                                                roles={uid: name_roles(rel) for uid, rel in features.relations.items()},
                                                calendars=tuple(c.key for c in sources.days))
            if previous is not None and previous.usable(scope):
                self.previous = previous
                # the same table, appended to: the reused children's blobs point into it
                self.memo.shared, self.memo.shared_start = previous.shared, previous.shared_start
                self.restore = memos.Restorer(features, joins, previous.shared)
                changed = memos.changed_relations(previous.relations, relations)
                self.unchanged = memos.unaffected(previous, changed, self.memo.names, features, sources)
            self.shared = memos.Interner(self.memo.shared)
        unchanged = self.unchanged
        generated = [c for c in features.columns if c.key not in unchanged] if unchanged else features.columns
        self.cands, self.child_counts = pairs(sources, generated)
        #: the run's candidates by source, the unchanged children's as the last run counted them
        self.counts = CandidateCounts.of([*self.child_counts.values(),
                                          *(memos.kept_counts(e[2]) for e in unchanged.values() if e is not None)])
        if relink is not None:
            relink.use.children_generated = len(generated)
            cands = self.cands
            self.digests = {child: memos.child_digest(cands[keys[0]].child, [cands[k] for k in keys], self.join_ids)
                            for child, keys in self.by_child.items()}
            self.digests.update((child, entry[0]) for child, entry in unchanged.items() if entry is not None)
            if changed:
                self.touched = {child for child, keys in self.by_child.items()
                                if any(cands[k].child.rel.uid in changed or cands[k].parent.rel.uid in changed
                                       for k in keys)}

    @property
    def by_child(self) -> dict[Child, list[PairKey]]:
        """Each generated child's candidate pairs, in column order (made when first asked: a run
        without a memo or exact checks never needs it, and at a million columns it is a list per
        child)."""
        if self._by_child is None:
            self._by_child = {}
            for key in self.cands:
                keys = self._by_child.get(key[0])
                if keys is None:
                    keys = self._by_child[key[0]] = []
                keys.append(key)
        return self._by_child

    def _generate(self, children: list[Child]) -> None:
        """The candidates of unchanged children after all (their exact results changed)."""
        for child in children:
            cands, _ = self.sources.of(self.features.by_ref[child])
            keys = self.by_child[child] = []
            for cand in cands:
                self.cands[cand.key] = cand
                keys.append(cand.key)

    def _reuse(self, entries: Mapping[Child, ChildScores], digests: Mapping[Child, Digest]) -> dict[Child, list[Scored]]:
        """The stored scores of every child whose digest is unchanged."""
        if self.previous is None or self.restore is None:
            return {}
        out = {}
        touched, by_ref = self.touched, self.features.by_ref
        for child, digest in digests.items():
            entry = entries.get(child)
            if entry is not None and entry[0] == digest and child not in touched:
                out[child] = self.restore(by_ref[child], entry[1])
        return out

    def _estimate(self, children: list[Child]) -> None:
        """Containment estimates of every pair of ``children`` not estimated yet (one batch)."""
        self._estimate_pairs([key for child in children for key in self.by_child[child] if key not in self.estimates])

    def _estimate_pairs(self, keys: list[PairKey]) -> None:
        if not self.settings.use_values:
            self.estimates.update(dict.fromkeys(keys))
            return
        found = containment_estimates([(self.cands[key].child, self.cands[key].parent) for key in keys])
        self.estimates.update(zip(keys, found))

    def _fits(self, children: list[Child], exacts: Mapping[PairKey, ContainmentResult]) -> dict:
        cands = self.cands if len(children) == len(self.by_child) else \
            {key: self.cands[key] for child in children for key in self.by_child[child]}
        return value_fits(cands, self.estimates, exacts, self.settings, self.lineage_uf)

    def _keep(self, kept: dict[Child, ChildScores] | None, child: Child, digest: Digest, items: list[Scored],
              previous: ChildScores | None, first: bool) -> None:
        if kept is None:
            return
        if previous is not None:
            kept[child] = previous
            return
        blob = memos.stored(items, self.join_ids, self.shared)
        candidates = memos.candidates_kept([self.cands[k] for k in self.by_child[child]], self.child_counts[child],
                                           self.shared) if first else None
        kept[child] = (digest, blob, candidates)

    def first(self, lap: Callable[[str], None] = lambda _stage: None) -> dict[PairKey, Scored]:
        """Every candidate scored without exact results, at most ``max_candidates_per_child`` per
        child, best first; children in column order. ``lap(stage)`` is called once the estimates
        are made."""
        if self.relink is None:  # every pair, in the candidates' order
            self._estimate_pairs(list(self.cands))
            lap("containment estimates")
            fits = value_fits(self.cands, self.estimates, {}, self.settings, self.lineage_uf)
            return cap_per_child((evaluate(cand, self.settings, self.estimates[key], fits.get(key), None, self.matches)
                                  for key, cand in self.cands.items()), self.settings.max_candidates_per_child)
        previous = self.previous.first if self.previous is not None else {}
        reused = self._reuse(previous, self.digests)
        todo = [child for child in self.by_child if child not in reused]
        self._estimate(todo)
        lap("containment estimates")
        fits = self._fits(todo, {})
        # each pair's evaluation is capped as it comes: a child's dropped pairs are never all held
        capped = cap_per_child((evaluate(self.cands[key], self.settings, self.estimates[key], fits.get(key), None,
                                         self.matches) for child in todo for key in self.by_child[child]),
                               self.settings.max_candidates_per_child)
        kept = self.memo.first if self.memo is not None else None
        if not reused:  # a first run: the capped pairs are the scores, in their order
            if kept is not None:
                for child, items in _by_child(capped.values()):
                    self._keep(kept, child, self.digests[child], items, None, True)
            scored = capped
        else:
            scored = {}
            fresh = _by_child(capped.values())
            by_child = self.by_child
            for child in (c.key for c in self.features.columns if c.key in by_child or c.key in reused):
                items = reused.get(child)
                if items is None:
                    _, items = next(fresh)  # the children scored come in this same order
                self._keep(kept, child, self.digests[child], items, previous.get(child) if child in reused else None,
                           True)
                for s in items:
                    scored[s.cand.key] = s
        self.relink.use.children_reused, self.relink.use.children_scored = len(reused), len(todo)
        self._started()
        return scored

    def _started(self) -> None:
        """A memo whose table this run started: its size is where growth is measured from."""
        if self.memo is not None and self.previous is None:
            self.memo.shared_start = len(self.memo.shared)

    def verified(self, scored: dict[PairKey, Scored], exacts: Mapping[PairKey, ContainmentResult]) -> None:
        """Score every kept pair again, in place, with the exact results (a measured pair without
        one is capped as unverified)."""
        kept_children: dict[Child, list[PairKey]] = {}
        for key in scored:
            kept_children.setdefault(key[0], []).append(key)
        digests = {child: memos.verified_digest(self.digests[child], keys, exacts)
                   for child, keys in kept_children.items()} if self.memo is not None else {}
        previous = self.previous.final if self.previous is not None else {}
        reused = self._reuse(previous, digests)
        todo = [child for child in kept_children if child not in reused]
        self._generate([child for child in todo if child not in self.by_child])
        self._estimate(todo)
        fits = self._fits(todo, exacts)
        kept = self.memo.final if self.memo is not None else None
        for child, keys in kept_children.items():
            items = reused.get(child)
            if items is None:
                items = [evaluate(scored[key].cand, self.settings, self.estimates[key], fits.get(key), exacts.get(key),
                                  self.matches, checked=True) for key in keys]
            self._keep(kept, child, digests.get(child, b""), items, previous.get(child) if child in reused else None,
                       False)
            for s in items:
                scored[s.cand.key] = s
        self._started()


def _by_child(scored: Iterable[Scored]) -> Iterator[tuple[Child, list[Scored]]]:
    """(child, its pairs) of scores that come child by child."""
    child, items = None, []
    for s in scored:
        key = s.cand.child.key
        if key != child and items:
            yield child, items
            items = []
        child = key
        items.append(s)
    if items:
        yield child, items
