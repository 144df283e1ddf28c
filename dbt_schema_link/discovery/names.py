"""Name analysis: tokens, singular forms, key suffixes, relation stems, role names, and the name
evidence of one (child, parent) pair.

Everything here works on normalized *keys*: singular lower-case tokens joined without separators
(``CustomerId``, ``customer_id`` and ``CUSTOMERS_ID`` all give tokens ``customer, id`` and head key
``customer``), so name lookups are dictionary lookups, never pairwise comparisons.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from rapidfuzz import fuzz

from dbt_schema_link.discovery.policy import KEY, NAMES, READING

_WORDS = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

#: Final tokens that make a column name key-like, with how key-like (1 = surely a key).
KEY_SUFFIXES: dict[str, float] = {
    "id": 1.0, "uid": 1.0, "uuid": 1.0, "guid": 1.0, "key": 1.0, "sk": 1.0, "pk": 1.0, "fk": 1.0,
    "code": 0.8, "cd": 0.8, "no": 0.8, "num": 0.8, "nbr": 0.8, "nr": 0.8, "ref": 0.7,
    "number": 0.6,
}
#: Leading tokens marking a foreign key (``fk_customer``).
KEY_PREFIXES = frozenset({"fk", "pk", "id"})
#: Bare key names that carry no entity (``id`` in every table is not evidence of a join).
GENERIC_KEYS = frozenset(KEY_SUFFIXES) | {"pkey", "oid", "rowid"}

#: Trailing relation-name words that do not name the entity (``model_list`` is about models).
GENERIC_TABLE_WORDS = frozenset({"list", "info", "master", "lookup", "table", "data", "tbl", "dim", "ref"})

#: Tokens of quantity/measure columns: values that fall in id ranges by accident.
MEASURE_WORDS = frozenset({
    "amount", "amt", "price", "cost", "total", "sum", "qty", "quantity", "count", "cnt", "age",
    "year", "month", "day", "hour", "minute", "second", "height", "weight", "width", "length",
    "depth", "score", "rating", "rank", "ranking", "percentage", "pct", "percent", "ratio", "rate",
    "balance", "salary", "revenue", "sale", "population", "capacity", "duration", "millisecond",
    "byte", "budget", "tonnage", "killed", "injured", "attendance", "share", "lat", "lon", "lng",
    "latitude", "longitude", "discount", "tax", "fee", "freight", "level", "grade", "point",
    "size", "temperature", "speed", "distance", "version", "stock", "bonus", "earning", "mpg",
    "horsepower", "cylinder", "accelerate", "weekly", "min", "max", "avg", "mean", "median",
    "value", "num", "number", "n", "nb", "cnt", "unit", "units", "sold", "volume", "view", "click",
    "visit", "hit",
})

#: The measure words that never end a key name (``nmbr`` is ``number``, a key suffix as often)
_MEASURE_NOT_KEY = MEASURE_WORDS - frozenset(KEY_SUFFIXES)

#: Tokens that name a date (a text column of ISO days too many to list is read as days by them).
DATE_WORDS = frozenset({"date", "day", "dt"})

#: Words that, leading or ending a name with no key marker, make it a count or a sum
#: (``number_of_orders``, ``order_count``, ``n_items``, ``total_amount``): English grammar of
#: aggregates, not any project's vocabulary.
AGGREGATE_WORDS = frozenset({
    "count", "cnt", "number", "num", "nb", "n", "total", "sum", "qty", "quantity", "amount", "amt",
})

#: Words that make a relation a table of people (targets of ``created_by``, ``owner_id``, ...),
#: with how likely people-roles point at it.
PEOPLE_WORDS: dict[str, float] = {
    "user": 1.0, "employee": 1.0, "emp": 1.0, "staff": 1.0, "agent": 1.0, "worker": 1.0,
    "personnel": 1.0, "person": 0.9, "member": 0.9, "contact": 0.8, "individual": 0.8,
    "party": 0.7, "customer": 0.7, "client": 0.7, "account": 0.5,
}


class Role(Enum):
    """What a role-named column points at."""

    PERSON = "person"  # created_by, owner_id, assigned_to, support_rep_id -> a people table
    #: manager_id, reports_to -> the same table when it holds people, else a table of people
    #: (``stores.manager_id`` names an employee, not a store)
    HIERARCHY = "hierarchy"
    TREE = "tree"  # parent_id, parent_category_id -> the same table, whatever it holds


_PERSON_ROLE_WORDS = frozenset({
    "owner", "author", "creator", "assignee", "reporter", "reviewer", "approver", "rep",
    "representative", "agent", "requester", "requestor", "sponsor", "editor", "salesperson",
    "salesman", "recruiter", "interviewer", "modifier", "updater", "submitter", "handler",
})
_HIERARCHY_ROLE_WORDS = frozenset({
    "manager", "supervisor", "boss", "superior", "mentor", "lead", "referrer",
})
_TREE_ROLE_WORDS = frozenset({"parent"})
_PERSON_VERB_TO = frozenset({"assigned", "sent", "delegated", "escalated", "allocated"})
_HIERARCHY_VERB_TO = frozenset({"report", "reports", "reporting"})

_ROLE_WORDS = _PERSON_ROLE_WORDS | _HIERARCHY_ROLE_WORDS | _TREE_ROLE_WORDS | _PERSON_VERB_TO | _HIERARCHY_VERB_TO

_FLAG_FIRST = frozenset({"is", "has", "can", "should", "was", "flag"})
_FLAG_LAST = frozenset({"flag", "yn", "ind", "bool"})

_SINGULAR_EXCEPTIONS = {
    "people": "person", "children": "child", "men": "man", "women": "woman", "data": "data",
    "series": "series", "species": "species", "news": "news", "status": "status",
    "address": "address", "class": "class", "analysis": "analysis", "bus": "bus",
    "virus": "virus", "campus": "campus", "canvas": "canvas", "alias": "alias", "gas": "gas",
    "bonus": "bonus", "census": "census", "axis": "axis", "basis": "basis", "thesis": "thesis",
    "stats": "stat", "yes": "yes", "bias": "bias", "iris": "iris", "mpg": "mpg", "is": "is",
    "has": "has", "was": "was", "this": "this", "its": "its", "his": "his", "plus": "plus",
    "ids": "id", "uids": "uid", "keys": "key", "nos": "no",
}


def singular(word: str) -> str:
    """A cheap English singular: ``categories`` -> ``category``, ``boxes`` -> ``box``."""
    w = word.lower()
    if w in _SINGULAR_EXCEPTIONS:
        return _SINGULAR_EXCEPTIONS[w]
    if len(w) <= 3 or not w.endswith("s"):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ouses", "auses")):
        return w[:-1]  # house, warehouse, spouse, cause, clause: the singular ends in -use
    if w.endswith(("sses", "shes", "ches", "xes", "zzes", "uses")):
        return w[:-2]
    if w.endswith(("ss", "us", "is")):
        return w
    return w[:-1]


def words(name: str) -> list[str]:
    """Raw lower-case words of an identifier (snake, camel, acronyms, digits)."""
    return [m.group(0).lower() for m in _WORDS.finditer(name)]


def tokens(name: str) -> tuple[str, ...]:
    """Singular lower-case tokens of an identifier."""
    return tuple(singular(w) for w in words(name))


def concat(toks: tuple[str, ...] | list[str]) -> str:
    return "".join(toks)


@dataclass(frozen=True)
class NameParts:
    """A column name taken apart."""

    name: str
    tokens: tuple[str, ...]
    head: tuple[str, ...]  # tokens without the key suffix / fk_ prefix: the entity part
    key_suffix: str | None
    keyness: float  # 0..1: how much the name alone says "this is a key"
    role: Role | None
    measure: bool  # a quantity name (amount, age, height_cm, ...) and not key-like
    counts: bool  # named as a count or sum (number_of_x, x_count, total_x): see AGGREGATE_WORDS
    flag_name: bool  # is_active, has_x, x_flag, x_yn
    generic: bool  # a bare key (id, code, key) that names no entity
    leading_key: bool = False  # the key marker leads (id_color_eye): the entity is the first word

    def __hash__(self) -> int:  # a key of discovery's per-name memos: hashed once, not per lookup
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash(dataclasses.astuple(self))

    # asked for every candidate pair: computed once (a frozen dataclass keeps them in __dict__)
    @cached_property
    def norm(self) -> str:
        return concat(self.tokens)

    @cached_property
    def head_key(self) -> str:
        return concat(self.head)

    def head_ngrams(self) -> dict[str, float]:
        """Contiguous n-grams of the head, keyed, with how much they speak for the whole name:
        the full head 1.0; trailing n-grams, the head noun (``eye_colour`` -> ``colour``), 0.85 —
        also those just before a trailing preposition (``ship_via`` -> ``ship``); leading or
        middle n-grams (``student_enrolment`` -> ``student``) 0.45."""
        head = self.head
        out: dict[str, float] = {}
        n = len(head)
        if n == 0:
            return out
        out[concat(head)] = READING.head_whole
        noun_end = n - 1 if n > 1 and head[-1] in PREPOSITIONS else n
        for size in range(min(n - 1, 4), 0, -1):
            for start in range(0, n - size + 1):
                gram = head[start:start + size]
                if gram[-1] in PREPOSITIONS or gram[0] in PREPOSITIONS:
                    continue
                key = concat(gram)
                if len(key) < 2:
                    continue
                # the head noun ends the name (eye_colour), or starts it after a leading key
                # marker (id_color_eye, as head-first languages write it)
                noun = start + size in (n, noun_end) or (self.leading_key and start == 0)
                weight = READING.head_noun if noun else READING.head_other
                if out.get(key, 0.0) < weight:
                    out[key] = weight
        return out


#: Words that link a verb or role to its object (``caused_by_ship``, ``ship_via``).
PREPOSITIONS = frozenset({"by", "to", "of", "in", "on", "at", "for", "the", "a", "via", "from", "with"})


#: Leading type tags of Hungarian notation (``str_name``, ``int_customer_id``): not words.
TYPE_TAG_PREFIXES = frozenset({
    "int", "str", "txt", "dt", "dtm", "dbl", "flt", "dec", "bln", "bool", "chr", "vch", "lng", "cur",
})


def analyse_column(name: str, known: Vocabulary | None = None, glued: bool = False) -> NameParts:
    """``known`` says whether a word is one the project's relation names use (or abbreviate):
    it lets ``orderid`` split into ``order`` + ``id`` without splitting ``valid``. ``glued``: the
    column's relation writes its names without separators (``causedbyshipid``), so the name is
    also cut into the words ``known`` knows (``caused``, ``by``, ``ship``, ``id``)."""
    toks = list(tokens(name))
    if len(toks) > 1 and toks[0] in TYPE_TAG_PREFIXES:
        toks = toks[1:]
    if toks and toks[-1] not in KEY_SUFFIXES:
        split = split_glued(toks[-1], known, always=GLUED_SUFFIXES_OPEN if glued else ())
        if split is not None:
            toks[-1:] = [singular(split[0]), split[1]]
    if glued and known is not None and toks:
        last_head = len(toks) - (1 if toks[-1] in KEY_SUFFIXES and len(toks) > 1 else 0)
        toks = [w for t in toks[:last_head] for w in segment(t, known.word, known)] + toks[last_head:]
        toks = [singular(t) for t in toks]
    toks = tuple(toks)
    key_suffix: str | None = None
    head = list(toks)
    keyness = 0.0
    if head and head[-1] in KEY_SUFFIXES:
        key_suffix = head[-1]
        keyness = KEY_SUFFIXES[key_suffix]
        head = head[:-1]
    leading_key = False
    if head and head[0] in KEY_PREFIXES and len(head) > 1:
        keyness = READING.key_prefix
        head = head[1:]
        leading_key = key_suffix is None  # id_cliente, fk_customer: the entity word comes first
    elif key_suffix is not None and len(head) == 1 and head[0] in KEY_PREFIXES:
        head = []  # pk_id, fk_id: a key marker plus a key suffix names no entity
    generic = not head
    role = _role_of(tuple(head), key_suffix is not None)
    if role is not None:
        keyness = max(keyness, READING.role_keyness)
    elif len(head) > 1 and head[-1] in PREPOSITIONS:
        keyness = max(keyness, READING.preposition_keyness)  # "ship_via", "paid_with": a reference to something
    # a measure word abbreviated as its consonants is one too (``lvl``, ``rtg``), as a role word is
    measure = keyness == 0.0 and any(t in MEASURE_WORDS or _is_one_of(t, _MEASURE_NOT_KEY) for t in toks)
    counts = keyness == 0.0 and bool(toks) and (toks[0] in AGGREGATE_WORDS or toks[-1] in AGGREGATE_WORDS)
    flag_name = bool(toks) and (toks[0] in _FLAG_FIRST or toks[-1] in _FLAG_LAST)
    return NameParts(
        name=name, tokens=toks, head=tuple(head), key_suffix=key_suffix, keyness=keyness,
        role=role, measure=measure, counts=counts, flag_name=flag_name, generic=generic, leading_key=leading_key,
    )


def _role_of(head: tuple[str, ...], keyed: bool) -> Role | None:
    if not head:
        return None
    if head[-1] == "by" and len(head) >= 2:
        return Role.PERSON
    if head[-1] == "to" and len(head) >= 2:
        if _is_one_of(head[-2], _HIERARCHY_VERB_TO):
            return Role.HIERARCHY
        if _is_one_of(head[-2], _PERSON_VERB_TO):
            return Role.PERSON
    # a role word must be the head noun (``manager_id``, ``support_rep_id``), not a modifier
    # (``manager_name`` is a name, not a reference)
    for words, role in _ROLE_OF_WORD:
        if _is_one_of(head[-1], words):
            return role
    # ... or lead a key name: parent_category_id, owner_user_id (but not manager_name)
    for words, role in _ROLE_OF_WORD if keyed and len(head) > 1 else ():
        if _is_one_of(head[0], words):
            return role
    return None


_ROLE_OF_WORD = ((_TREE_ROLE_WORDS, Role.TREE), (_HIERARCHY_ROLE_WORDS, Role.HIERARCHY),
                 (_PERSON_ROLE_WORDS, Role.PERSON))


@functools.lru_cache(maxsize=1 << 14)  # a project's columns share few head words
def _is_one_of(word: str, words: frozenset[str]) -> bool:
    """``word`` is one of ``words``, or abbreviates one as its consonants do: the first letter,
    then consonants only, in order, ending on its last consonant and keeping most of them
    (``READING.role_abbreviation_share``: ``mgr`` manager, ``rprt`` report, ``ownr`` owner; of
    the measure words, ``lvl`` level, ``rtg`` rating). A word with its own vowels (``age``,
    ``pet``) is a word, not an abbreviation; a truncation (``sup``: supervisor, superior or
    supplier?) says too little to be read as a role."""
    if word in words:
        return True
    if len(word) < 3 or _VOWELS.intersection(word[1:]):
        return False
    for w in words:
        skeleton = w[0] + "".join(ch for ch in w[1:] if ch not in _VOWELS)
        if (w[0] == word[0] and word[-1] == skeleton[-1] and not w.startswith(word) and is_subsequence(word, skeleton)
                and len(word) >= READING.role_abbreviation_share * len(skeleton)):
            return True
    return False


_VOWELS = frozenset("aeiouy")


@dataclass(frozen=True)
class RelationNames:
    """The name keys of one relation, each with how much it names the relation's entity."""

    main: str  # the full stem key ("ordersitem" -> "orderitem")
    keys: dict[str, float]
    people: float  # 0..1: how much this is a table of people
    key_words: dict[str, tuple[str, ...]] = field(default_factory=dict)  # each key's words
    #: ``abbreviation`` answers: asked per candidate pair, and the same words recur across a warehouse
    _abbreviations: dict[str, tuple[float, str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def named_by(self, word: str) -> bool:
        """``word`` is one of this relation's names (as ``KEY.names_relation_min`` allows):
        ``race`` of ``race``, ``channel`` of ``tv_channel``."""
        return self.keys.get(word, 0.0) >= KEY.names_relation_min

    def strong_keys(self) -> list[str]:
        """The keys that are its names (:meth:`named_by`)."""
        return [key for key, weight in self.keys.items() if weight >= KEY.names_relation_min]

    def part_of(self, other: "RelationNames") -> bool:
        """This relation's name begins with the whole of ``other``'s and goes on: its lines,
        history or tags (``journal_cash_line`` of ``journal_cash``)."""
        mine, theirs = self.key_words.get(self.main, ()), other.key_words.get(other.main, ())
        return 0 < len(theirs) < len(mine) and mine[:len(theirs)] == theirs

    def abbreviates(self, head_key: str) -> bool:
        """``cont`` (ContId) abbreviates ``continent``; ``stu`` (StuID) ``student``."""
        if len(head_key) < 2:
            return False
        return any(k.startswith(head_key) for k in self.keys if len(k) > len(head_key))

    def abbreviation(self, head_key: str) -> tuple[float, str]:
        """Best ``abbreviation_score`` of ``head_key`` against this relation's keys, weighted by
        how much each key names the relation, and the key it abbreviates."""
        answer = self._abbreviations.get(head_key)
        if answer is None:
            best, via = 0.0, ""
            for key, weight in self.keys.items():
                score = abbreviation_score(head_key, self.key_words.get(key, (key,))) * weight
                if score > best:
                    best, via = score, key
            answer = self._abbreviations[head_key] = (best, via)
        return answer


def analyse_relation(names: list[str], prefixes: tuple[str, ...]) -> RelationNames:
    """Name keys of a relation from its names (identifier, node name, ...)."""
    keys: dict[str, float] = {}
    key_words: dict[str, tuple[str, ...]] = {}
    main = ""
    for raw in names:
        if not raw:
            continue
        base = raw.split(".")[-1]
        variants = [base]
        if "__" in base:  # dbt convention stg_<source>__<entity>
            variants.append(base.rsplit("__", 1)[1])
        for variant in variants:
            for toks in _singular_readings(_strip_prefix(variant, prefixes)):
                _add_keys(keys, toks, READING.relation_whole, key_words)
                if not main:
                    main = concat(toks)
                if len(toks) > 1 and toks[-1] in GENERIC_TABLE_WORDS:
                    _add_keys(keys, toks[:-1], READING.relation_generic_dropped, key_words)
                if len(toks) > 1 and toks[0] in GENERIC_TABLE_WORDS:
                    _add_keys(keys, toks[1:], READING.relation_generic_dropped, key_words)
    return RelationNames(main=main, keys=keys, people=_people(keys), key_words=key_words)


def _singular_readings(name: str) -> list[list[str]]:
    """The singular tokens of a relation name, and where a word ends in ``-uses`` the reading
    that drops only the ``s``: ``statuses`` is ``status`` but ``warehouses`` is ``warehouse``,
    and which one a plural means is not in its letters (a column says ``warehouse_id``)."""
    raw = words(name)
    toks = [singular(w) for w in raw]
    if not toks:
        return []
    alt = [w[:-1] if w.endswith("uses") else t for w, t in zip(raw, toks)]
    return [toks, alt] if alt != toks else [toks]


def _people(keys: dict[str, float]) -> float:
    people = 0.0
    for key, weight in keys.items():
        people = max(people, PEOPLE_WORDS.get(key, 0.0) * (
            1.0 if weight >= READING.relation_generic_dropped else READING.people_secondary_factor))
    return people


def without_taken(names: RelationNames, wholes: frozenset[str]) -> RelationNames:
    """``names`` whose weaker readings that are another relation's whole name are kept only at
    ``READING.relation_taken``: with a relation `contact`, `contact_list` no longer names a contact."""
    taken = {key for key, weight in names.keys.items()
             if key in wholes and key != names.main and weight < READING.relation_whole}
    if not taken:
        return names
    keys = {key: min(weight, READING.relation_taken) if key in taken else weight for key, weight in names.keys.items()}
    return RelationNames(main=names.main, keys=keys, people=_people(keys), key_words=dict(names.key_words))


def with_compound_heads(names: RelationNames, is_word: Callable[[str], bool]) -> RelationNames:
    """``names`` with the head nouns of its glued words: ``superhero`` read as ``super`` +
    ``hero`` when the project's relation names use ``hero`` (``hero_power``), so ``hero_id``
    names it as ``channel_id`` names ``tv_channel`` (the trailing n-grams, at
    ``READING.relation_tail_factor``). Only words the project's own names use cut a word, so
    ``address`` stays whole unless some relation is named ``dress``."""
    keys, key_words = dict(names.keys), dict(names.key_words)
    changed = False
    for key, weight in names.keys.items():
        if len(names.key_words.get(key, (key,))) != 1:
            continue
        parts = segment(key, is_word)
        for start in range(1, len(parts)):
            tail = concat(parts[start:])
            if len(tail) >= 3 and READING.relation_tail_factor * weight > keys.get(tail, 0.0):
                keys[tail] = READING.relation_tail_factor * weight
                key_words.setdefault(tail, tuple(parts[start:]))
                changed = True
    if not changed:
        return names
    return RelationNames(main=names.main, keys=keys, people=_people(keys), key_words=key_words)


def _add_keys(keys: dict[str, float], toks: list[str], weight: float,
              key_words: dict[str, tuple[str, ...]]) -> None:
    full = concat(toks)
    keys[full] = max(keys.get(full, 0.0), weight)
    key_words.setdefault(full, tuple(toks))
    for start in range(1, len(toks)):  # trailing n-grams: the head noun ("tv_channel" -> "channel")
        key = concat(toks[start:])
        if len(key) >= 3:
            keys[key] = max(keys.get(key, 0.0), READING.relation_tail_factor * weight)
            key_words.setdefault(key, tuple(toks[start:]))


def _strip_prefix(name: str, prefixes: tuple[str, ...]) -> str:
    low = name.lower()
    for prefix in prefixes:
        if low.startswith(prefix) and len(low) > len(prefix):
            return name[len(prefix):]
    return name


def affixes(key: str, min_len: int = 3) -> list[str]:
    """Proper prefixes and suffixes of a key (for the fuzzy index): ``superhero`` -> ``sup``,
    ``supe``, ..., ``hero``, ``ero``."""
    out = []
    for size in range(min_len, len(key)):
        out.append(key[:size])
        out.append(key[-size:])
    return out


def affix_similarity(a: str, b: str) -> float:
    """Similarity of two keys when one is a prefix or suffix of the other (``hero`` and
    ``superhero``: 0.73; ``ship`` and ``shipper``: 0.78); 0 otherwise."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < 3 or short == long_:
        return 0.0
    if long_.startswith(short) or long_.endswith(short):
        return READING.affix_base + READING.affix_per_share * len(short) / len(long_)
    return 0.0


def fuzzy_similarity(a: str, b: str) -> float:
    """Edit-distance similarity in [0, 1] (rapidfuzz ratio)."""
    if not a or not b:
        return 0.0
    return fuzz.ratio(a, b) / 100.0


# -- conventions that hide the words: glued key suffixes, per-table prefixes, abbreviations ----

#: Key suffixes that may be glued to the entity word (``custkey``, ``orderid``, ``itemsk``); one
#: splits off only when the rest is a word the project's relation names know (``monkey``,
#: ``valid`` and ``casino`` stay whole).
GLUED_SUFFIXES = ("key", "sk", "id", "code", "num", "nbr", "no")
#: Shortest entity word left after splitting a glued suffix.
GLUED_MIN_HEAD = 3


#: Suffixes that split off without a known head in relations whose names are all glued.
GLUED_SUFFIXES_OPEN = ("id", "key", "sk")


def split_glued(token: str, known: Callable[[str], bool] | None,
                always: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """``custkey`` -> (``cust``, ``key``) when ``known("cust")`` (or the suffix is in ``always``);
    ``None`` when it does not split."""
    for suffix in GLUED_SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= GLUED_MIN_HEAD:
            head = token[: -len(suffix)]
            if suffix in always or (known is not None and known(head)):
                return head, suffix
    return None


#: Short words a glued name may end a part with (``causedby``, ``reportsto``, ``supportrep``).
SEGMENT_WORDS = frozenset({"by", "to", "of", "in", "on", "at", "for", "via", "from", "with"})


def segment(token: str, is_word: Callable[[str], bool], leads: Callable[[str], bool] | None = None) -> list[str]:
    """Cut a glued token into words from the right: the longest known word (3+ letters, or a
    preposition/role word) that ends it, then the same on what is left (``causedbyship`` ->
    ``caused``, ``by``, ``ship``); what no known word ends stays whole. ``leads``: whether a
    word starts a known one (``ship`` of ``shipper``), enough before a closing preposition
    (``shipvia``)."""
    parts: list[str] = []
    rest = token

    def known_word(w: str) -> bool:
        return (len(w) >= 3 and is_word(w)) or w in _ROLE_WORDS

    def cuts_at(i: int) -> bool:
        tail, before = rest[i:], rest[:i]
        if known_word(tail):
            return True
        # a preposition between two words, or ending a name after a known word or verb
        # (``causedbyship``, ``shipvia``, ``reportsto``; never the "on" of ``destination``)
        return tail in SEGMENT_WORDS and (bool(parts) or known_word(before) or (leads is not None and leads(before)))

    while len(rest) >= 4:
        cut = next((i for i in range(2, len(rest) - 1) if cuts_at(i)), None)
        if cut is None:
            break
        parts.insert(0, rest[cut:])
        rest = rest[:cut]
    parts.insert(0, rest)
    return parts


def is_subsequence(short: str, long_: str) -> bool:
    it = iter(long_)
    return all(ch in it for ch in short)


@functools.lru_cache(maxsize=1 << 18)  # the same (head, relation name) pairs recur across columns
def abbreviation_score(short: str, words_: tuple[str, ...]) -> float:
    """How surely ``short`` abbreviates the name made of ``words_`` (0 when it does not), by
    general rules: a truncation of the whole (``cust`` customer, 0.9), a concatenation of leading
    pieces of consecutive words from the first (``hdemo`` household_demographics, ``cr``
    catalog_returns, 0.85), or an ordered subsequence keeping the first and last letters
    (``qty`` quantity, ``mgr`` manager, 0.75). Two letters count only as an initialism."""
    whole = concat(words_)
    if len(short) < 2 or not whole or short == whole or short[0] != whole[0]:
        return 0.0
    if len(short) >= 3 and whole.startswith(short):
        return READING.truncation
    if len(words_) > 1 and _pieces(short, words_):
        return READING.initial_pieces
    # over several words the last letter proves little: `created` is spelt inside
    # central_department_record, first and last letters too
    kept = len(short) >= SUBSEQUENCE_MIN_SHARE * len(whole)
    if len(short) >= 3 and is_subsequence(short, whole) and (kept or (short[-1] == whole[-1] and len(words_) == 1)):
        return READING.subsequence  # qty ~ quantity, btl ~ battle
    return 0.0


#: A subsequence abbreviation that does not keep the last letter of a one-word name, or that
#: abbreviates a name of several words, must keep this share of the letters (``btl`` battle: 3 of 6).
SUBSEQUENCE_MIN_SHARE = 0.5


def may_abbreviate(parts: NameParts) -> bool:
    """Whether a column's head may be read as an abbreviation of a relation name: a key-like
    name (``cust_id``) or a one-word name (``con``); a word among others (``discount_pct``)
    abbreviates nothing. Measure words (``qty``, ``pct``) never do."""
    return (parts.keyness >= NAMES.key_name_min or len(parts.head) == 1) and not parts.measure


def _pieces(short: str, words_: tuple[str, ...]) -> bool:
    """``short`` is w1[:a] + w2[:b] + ... for consecutive words from the first, each piece
    non-empty, using at least two words."""
    def rec(s: str, i: int, used: int) -> bool:
        if not s:
            return used >= 2
        if i >= len(words_):
            return False
        w = words_[i]
        for n in range(min(len(w), len(s)), 0, -1):
            if w.startswith(s[:n]) and rec(s[n:], i + 1, used + 1):
                return True
        return False

    return rec(short, 0, 0)


#: A relation's columns share a table prefix when at least this share of them start with the
#: same leading word and that word abbreviates the relation's name.
TABLE_PREFIX_MIN_SHARE = 0.6
#: Table prefixes are short tags (``o``, ``ps``, ``inv``, ``web``); a longer shared word is a name.
TABLE_PREFIX_MAX_LEN = 4


def table_column_prefix(relation_words: list[tuple[str, ...]], column_names: list[str]) -> str | None:
    """The per-table column prefix (``o`` in orders' ``o_orderkey``, ``o_custkey``; ``ss`` in
    store_sales), or ``None``: the leading word most columns share, when it abbreviates (or
    equals) one of the relation's names, and stripping it leaves every such column a name."""
    if len(column_names) < 2:
        return None
    firsts: dict[str, int] = {}
    for name in column_names:
        ws = words(name)
        if len(ws) >= 2:
            firsts[ws[0]] = firsts.get(ws[0], 0) + 1
    if not firsts:
        return None
    word, count = max(firsts.items(), key=lambda kv: (kv[1], kv[0]))
    if count < max(2, TABLE_PREFIX_MIN_SHARE * len(column_names)) or len(word) > TABLE_PREFIX_MAX_LEN:
        return None
    # an entity word, not a tag: stripping it would leave a bare key (CustomerID, CustomerTypeID)
    if any(tokens(strip_table_prefix(name, word)) in BARE_KEYS for name in column_names):
        return None
    for rw in relation_words:
        whole = concat(rw)
        # most columns share it, so a loose test suffices: it spells the name in order
        if whole and (whole == singular(word) or (word[0] == whole[0] and is_subsequence(word, whole))):
            return word
    return None


#: Token tuples of a bare key name (``("id",)``): what a stripped table prefix must not leave.
BARE_KEYS = frozenset((k,) for k in GENERIC_KEYS)


def strip_table_prefix(name: str, prefix: str | None) -> str:
    """The column name without its table prefix (``o_custkey`` -> ``custkey``)."""
    if not prefix:
        return name
    ws = words(name)
    if len(ws) < 2 or ws[0] != prefix:
        return name
    low = name.lower()
    cut = low.find(prefix) + len(prefix)
    rest = name[cut:].lstrip("_- .")
    return rest or name


class Vocabulary:
    """The words a project's relation names use, for ``analyse_column(known=...)``: a word is
    known when it is a relation-name key or a truncation (3+ letters) of one; ``word`` asks for
    the word itself (a key, or one word of a relation's name)."""

    def __init__(self, keys: Iterable[str], words_: Iterable[str] = ()) -> None:
        self._keys = sorted(set(k for k in keys if k))
        self._set = set(self._keys)
        self._words = self._set | {w for w in words_ if len(w) >= 3}

    def word(self, word: str) -> bool:
        return word in self._words

    def __call__(self, word: str) -> bool:
        if word in self._set:
            return True
        if len(word) < GLUED_MIN_HEAD:
            return False
        i = bisect.bisect_left(self._keys, word)
        return i < len(self._keys) and self._keys[i].startswith(word)


#: Longest piece of a word in a generated initialism, and most words used.
INITIALISM_PIECE = 4
INITIALISM_WORDS = 3


@functools.lru_cache(maxsize=1 << 16)  # relation names repeat their words (north_components, south_components)
def initialisms(words_: tuple[str, ...]) -> frozenset[str]:
    """Every concatenation of leading pieces (1..4 letters) of the first 2..3 consecutive words:
    the short forms ``abbreviation_score`` accepts as pieces (``hd``, ``hdemo``, ``cr``), so a
    dictionary can find them."""
    out: set[str] = set()
    use = words_[:INITIALISM_WORDS]

    def rec(i: int, acc: str, used: int) -> None:
        if used >= 2:
            out.add(acc)
        if i >= len(use):
            return
        w = use[i]
        for n in range(1, min(len(w), INITIALISM_PIECE) + 1):
            rec(i + 1, acc + w[:n], used + 1)

    if len(use) >= 2:
        rec(0, "", 0)
    return frozenset(out)


#: A relation writes its names glued when at least this share of its columns are one word
#: (``orderkey``, ``causedbyshipid``); snake_case or camelCase relations never get near it.
GLUED_MIN_SHARE = 0.85


def is_glued(column_names: list[str]) -> bool | None:
    """Whether a relation's column names carry no word separators (see ``GLUED_MIN_SHARE``);
    ``None`` for a relation of fewer than three columns, which says too little to tell. A number
    ending a word is no separator (``line1``, ``address2``)."""
    if len(column_names) < 3:
        return None
    single = sum(1 for n in column_names if len([w for w in words(n) if not w.isdigit()]) == 1)
    return single >= GLUED_MIN_SHARE * len(column_names)


def project_glued(verdicts: Iterable[bool | None]) -> bool:
    """What a relation too small to tell is taken to write (a two-column bridge table): glued
    when at least ``GLUED_MIN_SHARE`` of the relations that tell are."""
    told = [v for v in verdicts if v is not None]
    return bool(told) and sum(told) >= GLUED_MIN_SHARE * len(told)
