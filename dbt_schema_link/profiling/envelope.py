"""Parse the `@@schema_link@@` envelope out of `dbt --log-format json` output (docs/envelope.md).

Pure functions: lines in, typed records out. A run that printed no `begin`, an unknown format
version, or no `end` (dbt died mid-run) is reported, never guessed at.
"""

from __future__ import annotations

import enum
import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.records import (
    HASH_MASK,
    ColumnProfile,
    ContainmentResult,
    RelationProfile,
    SampleMethod,
    Signature,
    TupleContainmentResult,
)
from dbt_schema_link.profiling.sketch import densify, parse_buckets, sparse_text
from dbt_schema_link.dbt_runner import LogMessage, parse_log_line  # noqa: F401 - re-exported

SENTINEL = "@@schema_link@@"
FORMAT = "dbt_schema_link/profiles"
#: v3: a relation line carries the profile statements' rows in one shape on every adapter
#: (PROFILE_FIELDS) and Python assembles the profile (`assemble_relation`); measured facts only
#: (`flag_words`: discovery's `flag_max_distinct` decides flags). v1 and v2 envelopes are refused.
SUPPORTED_FORMAT_VERSIONS = frozenset({3})
#: The fields of every profile statement's rows, in order (macro schema_link_profile_sql).
PROFILE_FIELDS = ("col_idx", "row_count", "non_null", "distinct_count", "distinct_approx", "min_len", "max_len",
                  "minhash", "minhash_format", "flag_bad", "top_values", "min_value", "max_value")


class MinhashFormat(enum.Enum):
    """How a `minhash` text is written (the `minhash_format` field)."""

    BUCKETS = "buckets"  # one-permutation MinHash: `bucket:minimum` pairs of k buckets, densified here
    MINIMA = "minima"  # k comma-separated minima of a seeded hash family

#: Bounds a hostile or corrupt `minhash_buckets` before anything is allocated for it.
MAX_MINHASH_BUCKETS = 4096
_KINDS = ("begin", "relation", "containment", "tuple_containment", "end")


@dataclass
class Envelope:
    header: dict[str, Any] | None = None
    relations: list[dict[str, Any]] = field(default_factory=list)
    containment: list[dict[str, Any]] = field(default_factory=list)
    tuples: list[dict[str, Any]] = field(default_factory=list)  # `tuple_containment` lines
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
    elif kind == "tuple_containment":
        envelope.tuples.append(body)
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


_NO_SIGNATURE: tuple[Signature | tuple[int, ...] | None, frozenset[int]] = (None, frozenset())


def _minhash(value: Any, form: Any, k: Any) -> tuple[Signature | tuple[int, ...] | None, frozenset[int]]:
    """(signature, borrowed positions) of a `minhash` text written in `form` (MinhashFormat's
    value); one-permutation pairs are densified to `k` positions. Anything else: no signature."""
    if value is None or value == "" or not isinstance(value, str):
        return _NO_SIGNATURE
    if form == MinhashFormat.BUCKETS.value:
        k = _int(k)
        if not 0 < k <= MAX_MINHASH_BUCKETS:
            return _NO_SIGNATURE
        try:
            return densify(parse_buckets(value), k) or _NO_SIGNATURE
        except (ValueError, OverflowError):
            return _NO_SIGNATURE
    if form == MinhashFormat.MINIMA.value:
        return _kminhash(value), frozenset()
    return _NO_SIGNATURE


#: numpy's text parser (``sep`` given); a numpy without it leaves every signature to the Python reader
_PARSE_DECIMALS = getattr(np, "fromstring", None)


def _kminhash(value: Any) -> Signature | tuple[int, ...] | None:
    if isinstance(value, str) and _PARSE_DECIMALS is not None:
        # the cache's own form (unsigned decimals, no blanks) parsed in C: loading a warehouse's
        # cache is 100,000s of signatures (5x a split and map(int)); numpy saturates past 64
        # bits where the rest of this function masks, so a saturated value takes the slow path
        try:
            parsed = _PARSE_DECIMALS(value, dtype=np.uint64, sep=",")
        except (ValueError, TypeError):  # a sign, a blank between commas, anything not a decimal
            parsed = None
        if parsed is not None and parsed.size and not (parsed == np.uint64(HASH_MASK)).any():
            return Signature.of_array(parsed)
    parts = value.split(",") if isinstance(value, str) else value
    if not isinstance(parts, list):
        return None
    try:
        ints = tuple(map(int, parts))
        if ints and min(ints) >= 0 and max(ints) <= HASH_MASK:
            return ints
    except (TypeError, ValueError, OverflowError):
        pass
    try:
        return tuple(int(p) & HASH_MASK for p in parts if str(p).strip() != "")
    except (TypeError, ValueError, OverflowError):
        return None


def _lengths_and_range(values: dict[str, Any]) -> dict[str, Any]:
    """min_len, max_len, min_value, max_value of a column as ColumnProfile takes them; the keys
    are the same in the cache's form and in a statement row."""
    return {"min_len": _opt_count(values.get("min_len")), "max_len": _opt_count(values.get("max_len")),
            "min_value": _finite(values.get("min_value")), "max_value": _finite(values.get("max_value"))}


def column_profile(raw: dict[str, Any]) -> ColumnProfile:
    """A column of the profile cache's form (`column_json`)."""
    top = raw.get("top_values")
    minhash, borrowed = _minhash(raw.get("minhash"), raw.get("minhash_format"), raw.get("minhash_buckets"))
    return ColumnProfile(
        name=str(raw.get("name", "")),
        data_type=raw.get("data_type") if isinstance(raw.get("data_type"), str) else None,
        non_null=_count(raw.get("non_null")),
        distinct=_count(raw.get("distinct")),
        distinct_approx=bool(raw.get("distinct_approx")),
        **_lengths_and_range(raw),
        minhash=minhash,
        minhash_borrowed=borrowed,
        top_values=tuple(str(v) for v in top) if isinstance(top, list) else None,
        flag_words=bool(raw.get("flag_words")),
        skipped=raw.get("skipped") if isinstance(raw.get("skipped"), str) else None,
    )


def relation_profile(raw: dict[str, Any]) -> RelationProfile:
    """A relation of the profile cache's form (`relation_profile_to_json`)."""
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
        sample_method=_sample_method(raw),
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


def tuple_containment_result(raw: dict[str, Any]) -> TupleContainmentResult:
    def names(value: Any) -> tuple[str, ...]:
        return tuple(str(v) for v in value) if isinstance(value, list) else ()

    return TupleContainmentResult(
        child=str(raw.get("child", "")),
        child_columns=names(raw.get("child_columns")),
        parent=str(raw.get("parent", "")),
        parent_columns=names(raw.get("parent_columns")),
        child_distinct=_count(raw.get("child_distinct")),
        matched=_count(raw.get("matched")),
        orphan_rows=_count(raw.get("orphan_rows")),
        parent_rows=_count(raw.get("parent_rows")),
        parent_distinct=_count(raw.get("parent_distinct")),
    )


def _minhash_json(c: ColumnProfile) -> dict[str, Any]:
    """A densified one-permutation signature is stored as its own buckets, so what was borrowed
    is known again when it is read back."""
    if c.minhash and c.minhash_borrowed:
        return {"minhash": sparse_text(c.minhash, c.minhash_borrowed), "minhash_format": MinhashFormat.BUCKETS.value,
                "minhash_buckets": len(c.minhash)}
    if c.minhash:
        return {"minhash": ",".join(map(str, c.minhash)), "minhash_format": MinhashFormat.MINIMA.value,
                "minhash_buckets": None}
    return {"minhash": None, "minhash_format": None, "minhash_buckets": None}


def relation_profile_to_json(profile: RelationProfile) -> dict[str, Any]:
    """The profile cache's (and profiles.json's) form of a relation profile."""
    return {
        "unique_id": profile.unique_id,
        "relation": profile.relation,
        "row_count": profile.row_count,
        "sampled": profile.sampled,
        "sample_percent": profile.sample_percent,
        "sample_method": profile.sample_method.value if profile.sample_method else None,
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
                "flag_words": c.flag_words,
                "skipped": c.skipped,
            }
            for c in profile.columns.values()
        ],
    }


# -- a relation line of the envelope: the profile statements' rows, assembled ----------------------


def _top_values(text: Any, top_n: int) -> tuple[str, ...] | None:
    """The JSON text of `top_values` to at most top_n value strings. Items are values, or
    [value, count] / {value|item, count} where the adapter's top-k aggregate writes those."""
    if not isinstance(text, str) or text.strip() in ("", "null"):
        return None
    try:
        items = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(items, list):
        return None
    out: list[str] = []
    for item in items:
        if isinstance(item, dict):
            value = item.get("value", item.get("item"))
        elif isinstance(item, list):
            value = item[0] if item else None
        else:
            value = item
        if value is not None and len(out) < top_n:
            out.append(str(value))
    return tuple(out)


def _assembled_column(info: dict[str, Any], row: dict[str, Any] | None, raw: dict[str, Any]) -> ColumnProfile:
    name = str(info.get("name", ""))
    data_type = info.get("data_type") if isinstance(info.get("data_type"), str) else None
    skipped = info.get("skipped") if isinstance(info.get("skipped"), str) else None
    is_bool = "bool" in (data_type or "").lower()
    if skipped is not None:
        return ColumnProfile(name, data_type, 0, 0, False, None, None, None, None, False, skipped=skipped)
    row = row or {}  # no row: a column of an empty relation (DuckDB, Spark)
    non_null = _count(row.get("non_null"))
    distinct = min(_count(row.get("distinct_count")), non_null)  # an estimate can exceed it
    top = None
    top_n, top_max = _count(raw.get("top_n")), _count(raw.get("top_max_distinct"))
    if non_null > 0 and top_n > 0 and distinct <= top_max:
        top = _top_values(row.get("top_values"), top_n)
    flag_bad = _opt_count(row.get("flag_bad"))
    minhash, borrowed = _minhash(row.get("minhash"), row.get("minhash_format"), raw.get("k")) \
        if non_null > 0 else _NO_SIGNATURE
    return ColumnProfile(
        name=name,
        data_type=data_type,
        non_null=non_null,
        distinct=distinct,
        distinct_approx=row.get("distinct_approx") is True,
        **_lengths_and_range(row),
        minhash=minhash,
        minhash_borrowed=borrowed,
        top_values=top,
        flag_words=is_bool or (non_null > 0 and flag_bad == 0),
    )


def _statement_rows(raw: dict[str, Any], positions: int) -> tuple[dict[int, dict[str, Any]], int | None]:
    """The rows of every chunk by relation position, and the row count they report."""
    by_position: dict[int, dict[str, Any]] = {}
    row_count: int | None = None
    chunks = raw.get("chunks")
    for chunk in chunks if isinstance(chunks, list) else []:
        fields = chunk.get("fields") if isinstance(chunk, dict) else None
        if not isinstance(fields, list) or tuple(fields) != PROFILE_FIELDS:
            raise WarehouseError(f"schema_link profile of {_short(raw.get('unique_id'))} has fields {_short(fields)}, "
                                 f"not {', '.join(PROFILE_FIELDS)}: upgrade the dbt_schema_link package (dbt deps)")
        columns = chunk.get("columns") if isinstance(chunk.get("columns"), list) else []
        rows = chunk.get("rows")
        for values in rows if isinstance(rows, list) else []:
            if not isinstance(values, list) or len(values) != len(PROFILE_FIELDS):
                continue
            row = dict(zip(PROFILE_FIELDS, values))
            if row["row_count"] is not None:
                row_count = _count(row["row_count"])
            index = _opt_int(row["col_idx"])
            if index is not None and 0 <= index < len(columns) and isinstance(columns[index], int) \
                    and 0 <= columns[index] < positions:
                by_position[columns[index]] = row
    return by_position, row_count


def assemble_relation(raw: dict[str, Any]) -> RelationProfile:
    """The profile of one `relation` line of the envelope (v3): its columns, and the rows of its
    profile statements (PROFILE_FIELDS) matched to them by position."""
    if not isinstance(raw, dict) or not isinstance(raw.get("unique_id"), str):
        raise WarehouseError("schema_link envelope relation has no unique_id: upgrade the dbt_schema_link package (dbt deps)")
    infos = [c for c in raw.get("columns") or [] if isinstance(c, dict)] if isinstance(raw.get("columns"), list) else []
    rows, counted = _statement_rows(raw, len(infos))
    sampled = raw.get("sampled") is True
    method = _sample_method(raw)
    columns = [_assembled_column(info, rows.get(i), raw) for i, info in enumerate(infos)]
    return RelationProfile(
        unique_id=raw["unique_id"],
        relation=str(raw.get("relation", "")),
        # a sample of rows: the estimate that triggered sampling, as the statements counted the
        # sample; a sample of values read (and counted) every row
        row_count=_count(raw.get("row_estimate")) if method is SampleMethod.ROWS else (counted or 0),
        sampled=sampled,
        sample_percent=_float(raw.get("sample_percent")) if sampled else None,
        columns={c.name.lower(): c for c in columns},
        sample_method=method,
    )


def _sample_method(raw: dict[str, Any]) -> SampleMethod | None:
    """The relation's sample method; a sampled relation that names none (an older package or
    cache) sampled rows."""
    if raw.get("sampled") is not True:
        return None
    try:
        return SampleMethod(raw.get("sample_method") or SampleMethod.ROWS.value)
    except ValueError as exc:
        raise WarehouseError(f"schema_link profile of {_short(raw.get('unique_id'))} has sample_method "
                             f"{_short(raw.get('sample_method'))}: upgrade dbt-schema-link") from exc
