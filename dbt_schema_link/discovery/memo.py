"""Re-linking after a change: each child's scored candidates are kept with a digest of everything
they were computed from, so the next run re-scores only the children whose inputs changed.

What a child's scores read: the run's scope (settings, signature size, the relations there are,
declared tests, the SQL facts), its own relation and each candidate parent's relation (record,
profile, DAG depth and origins: a column's features follow from those and the scope), and its
candidate list (parents, sources, SQL joins). A child gets its stored scores back when its
candidate list's digest is unchanged and its own and its parents' relations' digests are too; the
others are scored. Most children's candidates are not even generated again: where no relation
whose digest changed is the child's own or one of its last parents, is filed under a name-index
entry its name looks up (:func:`.candidates.index_keys`, :func:`.candidates.lookup_keys`; the
changed relations' column names unchanged), holds a calendar, and its value lookup's last answer
stands (:mod:`.lookup_reuse`), its candidates are the last run's (:func:`unaffected`).
The verified pass is kept the same way, its digest adding the exact results of the child's pairs.
Exact checks themselves run every time: a view over a changed table holds new data under an
unchanged profile. The result is the one a full run gives; ``tests/discovery/test_relink.py`` and
``tests/test_relink_cli.py`` compare them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np

from dbt_schema_link import __version__
from dbt_schema_link.artifacts.records import Project
from dbt_schema_link.discovery.candidates import (
    Candidate, CandidateCounts, CandidateSources, NameRoles, Source, index_keys, lookup_keys, name_roles,
)
from dbt_schema_link.discovery.evaluate import Scored
from dbt_schema_link.discovery.evidence import Block
from dbt_schema_link.discovery.features import ColInfo, Features, RelInfo
from dbt_schema_link.discovery.lookup_reuse import KeptLookups
from dbt_schema_link.discovery.names import NameParts
from dbt_schema_link.discovery.records import Evidence, Signal, Trap
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.sqlfacts import SqlFacts, SqlJoin
from dbt_schema_link.discovery.values import ContainmentEstimate
from dbt_schema_link.profiling.records import ColumnProfile, ContainmentResult, RelationProfile

#: Bumped when what a stored score holds, or what its digest covers, changes.
MEMO_VERSION = 4
#: A memo is reused only by the package version that wrote it (scoring changes between versions).
MEMO_VERSION_TAG = f"{__version__}/{MEMO_VERSION}"

Digest = bytes
PairKey = tuple[tuple[str, str], tuple[str, str]]
Child = tuple[str, str]
#: One scored pair as kept, in plain values only: parent key, sources, SQL joins (positions in the
#: run's joins), raw evidence, confidence, block, trap, estimate, exact result, measured. The
#: parent key, each evidence item (signal, strength, detail, contribution) and the trap are
#: positions in the memo's ``shared`` table: a warehouse's pairs repeat them (897k evidence items,
#: 108k distinct at 100k columns), and a position reads back without rebuilding its strings.
#: The child is the entry's key.
Stored = tuple
#: A child's kept scores: the digest they were computed from, its scored pairs as one ``marshal``
#: blob (a warehouse's memo is millions of pairs: as bytes they are one object per child, not
#: dozens per pair, and a reused child's blob is written back as it was read) and, before
#: verification, its candidates' ``CandidateCounts`` fields and parent relations (positions in
#: ``shared``): what a child whose candidates are not generated again adds to the run.
ChildScores = tuple[Digest, bytes, tuple | None]


@dataclass
class ScoreMemo:
    """The scores of one run, for the next, in plain values. ``scope``: the digest of what every
    child's scores depend on (a different scope reuses nothing)."""

    version: str
    scope: Digest
    relations: dict[str, Digest] = field(default_factory=dict)  # relation unique_id -> its digest
    first: dict[tuple[str, str], ChildScores] = field(default_factory=dict)  # scored before verification
    final: dict[tuple[str, str], ChildScores] = field(default_factory=dict)  # scored with exact results
    #: the plain values stored scores point at (``Stored``); only ever appended to, so a reused
    #: child's blob keeps pointing at the right ones
    shared: list = field(default_factory=list)
    #: ``len(shared)`` when the table was started: a memo whose table has grown past
    #: ``SHARED_GROWTH`` times that (relinks add what re-scored children say) is not reused
    shared_start: int = 0
    #: the run's value lookups (``None``: not kept), for the next run's candidates
    lookups: KeptLookups | None = None
    #: relation unique_id -> the digest of its column names, and its columns' roles in the name
    #: index (``candidates.name_roles``): with the scope, what its name-index entries follow from
    names: dict[str, Digest] = field(default_factory=dict)
    roles: dict[str, NameRoles] = field(default_factory=dict)
    #: the run's calendar keys (``candidates.calendars``)
    calendars: tuple = ()

    def usable(self, scope: Digest) -> bool:
        """Whether a run of ``scope`` can reuse this memo's scores."""
        return (self.version == MEMO_VERSION_TAG and self.scope == scope
                and len(self.shared) <= SHARED_GROWTH * max(self.shared_start, 1))


#: How far a memo's shared table may grow through relinks before a run starts a fresh one.
SHARED_GROWTH = 2


@dataclass
class MemoUse:
    """How much of the last run's memo a run could use."""

    children_reused: int = 0
    children_scored: int = 0
    children_generated: int = 0  # children whose candidates were generated (the others' are the last run's)
    lookups_reused: int = 0  # value lookups whose last answer stood


@dataclass
class Relink:
    """Re-linking after a change (``discover(relink=...)``): ``previous`` (the last run's memo,
    or ``None``) is read; ``memo`` (this run's, for the next) and ``use`` (what was reused) are
    filled in by the run."""

    previous: ScoreMemo | None = None
    memo: ScoreMemo | None = None
    use: MemoUse = field(default_factory=MemoUse)


def keeps_memo(project: Project, settings: DiscoverySettings) -> bool:
    """Whether a run keeps a scores memo: projects of at most ``relink_max_columns`` columns."""
    return sum(len(r.columns) for r in project.relations.values()) <= settings.relink_max_columns


# -- digests --------------------------------------------------------------------------------------
# Records built from dbt's JSON hold strings, numbers, enums, tuples, lists and dicts in file
# order, so their ``repr`` is the same in every process; ``hash()`` is not (Python salts it).

def digest(*parts: object) -> Digest:
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).digest()


def scope_digest(project: Project, settings: DiscoverySettings, k: int, facts: SqlFacts) -> Digest:
    """What every child's scores depend on beyond its own and its parents' relations: the
    settings, the signature size, which relations there are and their names (the vocabulary that
    splits glued names), declared tests and the SQL facts (joins, copies, aggregates)."""
    names = sorted((uid, rel.identifier, rel.name, rel.resource_type.value, rel.enabled)
                   for uid, rel in project.relations.items())
    return digest(settings, k, names, project.declared_links, facts.joins, facts.copies, facts.aggregates)


_PROFILE_FIELDS = attrgetter(*(f.name for f in dataclasses.fields(ColumnProfile)
                               if f.name not in ("minhash", "minhash_borrowed")))
_RELATION_PROFILE_FIELDS = attrgetter(*(f.name for f in dataclasses.fields(RelationProfile) if f.name != "columns"))


def relation_digests(features: Features) -> dict[str, Digest]:
    """Each relation's digest: its record, profile (signatures as bytes), DAG depth and origins."""
    return {uid: _relation_digest(info) for uid, info in features.relations.items()}


def _relation_digest(info: RelInfo) -> Digest:
    h = hashlib.blake2b(repr((info.relation, info.depth, sorted(info.origins))).encode(), digest_size=16)
    profile = info.profile
    if profile is not None:  # one text and one byte string per relation: 100,000s of columns
        columns = profile.columns.items()
        h.update(repr((_RELATION_PROFILE_FIELDS(profile),
                       [(name, _PROFILE_FIELDS(col), sorted(col.minhash_borrowed), col.minhash is not None)
                        for name, col in columns])).encode())
        h.update(b"".join(np.asarray(col.minhash).tobytes() for _, col in columns if col.minhash is not None))
    return h.digest()


def name_digests(features: Features) -> dict[str, Digest]:
    """Each relation's column names, as a digest (its columns' ``NameRoles`` are positions in them)."""
    return {uid: digest([c.ref.column for c in info.columns]) for uid, info in features.relations.items()}


def unaffected(previous: ScoreMemo, changed: set[str], names: Mapping[str, Digest], features: Features,
               sources: CandidateSources) -> dict[Child, ChildScores | None]:
    """The children whose candidates are the last run's, with their stored scores (``None``: the
    child had no candidates), given the relations whose digest ``changed``: see the module
    docstring for the rule. Nothing when a changed relation's column names changed (its old
    entries in the name index are not known)."""
    if any(previous.names.get(uid) != names.get(uid) or uid not in previous.roles for uid in changed):
        return {}
    index = sources.names
    affected: set = set()
    for uid in (changed if index is not None else ()):
        rel = features.relations[uid]
        affected |= index_keys(rel, name_roles(rel)) | index_keys(rel, previous.roles[uid])
    calendars = tuple(c.key for c in sources.days)
    days_changed = calendars != previous.calendars or any(uid in changed for uid, _ in calendars + previous.calendars)
    changed_lookups = sources.changed_lookups
    shared = previous.shared
    reads: dict[NameParts, bool] = {}  # per distinct name (warehouses repeat names)
    out: dict[Child, ChildScores | None] = {}
    for child in features.columns:
        key = child.key
        if child.rel.uid in changed or key in changed_lookups or (days_changed and child.day_values):
            continue
        parts = child.parts
        hit = reads.get(parts)
        if hit is None:
            hit = reads[parts] = bool(affected) and not affected.isdisjoint(lookup_keys(parts, index))
        if hit:
            continue
        entry = previous.first.get(key)
        if entry is not None and (entry[2] is None or any(shared[i] in changed for i in entry[2][-1])):
            continue
        out[key] = entry
    return out


def child_digest(child: ColInfo, cands: list[Candidate], joins: Mapping[int, int]) -> Digest:
    """``child``'s candidate list (parents, sources, SQL joins; ``joins``: each SQL join's
    position among the run's joins, by ``id``). With the digests of the child's and the parents'
    relations (:func:`changed_relations`), what its scores were computed from (see the module
    docstring). Asked of every candidate pair: plain attributes only."""
    return digest(child.key, [(c.parent.key, c.sources._value_, c.joins and tuple(joins[id(j)] for j in c.joins))
                              for c in cands])


def changed_relations(previous: Mapping[str, Digest], now: Mapping[str, Digest]) -> set[str]:
    """Relations whose digest differs from the last run's (or that it did not have)."""
    return {uid for uid, d in now.items() if previous.get(uid) != d}


def verified_digest(first: Digest, keys: Iterable[PairKey], exacts: Mapping[PairKey, ContainmentResult]) -> Digest:
    """The verified pass of a child: its first digest and the exact results of its pairs."""
    return digest(first, [None if (e := exacts.get(key)) is None else _exact_fields(e) for key in keys])


# -- keeping and restoring scores ----------------------------------------------------------------

class Interner:
    """Positions in a memo's ``shared`` table, appending what is not there yet. Values are told
    apart by their ``marshal`` bytes, not by ``==``: 1 == 1.0 == True and 0.0 == -0.0, and a
    restored score must be the one stored, to the type and sign."""

    def __init__(self, shared: list) -> None:
        self.shared = shared
        self._index: dict[bytes, int] | None = None  # made when first needed: a relink that re-scores nothing never does

    def __call__(self, value: object) -> int:
        index = self._index
        if index is None:
            index = self._index = {marshal.dumps(v): i for i, v in enumerate(self.shared)}
        key = marshal.dumps(value)
        i = index.get(key)
        if i is None:
            i = index[key] = len(self.shared)
            self.shared.append(value)
        return i


def stored(items: Iterable[Scored], joins: Mapping[int, int], shared: Interner) -> bytes:
    """A child's scored pairs as one ``marshal`` blob (``Stored`` tuples; ``joins``: each SQL
    join's position among the run's joins, by ``id``; ``shared``: positions in the memo's table)."""
    return marshal.dumps(tuple(
        (shared(s.cand.parent.key), s.cand.sources._value_, tuple(joins[id(j)] for j in s.cand.joins),
         tuple(shared((e.signal._value_, e.strength, e.detail, e.contribution)) for e in s.raw),
         s.confidence, None if s.block is None else s.block._value_,
         None if s.trap is None else shared((s.trap[0]._value_, s.trap[1])),
         None if s.estimate is None else _estimate_fields(s.estimate),
         None if s.exact is None else _exact_fields(s.exact), s.measured)
        for s in items))


_ESTIMATE = attrgetter(*(f.name for f in dataclasses.fields(ContainmentEstimate)))
_EXACT = attrgetter(*(f.name for f in dataclasses.fields(ContainmentResult)))


def candidates_kept(cands: Iterable[Candidate], counts: CandidateCounts, shared: Interner) -> tuple:
    """What a child's candidates add to a run (``ChildScores``' third field): their counts and
    parent relations."""
    return (*counts, tuple(shared(uid) for uid in dict.fromkeys(c.parent.rel.uid for c in cands)))


def kept_counts(kept: tuple) -> CandidateCounts:
    return CandidateCounts(*kept[:-1])


def _estimate_fields(est: ContainmentEstimate) -> tuple:
    # numpy integers as Python's: ``marshal`` would write a numpy scalar as its raw bytes
    return tuple(int(v) if isinstance(v, np.integer) else v for v in _ESTIMATE(est))


def _exact_fields(result: ContainmentResult) -> tuple:
    return _EXACT(result)


_SOURCES = tuple(Source(value) for value in range(1 << len(Source)))
_BLOCKS = {block.value: block for block in Block}


class Restorer:
    """Stored scores back as :class:`Scored` over the current features, from the blobs and the
    ``shared`` table of one memo; each shared value is made into its record once (a warehouse's
    pairs repeat "both integer" hundreds of thousands of times)."""

    def __init__(self, features: Features, joins: list[SqlJoin], shared: list) -> None:
        self.features, self.joins, self.shared = features, joins, shared
        self._made: list = [None] * len(shared)  # evidence records and traps, by position

    def _evidence(self, i: int) -> Evidence:
        e = self._made[i]
        if e is None:
            fields = self.shared[i]
            e = self._made[i] = Evidence(Signal(fields[0]), *fields[1:])
        return e

    def _trap(self, i: int) -> tuple[Trap, str]:
        trap = self._made[i]
        if trap is None:
            code, detail = self.shared[i]
            trap = self._made[i] = (Trap(code), detail)
        return trap

    def __call__(self, child: ColInfo, blob: bytes) -> list[Scored]:
        out: list[Scored] = []
        by_ref, shared, joins, made, evidence = self.features.by_ref, self.shared, self.joins, self._made, self._evidence
        sources_of, blocks = _SOURCES, _BLOCKS  # an enum's call is slow, and this is per pair
        for parent, sources, join_ids, raw, conf, block, trap, estimate, exact, measured in marshal.loads(blob):
            kept = tuple([made[i] or evidence(i) for i in raw])
            cand = Candidate(child, by_ref[shared[parent]], sources_of[sources], join_ids and tuple(joins[i] for i in join_ids))
            out.append(Scored(cand, kept, conf, None if block is None else blocks[block],
                              None if trap is None else self._trap(trap),
                              None if estimate is None else ContainmentEstimate(*estimate),
                              None if exact is None else ContainmentResult(*exact), measured))
        return out
