"""Measured attributes a question asks about without naming them: "the tallest player" asks for a
height, "heavier than 3500" and "over 3500 lbs" for a weight, "the youngest winners" for an age,
"the longest match" for a duration.

Schemas name the attribute (`height`, `weight`, `age`, `minutes`), questions use the gradable
adjective or the unit, and neither the stemmer nor a small embedding model bridges the two. This is
general English, not any schema's vocabulary: each entry is an attribute of WordNet's
adjective-to-attribute relation (tall/short → height, heavy/light → weight, ...) with its common
units. A question word found here adds the attribute's nouns (and unit words, which schemas use
as column names: `minutes`, `kg`) to the question's terms.
"""

from __future__ import annotations

from dataclasses import dataclass

from dbt_schema_link.linker.text import stem, words


@dataclass(frozen=True)
class Attribute:
    nouns: tuple[str, ...]  # what a schema calls it
    adjectives: tuple[str, ...] = ()  # gradable adjectives (base form; comparatives are derived)
    units: tuple[str, ...] = ()  # words that measure it; in a question they say which attribute is meant


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(("height",), ("tall", "short"), ("cm", "centimeter", "centimetre", "meter", "metre", "feet", "foot", "inch", "inches")),
    Attribute(("weight",), ("heavy", "light"), ("lb", "lbs", "pound", "kg", "kilogram", "gram", "ton", "tonne", "ounce")),
    Attribute(("age",), ("young", "old", "elderly")),
    Attribute(("duration", "length", "minutes", "hours"), ("long", "short", "lengthy", "brief")),
    Attribute(("length",), ("long", "short")),
    Attribute(("width",), ("wide", "narrow")),
    Attribute(("depth",), ("deep", "shallow")),
    Attribute(("speed",), ("fast", "quick", "slow"), ("mph", "kmh")),
    Attribute(("price", "cost"), ("expensive", "cheap", "costly", "pricey"), ("dollar", "usd", "euro", "eur", "cent", "money", "paid", "spent")),
    Attribute(("distance",), ("far", "near", "distant"), ("km", "kilometer", "kilometre", "mile")),
    Attribute(("temperature",), ("hot", "cold", "warm", "cool")),
    Attribute(("population",), ("populous",)),
    Attribute(("size", "area"), ("large", "big", "small", "huge", "tiny")),
)


def _degrees(adjective: str) -> set[str]:
    """An adjective with its comparative and superlative (tall, taller, tallest; heavy, heavier,
    heaviest; large, larger, largest; big, bigger, biggest)."""
    out = {adjective}
    if adjective.endswith("ey"):
        base = adjective[:-2] + "i"  # pricey, pricier
    elif adjective.endswith("y") and adjective[-2] not in "aeiou":
        base = adjective[:-1] + "i"
    elif adjective.endswith("e"):
        base = adjective[:-1]
    elif (len(adjective) <= 4 and adjective[-1] not in "aeiouwxyr" and adjective[-2] in "aeiou"
          and adjective[-3] not in "aeiou"):
        base = adjective + adjective[-1]  # one short vowel before a final consonant doubles it
    else:
        base = adjective
    if len(adjective) <= 6:  # longer adjectives take "more" / "most"
        out |= {base + "er", base + "est"}
    return out


def _table() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for attribute in ATTRIBUTES:
        said = set(attribute.units)
        for adjective in attribute.adjectives:
            said |= _degrees(adjective)
        for word in said:
            nouns = table.setdefault(word, [])
            nouns.extend(n for n in attribute.nouns if n not in nouns)
    return {word: tuple(nouns) for word, nouns in table.items()}


_BY_WORD = _table()


def attribute_terms(text: str) -> list[str]:
    """Stemmed terms of the attributes a question's adjectives and units ask about, in question
    order, none twice ("Return the money rank of the tallest poker player" → ['height'])."""
    out: dict[str, None] = {}
    for word in words(text):
        for noun in _BY_WORD.get(word, _BY_WORD.get(stem(word), ())):  # "pounds", "miles"
            out.setdefault(stem(noun), None)
    return list(out)
