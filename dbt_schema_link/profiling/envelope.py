"""Parse the `@@schema_link@@` envelope out of `dbt --log-format json` output (docs/envelope.md).

Pure functions: lines in, typed records out. A run that printed no `begin`, an unknown format
version, or no `end` (dbt died mid-run) is reported, never guessed at.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.records import (
    HASH_MASK,
    ColumnProfile,
    ContainmentResult,
    RelationProfile,
)
from dbt_schema_link.profiling.sketch import densify, parse_buckets, sparse_text
from dbt_schema_link.dbt_runner import LogMessage, parse_log_line  # noqa: F401 - re-exported

SENTINEL = "@@schema_link@@"
FORMAT = "dbt_schema_link/profiles"
#: v2 adds `minhash_buckets` (one-permutation MinHash); v1 envelopes still read.
SUPPORTED_FORMAT_VERSIONS = frozenset({1, 2})
#: Bounds a hostile or corrupt `minhash_buckets` before anything is allocated for it.
MAX_MINHASH_BUCKETS = 4096
_KINDS = ("begin", "relation", "containment", "end")


@dataclass
class Envelope:
    header: dict[str, Any] | None = None
    relations: list[dict[str, Any]] = field(default_factory=list)
    containment: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None

    @property
    def complete(self) -> bool:
        return self.header is not None and self.end is not None


def feed(envelope: Envelope, msg: str) -> str | None:
    """Add one log message to the envelope; returns the envelope line kind, or None."""
    if not msg.startswith(SENTINEL):
        return None
    rest = msg[len(SENTINEL):].strip()
    kind, _, payload = rest.partition(" ")
    if kind not in _KINDS:
        return None
    try:
        body = json.loads(payload) if payload else {}
    except (ValueError, RecursionError) as exc:
        raise WarehouseError(f"schema_link envelope line '{kind}' is not valid JSON ({_json_error(exc)}): upgrade the dbt_schema_link package (dbt deps)") from None
    if not isinstance(body, dict):
        raise WarehouseError(f"schema_link envelope line '{kind}' is not a JSON object: upgrade the dbt_schema_link package (dbt deps)")
    if kind == "begin":
        version = body.get("format_version")
        if body.get("format") != FORMAT or type(version) is not int or version not in SUPPORTED_FORMAT_VERSIONS:
            raise WarehouseError(
                f"the dbt_schema_link macros speak envelope {_short(body.get('format'))} v{_short(version)}, "
                f"this CLI reads v{max(SUPPORTED_FORMAT_VERSIONS)}: install matching versions (pip install / dbt deps)"
            )
        envelope.header = body
    elif kind == "relation":
        envelope.relations.append(body)
    elif kind == "containment":
        envelope.containment.append(body)
    else:
        envelope.end = body
    return kind


def parse_envelope(lines: Iterable[str]) -> Envelope:
    envelope = Envelope()
    for line in lines:
        message = parse_log_line(line)
        if message is not None:
            feed(envelope, message.msg)
    return envelope


def _json_error(exc: Exception) -> str:
    """One line saying why json.loads failed."""
    if isinstance(exc, json.JSONDecodeError):
        return exc.msg
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return " ".join(str(exc).split())[:120] or type(exc).__name__


def _short(value: Any) -> str:
    """A value from the envelope quoted in a one-line message."""
    return json.dumps(value)[:60] if not isinstance(value, (str, int)) or isinstance(value, bool) else " ".join(str(value).split())[:60]


def _int(value: Any, default: int = 0) -> int:
    if value is None or value == "":
        return default
    try:
        return int(float(value)) if isinstance(value, str) and "." in value else int(value)
    except (TypeError, ValueError, OverflowError):
        return default


def _float(value: Any) -> float | None:
    if value is None or value == "" or isinstance(value, (bool, dict, list)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _finite(value: Any) -> float | None:
    """A numeric minimum or maximum; infinities and NaN (float columns can hold them) are not
    a range anything can be compared against."""
    number = _float(value)
    return number if number is not None and math.isfinite(number) else None


def _opt_int(value: Any) -> int | None:
    return None if value is None or value == "" else _int(value)


#: A count or length no warehouse exceeds (a signed 64-bit integer): anything past it, or below 0,
#: is damage, clamped here so that every ratio and power downstream stays a finite float.
MAX_COUNT = 2**63 - 1


def _count(value: Any) -> int:
    return min(max(_int(value), 0), MAX_COUNT)


def _opt_count(value: Any) -> int | None:
    n = _opt_int(value)
    return None if n is None else min(max(n, 0), MAX_COUNT)


_NO_SIGNATURE: tuple[tuple[int, ...] | None, frozenset[int]] = (None, frozenset())


def _minhash(value: Any, buckets: Any = None) -> tuple[tuple[int, ...] | None, frozenset[int]]:
    """(signature, borrowed positions). k minima as comma-separated text or a list; with
    ``buckets`` (envelope v2), one-permutation ``bucket:minimum`` pairs densified to that many."""
    if value is None or value == "":
        return _NO_SIGNATURE
    if buckets is not None:
        k = _int(buckets)
        if not isinstance(value, str) or not 0 < k <= MAX_MINHASH_BUCKETS:
            return _NO_SIGNATURE
        try:
            return densify(parse_buckets(value), k) or _NO_SIGNATURE
        except (ValueError, OverflowError):
            return _NO_SIGNATURE
    return _kminhash(value), frozenset()


def _kminhash(value: Any) -> tuple[int, ...] | None:
    parts = value.split(",") if isinstance(value, str) else value
    if not isinstance(parts, list):
        return None
    try:
        return tuple(int(p) & HASH_MASK for p in parts if str(p).strip() != "")
    except (TypeError, ValueError, OverflowError):
        return None


def column_profile(raw: dict[str, Any]) -> ColumnProfile:
    top = raw.get("top_values")
    minhash, borrowed = _minhash(raw.get("minhash"), raw.get("minhash_buckets"))
    return ColumnProfile(
        name=str(raw.get("name", "")),
        data_type=raw.get("data_type") if isinstance(raw.get("data_type"), str) else None,
        non_null=_count(raw.get("non_null")),
        distinct=_count(raw.get("distinct")),
        distinct_approx=bool(raw.get("distinct_approx")),
        min_len=_opt_count(raw.get("min_len")),
        max_len=_opt_count(raw.get("max_len")),
        min_value=_finite(raw.get("min_value")),
        max_value=_finite(raw.get("max_value")),
        minhash=minhash,
        minhash_borrowed=borrowed,
        top_values=tuple(str(v) for v in top) if isinstance(top, list) else None,
        is_flag=bool(raw.get("is_flag")),
        skipped=raw.get("skipped") if isinstance(raw.get("skipped"), str) else None,
    )


def relation_profile(raw: dict[str, Any]) -> RelationProfile:
    if not isinstance(raw, dict) or not isinstance(raw.get("unique_id"), str):
        raise WarehouseError("schema_link envelope relation has no unique_id: upgrade the dbt_schema_link package (dbt deps)")
    raw_columns = raw.get("columns")
    columns = [column_profile(c) for c in (raw_columns if isinstance(raw_columns, list) else []) if isinstance(c, dict)]
    return RelationProfile(
        unique_id=raw["unique_id"],
        relation=str(raw.get("relation", "")),
        row_count=_count(raw.get("row_count")),
        sampled=bool(raw.get("sampled")),
        sample_percent=_float(raw.get("sample_percent")),
        columns={c.name.lower(): c for c in columns},
    )


def containment_result(raw: dict[str, Any]) -> ContainmentResult:
    return ContainmentResult(
        child=str(raw.get("child", "")),
        child_column=str(raw.get("child_column", "")),
        parent=str(raw.get("parent", "")),
        parent_column=str(raw.get("parent_column", "")),
        child_distinct=_count(raw.get("child_distinct")),
        matched=_count(raw.get("matched")),
        orphan_rows=_opt_count(raw.get("orphan_rows")),
    )


def _minhash_json(c: ColumnProfile) -> dict[str, Any]:
    """A densified one-permutation signature is stored as its own buckets, so what was borrowed
    is known again when it is read back."""
    if c.minhash and c.minhash_borrowed:
        return {"minhash": sparse_text(c.minhash, c.minhash_borrowed), "minhash_buckets": len(c.minhash)}
    return {"minhash": ",".join(map(str, c.minhash)) if c.minhash else None}


def relation_profile_to_json(profile: RelationProfile) -> dict[str, Any]:
    """The envelope shape again (used by the profile cache and profiles.json)."""
    return {
        "unique_id": profile.unique_id,
        "relation": profile.relation,
        "row_count": profile.row_count,
        "sampled": profile.sampled,
        "sample_percent": profile.sample_percent,
        "columns": [
            {
                "name": c.name,
                "data_type": c.data_type,
                "non_null": c.non_null,
                "distinct": c.distinct,
                "distinct_approx": c.distinct_approx,
                "min_len": c.min_len,
                "max_len": c.max_len,
                "min_value": c.min_value,
                "max_value": c.max_value,
                **_minhash_json(c),
                "top_values": list(c.top_values) if c.top_values is not None else None,
                "is_flag": c.is_flag,
                "skipped": c.skipped,
            }
            for c in profile.columns.values()
        ],
    }
