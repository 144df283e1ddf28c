"""Which column names may name a word of a relation's name, found by lookups instead of trying
every (column, relation) pair.

``evidence.relation_match(child, parent)`` says how much a child column's name names the
parent's relation (its name keys) or the parent key column's head. It is above 0 only where a
word of the child's head (an n-gram of ``NameParts.head_ngrams``) and one such target word are

- the same word;
- one a prefix or suffix of the other, the shorter of 3 letters or more (``affix_similarity``);
- near-miss spellings: an edit ratio of at least ``NAMES.fuzzy_ratio_min``, the child's word of
  3 letters or more (``fuzzy_similarity``); two words that far apart in length never are;
- for a relation key, an abbreviation of it (``abbreviation_score`` above 0; a name that may
  abbreviate, no measure word): shorter, the same first letter, its letters among the key's;

and the answer is at most the child word's weight in its name times ``top_weight()`` (the bound of
the target weights and resemblances ``policy`` sets). ``NameReach`` files the words
of a warehouse's column names once (by word, affix, length and first letter), so the names that
may name one target word come from dictionary lookups, one edit-ratio scan of the words of near
length (rapidfuzz) and a first-letter bucket: work that grows with the distinct words of the
warehouse, not with relations times columns. What it returns is a superset; ``relation_match``
still scores each name it lets through.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from rapidfuzz import fuzz, process

from dbt_schema_link.discovery.names import MEASURE_WORDS, NameParts, abbreviation_score, affixes, concat, may_abbreviate
from dbt_schema_link.discovery.policy import NAMES, READING

#: Below the edit ratio's floor by this much, so float rounding never drops a word (a superset).
_RATIO_SLACK = 0.5


def top_weight() -> float:
    """The most a column name whose word weighs 1 can score in ``relation_match``: a name whose
    word weighs ``w`` names nothing above ``w * top_weight()``. The bound of each product that
    function forms (a relation key's weight, a trailing n-gram's at ``relation_tail_factor``
    times it; times an abbreviation's score, or a resemblance), so it stays a bound whatever
    figures ``policy`` sets."""
    relation = max(READING.relation_whole, READING.relation_generic_dropped) * max(1.0, READING.relation_tail_factor)
    abbreviation = NAMES.abbreviation * max(READING.truncation, READING.initial_pieces, READING.subsequence)
    resemblance = max(1.0, READING.affix_base + READING.affix_per_share)  # an edit ratio is at most 1
    return max(max(relation, NAMES.key_head_pattern), abbreviation * relation,
               resemblance * max(relation, NAMES.key_head_fuzzy))


def _letters(word: str) -> int:
    """A bit per letter (hashed into 63 bits): a subsequence's letters are a subset of its word's."""
    mask = 0
    for ch in word:
        mask |= 1 << (ord(ch) % 63)
    return mask


class NameReach:
    """The column names ``names`` whose words (of weight at least ``floor`` in their name) may
    name a target word; see the module docstring."""

    def __init__(self, names: Iterable[NameParts], floor: float) -> None:
        self._by_word: dict[str, set[NameParts]] = {}
        self._abbreviating: dict[str, set[NameParts]] = {}  # the names among them that may abbreviate
        for parts in set(names):
            abbreviates = may_abbreviate(parts)
            for word, weight in parts.head_ngrams().items():
                if weight < floor:
                    continue
                self._by_word.setdefault(word, set()).add(parts)
                if abbreviates and word not in MEASURE_WORDS:
                    self._abbreviating.setdefault(word, set()).add(parts)
        self._by_affix: dict[str, list[str]] = {}  # a proper prefix or suffix -> the words it is one of
        self._by_length: dict[int, list[str]] = {}  # words of 3 letters or more, for the edit ratio
        for word in self._by_word:
            for affix in set(affixes(word)):
                self._by_affix.setdefault(affix, []).append(word)
            if len(word) >= 3:
                self._by_length.setdefault(len(word), []).append(word)
        self._by_first: dict[str, list[tuple[str, int]]] = {}
        for word in self._abbreviating:
            if len(word) >= 2:
                self._by_first.setdefault(word[0], []).append((word, _letters(word)))
        self._memo: dict[tuple[str, tuple[str, ...] | None], frozenset[NameParts]] = {}

    def naming(self, target: str, key_words: tuple[str, ...] | None = None) -> frozenset[NameParts]:
        """The names that may name ``target``: a relation name key with ``key_words``, its words
        (abbreviations are read against those), or a key column's head (``None``)."""
        memo_key = (target, key_words)
        found = self._memo.get(memo_key)
        if found is not None:
            return found
        words = {target, *self._by_affix.get(target, ())}  # the same word; the target inside a longer one
        words.update(affix for affix in affixes(target) if affix in self._by_word)  # a word inside the target
        words.update(self._near_spellings(target))
        out: set[NameParts] = set()
        for word in words:
            out.update(self._by_word.get(word, ()))
        whole = concat(key_words) if key_words is not None else ""
        if whole:  # what abbreviation_score reads: shorter than the key's words, their first letter, their letters
            letters = _letters(whole)
            for word, mask in self._by_first.get(whole[0], ()):
                if len(word) < len(whole) and not mask & ~letters and abbreviation_score(word, key_words) > 0:
                    out.update(self._abbreviating[word])
        found = self._memo[memo_key] = frozenset(out)
        return found

    def _near_spellings(self, target: str) -> list[str]:
        """Words of 3 letters or more within the edit ratio of ``target``: only lengths that can
        reach it are scanned (an edit ratio r needs |a - b| <= (1 - r)(a + b))."""
        if not target:
            return []
        cutoff = 100.0 * NAMES.fuzzy_ratio_min - _RATIO_SLACK
        spread = max(0.0, 1.0 - cutoff / 100.0)
        n = len(target)
        low = max(3, math.floor(n * (1.0 - spread) / (1.0 + spread)))
        high = math.ceil(n * (1.0 + spread) / (1.0 - spread)) if spread < 1.0 else max(self._by_length, default=0)
        out: list[str] = []
        for length in range(low, high + 1):
            bucket = self._by_length.get(length)
            if bucket:
                out += [word for word, _, _ in process.extract(target, bucket, scorer=fuzz.ratio, score_cutoff=cutoff,
                                                               limit=None)]
        return out
