"""Relation families: date- or number-sharded relations of one shape (`events_20210101` …
`events_20211231`, the same columns) are one relation to a question, not hundreds of
near-identical ones. A family is found from names alone (a common stem, a trailing number or
date) plus identical column sets (names and types), inside one database schema; the index keeps
its latest shard, named by the stem, with the range it stands for."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Mapping

from dbt_schema_link.artifacts.records import Relation
from dbt_schema_link.errors import SchemaLinkError

#: Fewest shards that make a family (two same-shaped tables with numbers are as often two
#: different things, `address1`/`address2`-style, as two shards).
DEFAULT_MIN_SHARDS = 3
#: A shard name: a stem that ends in something other than a digit or separator, an optional
#: separator, then digits (optionally in `_`-separated groups: `2021_01_01`).
_SHARD_RE = re.compile(r"^(?P<stem>.*[^\d_$-])(?P<sep>[_$-]?)(?P<shard>\d+(?:_\d+)*)$")


class FamilySettingsError(SchemaLinkError):
    """A relation-family setting is out of range."""


def check_min_shards(value: int) -> int:
    """`min_shards`: 0 turns families off; otherwise at least 2."""
    if isinstance(value, bool) or not isinstance(value, int) or not (value == 0 or 2 <= value <= 1_000_000):
        raise FamilySettingsError(f"min_shards must be 0 (no relation families) or a whole number ≥ 2, got {value!r}",
                                  option="min_shards")
    return value


@dataclass(frozen=True)
class Family:
    """One family: its shards' unique ids in shard order, and the unsharded relation of the same
    name and shape when there is one (`events` beside `events_2021…`); it stands for the family,
    else the last shard does."""

    stem: str  # the name without the shard suffix ("events")
    shards: tuple[str, ...]
    first: str  # first and last shard identifiers
    last: str
    dated: bool  # every shard suffix reads as a calendar date (YYYYMMDD or YYYYMM)
    base: str | None = None

    @property
    def representative(self) -> str:
        return self.base or self.shards[-1]

    @property
    def folded(self) -> tuple[str, ...]:
        """The members the representative stands for."""
        return tuple(uid for uid in self.shards if uid != self.representative)


def _is_date(digits: str) -> bool:
    try:
        if len(digits) == 8:
            date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
        elif len(digits) == 6:
            date(int(digits[:4]), int(digits[4:]), 1)
        else:
            return False
    except ValueError:
        return False
    return 1900 <= int(digits[:4]) <= 2200


def _signature(rel: Relation) -> frozenset[tuple[str, str]]:
    return frozenset((c.name.lower(), (c.data_type or "").lower()) for c in rel.columns.values())


def _place(rel: Relation, name: str) -> tuple:
    return ((rel.database or "").lower(), (rel.schema or "").lower(), rel.resource_type, name.lower(), _signature(rel))


def find_families(relations: Mapping[str, Relation], min_shards: int = DEFAULT_MIN_SHARDS) -> list[Family]:
    """Families among `relations` (uid → relation): same database, schema, resource type, stem
    and separator, the same column names and types, at least `min_shards` shards."""
    if not check_min_shards(min_shards):
        return []
    buckets: dict[tuple, list[tuple[int, str, str, str]]] = {}
    plain: dict[tuple, str] = {}
    for uid in sorted(relations):
        rel = relations[uid]
        if not rel.columns:
            continue
        plain.setdefault(_place(rel, rel.short_name), uid)
        m = _SHARD_RE.match(rel.short_name)
        if m is not None:
            digits = m.group("shard").replace("_", "")
            key = (*_place(rel, m.group("stem")), m.group("sep"))
            buckets.setdefault(key, []).append((int(digits), uid, rel.identifier, digits))
    out = []
    for key, shards in buckets.items():
        if len(shards) < min_shards:
            continue
        shards.sort()
        stem = _SHARD_RE.match(relations[shards[0][1]].short_name).group("stem")
        out.append(Family(stem, tuple(uid for _, uid, _, _ in shards), shards[0][2], shards[-1][2],
                          all(_is_date(d) for *_, d in shards), plain.get(key[:-1])))
    return sorted(out, key=lambda f: f.representative)
