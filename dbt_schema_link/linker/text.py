"""Text handling shared by the index and the question side: identifier splitting, word tokens
with a light stemmer, stop words, and literal extraction from questions.

Everything here is pure and deterministic; the same functions tokenize documents at index time and
questions at ask time, so both sides agree.
"""

from __future__ import annotations

import re
import unicodedata

_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD_RE = re.compile(r"[a-z0-9]+")
_QUOTED_RE = re.compile(r"""(?:"([^"]{1,200})"|'([^']{1,200})'|“([^”]{1,200})”|‘([^’]{1,200})’)""")
_NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")

#: Words that carry no schema evidence in a question (and in descriptions).
STOP_WORDS = frozenset(
    """
    a about above after again all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each either few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who
    whom whose why will with would you your yours yourself yourselves
    show list give find return tell display get please also many much
    """.split()
)

#: Tokens that describe SQL shape rather than schema content; kept out of lexical matching.
SHAPE_WORDS = frozenset(
    "number count average avg sum maximum max minimum min mean least greatest highest lowest "
    "different distinct ascending descending each per every sorted".split()
)


def fold(text: str) -> str:
    """Lower-case, strip accents, collapse whitespace: the canonical form for value matching."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(text.lower().split())


def split_identifier(name: str) -> list[str]:
    """``customerID`` / ``customer_id`` / ``Customer-Id`` → ``['customer', 'id']``."""
    parts: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", name):
        if chunk:
            parts.extend(p.lower() for p in _CAMEL_RE.split(chunk) if p)
    return parts


def identifier_words(name: str) -> str:
    """An identifier as plain words, for embedding text: ``dim_customers`` → ``dim customers``."""
    return " ".join(split_identifier(name))


def stem(word: str) -> str:
    """A light, predictable suffix stripper (plural and a few verb forms)."""
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "oes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """Lower-case word tokens of free text, camelCase and snake_case split."""
    out: list[str] = []
    for token in re.split(r"\s+", text):
        if token:
            out.extend(w for w in _WORD_RE.findall(" ".join(split_identifier(token))) if w)
    return out


def terms(text: str, drop_stop: bool = True) -> list[str]:
    """Stemmed lexical terms (stop words dropped): the BM25 vocabulary."""
    return [stem(w) for w in words(text) if not (drop_stop and w in STOP_WORDS)]


def _abbreviates(short: str, word: str) -> bool:
    """`short` is a shortened form of `word`: same first letter, longer word, and its letters in
    order within the word (truncation `cust`, consonant skeleton `qty`, `nm`)."""
    if len(short) < 2 or len(word) <= len(short) or short[0] != word[0] or not short.isalpha():
        return False
    rest = iter(word[1:])
    return all(ch in rest for ch in short[1:])


def spelled_out(name: str, description: str) -> dict[str, str]:
    """Name term -> the stemmed description word it abbreviates (the first such word), for the
    name terms the description spells out (`cust_nm` / "Customer name": cust -> customer, nm -> name).
    Terms the description already has as words are left alone."""
    if not description:
        return {}
    said = [w for w in words(description) if w not in STOP_WORDS]
    plain = {stem(w) for w in said}
    out: dict[str, str] = {}
    for part in split_identifier(name):
        term = stem(part)
        if term in plain or term in out or part in STOP_WORDS:
            continue  # a whole word already (in any form), or a short word of its own ("on")
        word = next((w for w in said if _abbreviates(part, w) and stem(w) != term), None)
        if word is not None:
            out[term] = stem(word)
    return out


def question_terms(text: str) -> list[str]:
    """Terms of a question: like `terms`, also without words that describe SQL shape."""
    return [t for t in terms(text) if t not in SHAPE_WORDS]


def literals(question: str) -> list[str]:
    """Candidate literal values mentioned in a question, most explicit first.

    Quoted strings, numbers, runs of capitalised words (``New York``, ``3-D Man``), then every
    word n-gram up to four words (the exact value index filters these cheaply).
    """
    seen: dict[str, None] = {}

    def add(value: str) -> None:
        value = value.strip(" .,;:!?()[]")
        if value and fold(value) not in STOP_WORDS:
            seen.setdefault(value, None)

    for match in _QUOTED_RE.finditer(question):
        add(next(g for g in match.groups() if g is not None))
    for match in _NUMBER_RE.finditer(question):
        add(match.group(0))
    tokens = re.findall(r"[\w][\w'&.-]*", question)
    run: list[str] = []
    for i, tok in enumerate(tokens + [""]):
        capital = bool(tok) and (tok[0].isupper() or tok[0].isdigit()) and i > 0
        if capital:
            run.append(tok)
            continue
        if run:
            add(" ".join(run))
            run = []
    for n in (4, 3, 2, 1):
        for i in range(len(tokens) - n + 1):
            add(" ".join(tokens[i : i + n]))
    return list(seen)


def capitalised_spans(question: str) -> list[str]:
    """Quoted strings and runs of capitalised words: the literals worth a fuzzy lookup."""
    out: list[str] = []
    for match in _QUOTED_RE.finditer(question):
        out.append(next(g for g in match.groups() if g is not None))
    tokens = re.findall(r"[\w][\w'&.-]*", question)
    run: list[str] = []
    for i, tok in enumerate(tokens + [""]):
        if tok and i > 0 and tok[0].isupper() and fold(tok) not in STOP_WORDS:
            run.append(tok)
            continue
        if run:
            out.append(" ".join(run))
            run = []
    return list(dict.fromkeys(s.strip() for s in out if s.strip()))
