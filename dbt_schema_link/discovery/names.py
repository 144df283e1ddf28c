"""Name analysis: tokens, singular forms, key suffixes, relation stems, role names, and the name
evidence of one (child, parent) pair.

Everything here works on normalized *keys*: singular lower-case tokens joined without separators
(``CustomerId``, ``customer_id`` and ``CUSTOMERS_ID`` all give tokens ``customer, id`` and head key
``customer``), so name lookups are dictionary lookups, never pairwise comparisons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from rapidfuzz import fuzz

_WORDS = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

#: Final tokens that make a column name key-like, with how key-like (1 = surely a key).
KEY_SUFFIXES: dict[str, float] = {
    "id": 1.0, "uid": 1.0, "uuid": 1.0, "guid": 1.0, "key": 1.0, "sk": 1.0, "pk": 1.0, "fk": 1.0,
    "code": 0.8, "cd": 0.8, "no": 0.8, "num": 0.8, "nbr": 0.8, "nr": 0.8, "ref": 0.7,
    "number": 0.6,
}
#: Leading tokens marking a foreign key (``fk_customer``).
KEY_PREFIXES = frozenset({"fk", "id"})
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
    HIERARCHY = "hierarchy"  # manager_id, parent_id, reports_to -> the same table (or people)


_PERSON_ROLE_WORDS = frozenset({
    "owner", "author", "creator", "assignee", "reporter", "reviewer", "approver", "rep",
    "representative", "agent", "requester", "requestor", "sponsor", "editor", "salesperson",
    "salesman", "recruiter", "interviewer", "modifier", "updater", "submitter", "handler",
})
_HIERARCHY_ROLE_WORDS = frozenset({
    "manager", "supervisor", "boss", "parent", "superior", "mentor", "lead", "referrer",
})
_PERSON_VERB_TO = frozenset({"assigned", "sent", "delegated", "escalated", "allocated"})
_HIERARCHY_VERB_TO = frozenset({"report", "reports", "reporting"})

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
    flag_name: bool  # is_active, has_x, x_flag, x_yn
    generic: bool  # a bare key (id, code, key) that names no entity

    @property
    def norm(self) -> str:
        return concat(self.tokens)

    @property
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
        out[concat(head)] = 1.0
        noun_end = n - 1 if n > 1 and head[-1] in PREPOSITIONS else n
        for size in range(min(n - 1, 4), 0, -1):
            for start in range(0, n - size + 1):
                gram = head[start:start + size]
                if gram[-1] in PREPOSITIONS or gram[0] in PREPOSITIONS:
                    continue
                key = concat(gram)
                if len(key) < 2:
                    continue
                weight = 0.85 if start + size in (n, noun_end) else 0.45
                if out.get(key, 0.0) < weight:
                    out[key] = weight
        return out


#: Words that link a verb or role to its object (``caused_by_ship``, ``ship_via``).
PREPOSITIONS = frozenset({"by", "to", "of", "in", "on", "at", "for", "the", "a", "via", "from", "with"})


def analyse_column(name: str) -> NameParts:
    toks = tokens(name)
    key_suffix: str | None = None
    head = list(toks)
    keyness = 0.0
    if head and head[-1] in KEY_SUFFIXES:
        key_suffix = head[-1]
        keyness = KEY_SUFFIXES[key_suffix]
        head = head[:-1]
    if head and head[0] in KEY_PREFIXES and len(head) > 1:
        keyness = 1.0
        head = head[1:]
    generic = not head
    role = _role_of(tuple(head), key_suffix is not None)
    if role is not None:
        keyness = max(keyness, 0.8)
    elif len(head) > 1 and head[-1] in PREPOSITIONS:
        keyness = max(keyness, 0.6)  # "ship_via", "paid_with": a reference to something
    measure = keyness == 0.0 and any(t in MEASURE_WORDS for t in toks)
    flag_name = bool(toks) and (toks[0] in _FLAG_FIRST or toks[-1] in _FLAG_LAST)
    return NameParts(
        name=name, tokens=toks, head=tuple(head), key_suffix=key_suffix, keyness=keyness,
        role=role, measure=measure, flag_name=flag_name, generic=generic,
    )


def _role_of(head: tuple[str, ...], keyed: bool) -> Role | None:
    if not head:
        return None
    if head[-1] == "by" and len(head) >= 2:
        return Role.PERSON
    if head[-1] == "to" and len(head) >= 2:
        if head[-2] in _HIERARCHY_VERB_TO:
            return Role.HIERARCHY
        if head[-2] in _PERSON_VERB_TO:
            return Role.PERSON
    # a role word must be the head noun (``manager_id``, ``support_rep_id``), not a modifier
    # (``manager_name`` is a name, not a reference)
    if head[-1] in _HIERARCHY_ROLE_WORDS:
        return Role.HIERARCHY
    if head[-1] in _PERSON_ROLE_WORDS:
        return Role.PERSON
    # ... or lead a key name: parent_category_id, owner_user_id (but not manager_name)
    if keyed and len(head) > 1 and head[0] in _HIERARCHY_ROLE_WORDS:
        return Role.HIERARCHY
    if keyed and len(head) > 1 and head[0] in _PERSON_ROLE_WORDS:
        return Role.PERSON
    return None


@dataclass(frozen=True)
class RelationNames:
    """The name keys of one relation, each with how much it names the relation's entity."""

    main: str  # the full stem key ("ordersitem" -> "orderitem")
    keys: dict[str, float]
    people: float  # 0..1: how much this is a table of people

    def abbreviates(self, head_key: str) -> bool:
        """``cont`` (ContId) abbreviates ``continent``; ``stu`` (StuID) ``student``."""
        if len(head_key) < 2:
            return False
        return any(k.startswith(head_key) for k in self.keys if len(k) > len(head_key))


def analyse_relation(names: list[str], prefixes: tuple[str, ...]) -> RelationNames:
    """Name keys of a relation from its names (identifier, node name, ...)."""
    keys: dict[str, float] = {}
    main = ""
    for raw in names:
        if not raw:
            continue
        base = raw.split(".")[-1]
        variants = [base]
        if "__" in base:  # dbt convention stg_<source>__<entity>
            variants.append(base.rsplit("__", 1)[1])
        for variant in variants:
            stripped = _strip_prefix(variant, prefixes)
            toks = list(tokens(stripped))
            if not toks:
                continue
            _add_keys(keys, toks, 1.0)
            if not main:
                main = concat(toks)
            if len(toks) > 1 and toks[-1] in GENERIC_TABLE_WORDS:
                _add_keys(keys, toks[:-1], 0.9)
            if len(toks) > 1 and toks[0] in GENERIC_TABLE_WORDS:
                _add_keys(keys, toks[1:], 0.9)
    people = 0.0
    for key, weight in keys.items():
        people = max(people, PEOPLE_WORDS.get(key, 0.0) * (1.0 if weight >= 0.9 else 0.8))
    return RelationNames(main=main, keys=keys, people=people)


def _add_keys(keys: dict[str, float], toks: list[str], weight: float) -> None:
    full = concat(toks)
    keys[full] = max(keys.get(full, 0.0), weight)
    for start in range(1, len(toks)):  # trailing n-grams: the head noun ("tv_channel" -> "channel")
        key = concat(toks[start:])
        if len(key) >= 3:
            keys[key] = max(keys.get(key, 0.0), 0.75 * weight)


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
        return 0.55 + 0.4 * len(short) / len(long_)
    return 0.0


def fuzzy_similarity(a: str, b: str) -> float:
    """Edit-distance similarity in [0, 1] (rapidfuzz ratio)."""
    if not a or not b:
        return 0.0
    return fuzz.ratio(a, b) / 100.0
