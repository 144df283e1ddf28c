"""Per-relation and per-column features that every later stage reads: name parts, type family,
profile statistics, key-ness (how much a column looks like its relation's primary key), flags,
free text, MinHash signature, DAG depth. Built once, in one pass over the project."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from dbt_schema_link.artifacts.records import ColumnRef, Project, Relation, ResourceType
from dbt_schema_link.artifacts.dag import relation_depths, relation_parents
from dbt_schema_link.discovery.names import (
    DATE_WORDS, NameParts, RelationNames, Vocabulary, analyse_column, analyse_relation, is_glued, project_glued,
    strip_table_prefix, table_column_prefix, with_compound_heads, without_taken,
)
from dbt_schema_link.discovery.policy import KEY, NAMES, TRAPS
from dbt_schema_link.discovery.settings import DiscoverySettings
from dbt_schema_link.discovery.types import NUMERIC_FAMILIES, TypeFamily, column_family, is_day_type
from dbt_schema_link.profiling.records import FLAG_WORDS as FLAG_VALUES  # noqa: F401 - re-exported
from dbt_schema_link.profiling.records import ColumnProfile, ProfileSet, RelationProfile


@dataclass(eq=False, slots=True)
class RelInfo:
    uid: str
    relation: Relation
    names: RelationNames
    profile: RelationProfile | None
    has_data: bool  # profiled and at least one row
    depth: int  # DAG depth: sources/seeds 0, a model 1 + its deepest parent
    origins: frozenset[str] = frozenset()  # the sources (or seed/model roots) it derives from
    #: a model that copies one relation's columns unchanged and nothing else (``select * from
    #: source``: a package's ``_tmp`` view): no layer a person tests (``lineage.mark_pass_through``)
    pass_through: bool = False
    #: a model whose query groups its rows (a report or aggregate: ``SqlFacts.grouped``): its
    #: grouping columns are unique by construction, no entity's key (``traps.find_trap``)
    grouped: bool = False
    columns: list[ColInfo] = field(default_factory=list)
    key_columns: list[ColInfo] = field(default_factory=list)  # its primary-key candidates
    sample_fraction: float = field(init=False)

    @property
    def row_count(self) -> int:
        return self.profile.row_count if self.profile else 0

    @property
    def few_rows(self) -> bool:
        """Loaded with ``TRAPS.tiny_parent_rows`` rows or fewer: every column of it is unique,
        and the keys it holds are a sample's, not all there are."""
        return 0 < self.row_count <= TRAPS.tiny_parent_rows

    def __post_init__(self) -> None:
        #: Fraction of rows the profile's statistics describe (asked once per scored pair): below
        #: 1.0 only for a sample of rows. A value-coordinated sample read every row and scaled its
        #: distinct counts, and its signatures hold the same values as the full column's: no
        #: scaling (RelationProfile.row_fraction).
        self.sample_fraction = self.profile.row_fraction if self.profile else 1.0


@dataclass(eq=False, slots=True)  # one per column (a million at XL): no __dict__ each
class ColInfo:
    ref: ColumnRef
    rel: RelInfo
    position: int
    parts: NameParts
    family: TypeFamily
    profile: ColumnProfile | None  # None when not profiled or its relation has no rows
    signature: np.ndarray | None
    borrowed: np.ndarray | None = None  # bool per position: filled by densification (see sketch.py)
    unique: bool | None = None  # None: unknown (no values)
    flag: bool = False
    free_text: bool = False
    numeric_values: bool = False  # values are digits (integer type, or text that holds numbers)
    day_values: bool = False  # every value is a day: a DATE, or text of ISO days (``2017-09-08``)
    pk_score: float = 0.0  # 0..1 how much this is its relation's primary key
    declared_pk: bool = False
    declared_unique: bool = False  # a `unique` test or constraint of the project says so: an alternate key
    table_key: bool = False  # among its relation's key_columns (asked once per scored pair)
    aggregate: bool = False  # its model's SQL computes it with count/sum/avg (set from SqlFacts)
    #: its name's head is a name of another relation of the project (``concert_id``: ``concert``)
    names_relation: bool = False
    #: ... and that relation has a key: the entity the column references, so another relation
    #: that merely carries the same key (a bridge, a history, a line table) is never its parent
    names_entity: bool = False
    #: the heads naming the entities whose key this column is, or a lineage copy of (set by
    #: ``lineage.mark_entity_copies``): the seed a staging entity renames is that entity too
    entity_heads: frozenset[str] = frozenset()
    key: tuple[str, str] = field(init=False)  # ref.key(): the column's case-insensitive identity
    has_values: bool = field(init=False)
    all_null: bool = field(init=False)  # profiled and holds no value: its type is the loader's guess
    distinct: int = field(init=False)  # the profile's distinct count (0 without values)

    @property
    def counts_something(self) -> bool:
        """A measure by role: computed by an aggregate in SQL, or named as a count/sum with
        numeric values (or, unprofiled, a numeric type). Never a foreign key on names alone."""
        if self.aggregate:
            return True
        if not self.parts.counts:
            return False
        return self.numeric_values if self.has_values else self.family in NUMERIC_FAMILIES

    def __post_init__(self) -> None:
        # asked millions of times at warehouse scale: plain attributes, set once from the profile
        # (which a ColInfo never changes)
        self.key = self.ref.key()
        self.has_values = self.profile is not None and self.profile.non_null > 0
        self.all_null = self.profile is not None and self.profile.non_null == 0
        self.distinct = self.profile.distinct if self.profile else 0

    @property
    def label(self) -> str:
        return f"{self.rel.relation.short_name}.{self.ref.column}"

    def is_table_key(self) -> bool:
        return self.table_key

    def is_calendar_key(self) -> bool:
        """Its relation's key, unique and made of days: a calendar's (``calendar.day_date``)."""
        return self.table_key and self.day_values and bool(self.unique)


def keys_calendar(child: ColInfo, parent: ColInfo) -> bool:
    """``child`` is a column of days of another relation than the calendar whose key ``parent``
    is, and no calendar's key itself: what makes a date column reference a calendar."""
    return child.day_values and parent.is_calendar_key() and child.rel is not parent.rel and not child.is_calendar_key()


@dataclass
class Features:
    relations: dict[str, RelInfo]
    columns: list[ColInfo]
    by_ref: dict[tuple[str, str], ColInfo]
    k: int  # MinHash signature size (0 without profiles)

    def col(self, ref: ColumnRef) -> ColInfo | None:
        return self.by_ref.get(ref.key())

    def release(self) -> None:
        """Drop the relation -> column references (each column also points at its relation)
        once a run is done: without the cycles, reference counting frees a warehouse's worth
        of features at once, instead of the cyclic collector walking them all afterwards."""
        for rel in self.relations.values():
            rel.columns = []
            rel.key_columns = []


def build_features(project: Project, profiles: ProfileSet | None, settings: DiscoverySettings) -> Features:
    depths = relation_depths(project)
    origins = relation_origins(project, depths)
    use_values = settings.use_values and profiles is not None
    k = profiles.k if use_values and profiles else 0
    relations: dict[str, RelInfo] = {}
    columns: list[ColInfo] = []
    enabled = [uid for uid in sorted(project.relations) if project.relations[uid].enabled]
    rel_names = {uid: analyse_relation(_relation_names(project.relations[uid]), settings.table_prefixes)
                 for uid in enabled}
    # the words relation names use: they tell a glued "orderid" from a word like "valid"
    vocabulary = Vocabulary((key for names in rel_names.values() for key in names.keys),
                            (w for names in rel_names.values() for ws in names.key_words.values() for w in ws))
    rel_names = {uid: with_compound_heads(names, vocabulary.word) for uid, names in rel_names.items()}
    wholes = frozenset(names.main for names in rel_names.values())
    rel_names = {uid: without_taken(names, wholes) for uid, names in rel_names.items()}
    # the heads that name a relation: a column named by one says which relation it references
    relation_heads = {key for names in rel_names.values() for key in names.strong_keys()}
    # one NameParts per distinct name: warehouses repeat names (customer_id in hundreds of
    # relations), and discovery keys its per-name memos by them (equal objects are the same one)
    parts_of: dict[tuple[str, bool], NameParts] = {}
    layout: dict[str, tuple[list, str | None, bool | None]] = {}  # columns in order, table prefix, glued
    for uid in enabled:
        ordered = sorted(project.relations[uid].columns.values(), key=lambda c: (c.index, c.name.lower()))
        prefix = table_column_prefix(list(rel_names[uid].key_words.values()), [c.name for c in ordered])
        layout[uid] = ordered, prefix, is_glued([strip_table_prefix(c.name, prefix) for c in ordered])
    glued_default = project_glued(glued for _, _, glued in layout.values())
    for uid in enabled:
        rel = project.relations[uid]
        prof = profiles.relations.get(uid) if use_values and profiles else None
        names = rel_names[uid]
        info = RelInfo(
            uid=uid, relation=rel, names=names, profile=prof,
            has_data=prof is not None and prof.row_count > 0, depth=depths.get(uid, 0),
            origins=origins.get(uid, frozenset()),
        )
        relations[uid] = info
        ordered, prefix, glued = layout[uid]
        glued = glued_default if glued is None else glued
        for position, col in enumerate(ordered):
            cprof = prof.column(col.name) if prof is not None else None
            if cprof is not None and (cprof.skipped or not info.has_data):
                cprof = None
            family = column_family(col.data_type, cprof.data_type if cprof else None)
            sig = borrowed = None
            if cprof is not None and cprof.minhash and k and len(cprof.minhash) == k:
                sig = np.asarray(cprof.minhash, dtype=np.uint64)
                if cprof.minhash_borrowed:
                    borrowed = np.zeros(k, dtype=bool)
                    borrowed[list(cprof.minhash_borrowed)] = True
            stripped = strip_table_prefix(col.name, prefix)
            parts = parts_of.get((stripped, glued))
            if parts is None:
                parts = parts_of[(stripped, glued)] = analyse_column(stripped, vocabulary, glued)
            ci = ColInfo(
                ref=ColumnRef(uid, col.name), rel=info, position=position, parts=parts, family=family,
                profile=cprof, signature=sig, borrowed=borrowed,
                day_values=_holds_days(family, col.data_type or (cprof.data_type if cprof else None), cprof, parts),
                names_relation=_names_another(parts, names, relation_heads),
            )
            info.columns.append(ci)
            columns.append(ci)
        _classify_columns(info, settings)
    # heads naming a relation that has a key: what an entity's reference is named for
    entity_heads = {key for uid, info in relations.items() if info.key_columns
                    for key in rel_names[uid].strong_keys()}
    for ci in columns:
        ci.names_entity = ci.names_relation and ci.parts.head_key in entity_heads
    by_ref = {c.ref.key(): c for c in columns}
    return Features(relations=relations, columns=columns, by_ref=by_ref, k=k)


def _names_another(parts: NameParts, own: RelationNames, relation_heads: set[str]) -> bool:
    """The column's name is a name of some relation and not of its own (``friend.friend_id``
    names a person in the friend relation, not another relation)."""
    head = parts.head_key
    return not parts.generic and head in relation_heads and not own.named_by(head)


def _relation_names(rel: Relation) -> list[str]:
    out = [rel.identifier, rel.short_name]
    if rel.resource_type is not ResourceType.SOURCE:
        out.append(rel.name)
    return [n for n in out if n]


def _classify_columns(info: RelInfo, settings: DiscoverySettings) -> None:
    declared = {c.lower() for c in info.relation.primary_key}
    single_declared = len(declared) == 1
    alternate = {c.lower() for c in info.relation.unique_columns}
    for ci in info.columns:
        prof = ci.profile
        ci.flag = _is_flag(ci, settings)
        if prof is not None and prof.non_null > 0:
            slack = settings.approx_slack if prof.distinct_approx else 0.0
            null_frac = info.profile.null_fraction(ci.ref.column) if info.profile else 0.0
            ci.unique = (
                prof.uniqueness >= settings.parent_min_uniqueness - slack
                and null_frac <= settings.parent_max_null_fraction
            )
            top = prof.top_values or ()
            ci.numeric_values = ci.family in NUMERIC_FAMILIES or (
                bool(top) and all(_is_number(v) for v in top)
            )
            ci.free_text = (
                ci.family in (TypeFamily.TEXT, TypeFamily.UNKNOWN)
                and (prof.max_len or 0) > settings.free_text_min_len
                and ci.parts.keyness < NAMES.free_text_keyness_max
            )
        else:
            ci.numeric_values = ci.family in NUMERIC_FAMILIES
        ci.declared_pk = single_declared and ci.ref.column.lower() in declared
        ci.declared_unique = ci.declared_pk or ci.ref.column.lower() in alternate
        ci.pk_score = _pk_score(ci)
    best = max((c.pk_score for c in info.columns), default=0.0)
    if best >= KEY.table_key_min:
        # a key found from values alone does not hide a column whose name says "key"
        data_key_only = best < KEY.data_first + KEY.tie
        info.key_columns = [c for c in info.columns if c.pk_score >= KEY.table_key_min and (
            c.pk_score >= best - KEY.tie or (data_key_only and c.parts.keyness >= NAMES.key_name_min and c.unique))]
        for c in info.key_columns:
            c.table_key = True
    else:
        # no name says "key" and the first column is not unique: the one unique column named for
        # its relation is its key (`airports.airport_kode` beside a repeating city; a word no key
        # suffix list knows), in more rows than a tiny enum has values
        by_values = [c for c in info.columns if c.pk_score >= KEY.data_other and c.unique
                     and c.distinct > settings.enum_max_distinct and _names_own_relation(c)]
        if len(by_values) == 1:
            info.key_columns = by_values
            by_values[0].table_key = True


def _names_own_relation(ci: ColInfo) -> bool:
    """A word of the column's name is its relation's name (`airport` in `airport_kode`)."""
    return any(ci.rel.names.named_by(word) for word in ci.parts.tokens)


#: Families a key may come in (decimals, booleans and blobs are not keys).
KEY_FAMILIES = frozenset({TypeFamily.INTEGER, TypeFamily.TEXT, TypeFamily.UUID, TypeFamily.TEMPORAL,
                          TypeFamily.UNKNOWN})


def _pk_score(ci: ColInfo) -> float:
    """How much ``ci`` looks like its relation's primary key: declared 1.0; by name (``id``,
    ``<table>_id``, abbreviations like ``ContId`` in ``continents``) and position; 0 when the values
    show it is not unique or it is a flag/free text."""
    if ci.declared_pk:
        return KEY.declared
    if ci.all_null:
        return 0.0  # rows, and not one value in this column: it keys none of them
    if ci.unique is False or ci.flag or ci.free_text or ci.family in (TypeFamily.BOOLEAN, TypeFamily.OTHER):
        return 0.0
    parts = ci.parts
    names = ci.rel.names
    first = ci.position == 0
    measure = parts.measure and not ci.day_values  # "day" counts days, a column of dates does not
    if parts.keyness >= NAMES.key_name_min:
        if parts.generic:
            score = KEY.generic_first if first else KEY.generic_other
        elif names.named_by(parts.head_key):
            score = KEY.names_relation
        elif (names.abbreviates(parts.head_key) or parts.head_key in names.keys
              or names.abbreviation(parts.head_key)[0] >= KEY.abbreviation_min
              or (len(parts.head_key) == 1 and names.main.startswith(parts.head_key))):  # r_id in race
            score = KEY.abbreviates_relation
        elif parts.role is not None:
            score = KEY.role  # created_by, manager_id: references to other rows
        elif first:
            score = KEY.key_named_first
        else:
            score = KEY.key_named_other
    elif ci.unique and ci.family in KEY_FAMILIES and parts.role is None and not measure:
        # keys from values: unique and non-null in a family keys come in (ssn, uid, name,
        # calendar_date); the first column is the usual place of a table's key
        score = KEY.data_first if first else KEY.data_numbered_other if _numbers_rows(ci) else KEY.data_other
    elif first and parts.role is None and not measure:
        score = KEY.unnamed_first
    else:
        score = KEY.other
    if ci.unique is None:  # no values: the name is all we have
        score *= KEY.unprofiled_factor
    return score


def numbered(col: ColInfo) -> bool:
    """Its values are every integer of their range (a sequence's numbering: 1..n)."""
    prof = col.profile
    if prof is None or prof.min_value is None or prof.max_value is None or prof.distinct_approx:
        return False
    return col.distinct > 1 and prof.max_value - prof.min_value + 1 == col.distinct


def _numbers_rows(ci: ColInfo) -> bool:
    """Integers 1..n (or 0..n-1), each once, every row numbered: what a sequence gives a key."""
    return (ci.family is TypeFamily.INTEGER and bool(ci.unique) and numbered(ci)
            and ci.profile.min_value in (0, 1) and ci.distinct == ci.profile.non_null)


def _is_flag(ci: ColInfo, settings: DiscoverySettings) -> bool:
    if ci.family is TypeFamily.BOOLEAN:
        return True
    prof = ci.profile
    if prof is None:
        return ci.parts.flag_name and ci.parts.keyness == 0.0
    if prof.non_null > 0 and prof.distinct <= settings.flag_max_distinct:
        if ci.parts.keyness >= NAMES.identifier_keyness and ci.family in NUMERIC_FAMILIES:
            # 0s and 1s in a number column under an identifier's name are the first keys of a
            # sequence (a one-row dimension's `store_sk` holds 1), not a yes/no (a 0/1
            # `status_code` is one); schema_link_suggest_candidates decides alike
            return False
        if prof.flag_words:
            return True
        top = prof.top_values
        if top and all(v.strip().lower() in FLAG_VALUES for v in top):
            return True
        if ci.parts.flag_name:
            return True
    return False


#: A day as ISO text (what a DATE's canonical text is).
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _holds_days(family: TypeFamily, data_type: str | None, prof: ColumnProfile | None, parts: NameParts) -> bool:
    """Every value is a day: a DATE column, or text of ten characters whose values are all ISO
    days (its top values: known for low-cardinality columns) or, too many to list, whose name
    says date. Timestamps are instants, not days."""
    if prof is None or prof.non_null == 0:
        return False
    if family is TypeFamily.TEMPORAL:
        return is_day_type(data_type)
    if family not in (TypeFamily.TEXT, TypeFamily.UNKNOWN) or not (prof.min_len == prof.max_len == 10):
        return False
    top = prof.top_values
    if not top:
        return any(t in DATE_WORDS for t in parts.tokens)
    return all(_ISO_DAY.fullmatch(v) for v in top)


def _is_number(text: str) -> bool:
    t = text.strip()
    if t.startswith("-"):
        t = t[1:]
    return bool(t) and t.replace(".", "", 1).isdigit()


def relation_origins(project: Project, depths: dict[str, int]) -> dict[str, frozenset[str]]:
    """Where each relation's data comes from: a source relation its schema (one database or
    system), a seed its project's seeds, a model the union of its parents' origins (its package's
    models when it has no parent). Two relations with no origin in common are unrelated sources."""
    parents = relation_parents(project)
    out: dict[str, frozenset[str]] = {}
    for uid in sorted(project.relations, key=lambda u: (depths.get(u, 0), u)):
        rel = project.relations[uid]
        if rel.resource_type is ResourceType.SOURCE:
            # two dbt sources over one schema are one system; different schemas are not
            where = f"{rel.database or ''}.{rel.schema}" if rel.schema else rel.name.split(".")[0]
            out[uid] = frozenset({f"source:{where}".lower()})
        elif rel.resource_type is ResourceType.SEED:
            out[uid] = frozenset({f"seed:{rel.package_name}"})
        else:
            found = frozenset().union(*(out.get(p, frozenset()) for p in parents[uid]))
            out[uid] = found or frozenset({f"{rel.resource_type.value}:{rel.package_name}"})
    return out


def unrelated_sources(a: RelInfo, b: RelInfo) -> bool:
    return bool(a.origins) and bool(b.origins) and a.origins.isdisjoint(b.origins)
