"""Type families from warehouse type strings, and which families may join.

``family_of("NUMBER(38,0)")`` is INTEGER, ``family_of("character varying(20)")`` TEXT, and so on
for DuckDB, PostgreSQL, Snowflake, BigQuery, Redshift, Databricks and SQLite spellings.
"""

from __future__ import annotations

import functools
import re
from enum import Enum


class TypeFamily(str, Enum):
    INTEGER = "integer"
    DECIMAL = "decimal"
    TEXT = "text"
    TEMPORAL = "temporal"
    BOOLEAN = "boolean"
    UUID = "uuid"
    OTHER = "other"
    UNKNOWN = "unknown"


class Compat(Enum):
    """How two families may join."""

    SAME = "same"  # same family
    COMPATIBLE = "compatible"  # e.g. integer/decimal, uuid/text, unknown/anything
    NEEDS_VALUES = "needs_values"  # e.g. text vs integer: only when the values agree
    NO = "no"  # never (booleans with non-booleans, blobs, arrays, ...)


_INTEGER = {
    "int", "integer", "bigint", "smallint", "tinyint", "mediumint", "hugeint", "uhugeint",
    "ubigint", "uinteger", "usmallint", "utinyint", "int1", "int2", "int4", "int8", "int16",
    "int32", "int64", "int128", "serial", "bigserial", "smallserial", "long", "short", "byteint",
    "signed", "unsigned",
}
_DECIMAL = {
    "decimal", "numeric", "number", "real", "float", "float4", "float8", "float32", "float64",
    "double", "double precision", "money", "smallmoney", "bignumeric", "bigdecimal", "dec",
}
_TEXT = {
    "text", "varchar", "char", "character", "character varying", "string", "nvarchar", "nchar",
    "clob", "nclob", "citext", "bpchar", "name", "tinytext", "mediumtext", "longtext",
    "varchar2", "nvarchar2", "native character", "varying character", "nvarchar(max)",
}
_TEMPORAL_PREFIXES = ("date", "time", "timestamp", "datetime", "smalldatetime", "timestamptz")
_BOOLEAN = {"bool", "boolean", "bit", "logical"}
_UUID = {"uuid", "uniqueidentifier", "guid"}

_PARAMS = re.compile(r"\((.*?)\)")


@functools.lru_cache(maxsize=4096)  # asked of every column: a warehouse has a few dozen type strings
def family_of(data_type: str | None) -> TypeFamily:
    """The family of a warehouse type string (``None``/empty: UNKNOWN)."""
    if not data_type or not data_type.strip():
        return TypeFamily.UNKNOWN
    text = data_type.strip().lower()
    params = _PARAMS.search(text)
    base = _PARAMS.sub("", text).strip()
    base = re.sub(r"\s+", " ", base)
    base = re.sub(r"\s+(unsigned|signed|zerofill)$", "", base)
    if base.endswith("[]") or base.startswith(("array", "struct", "map", "list", "union")):
        return TypeFamily.OTHER
    if base in _INTEGER:
        return TypeFamily.INTEGER
    if base in ("decimal", "numeric", "number", "dec") and params:
        parts = [p.strip() for p in params.group(1).split(",")]
        if len(parts) == 2 and parts[1] == "0":
            return TypeFamily.INTEGER
        if len(parts) == 1 and base == "number" and parts[0].isdigit():
            return TypeFamily.INTEGER  # Oracle/Snowflake NUMBER(p) has scale 0
    if base in _DECIMAL:
        return TypeFamily.DECIMAL
    if base in _TEXT or base.startswith(("varchar", "char", "nvarchar", "nchar", "character")):
        return TypeFamily.TEXT
    if base in _BOOLEAN:
        return TypeFamily.BOOLEAN
    if base in _UUID:
        return TypeFamily.UUID
    if base.startswith(_TEMPORAL_PREFIXES) or base in ("interval",):
        return TypeFamily.TEMPORAL if base != "interval" else TypeFamily.OTHER
    # SQLite's type affinity rules (INT anywhere -> integer, CHAR/CLOB/TEXT -> text, ...)
    if "int" in base:
        return TypeFamily.INTEGER
    if any(s in base for s in ("char", "clob", "text", "string")):
        return TypeFamily.TEXT
    if any(s in base for s in ("real", "floa", "doub")):
        return TypeFamily.DECIMAL
    return TypeFamily.OTHER


def is_day_type(data_type: str | None) -> bool:
    """A type of whole days (``date``), not of instants (``timestamp``, ``datetime``, ``time``)."""
    return bool(data_type) and _PARAMS.sub("", data_type).strip().lower() == "date"


def column_family(declared: str | None, profiled: str | None) -> TypeFamily:
    """The family of a column from its catalog type, or from the profile's where that one says
    more: Snowflake's catalog has NUMBER for every NUMBER(p,s), its profile NUMBER(38,0)."""
    if declared and profiled and not _PARAMS.search(declared) and _PARAMS.search(profiled) \
            and _PARAMS.sub("", profiled).strip().lower() == declared.strip().lower():
        return family_of(profiled)
    return family_of(declared or profiled)


#: The families whose values are numbers.
NUMERIC_FAMILIES = frozenset({TypeFamily.INTEGER, TypeFamily.DECIMAL})


def compatibility(a: TypeFamily, b: TypeFamily) -> Compat:
    """Whether a column of family ``a`` may reference one of family ``b`` (symmetric)."""
    if TypeFamily.OTHER in (a, b):
        return Compat.NO
    if a is b:
        return Compat.SAME
    if TypeFamily.UNKNOWN in (a, b):
        return Compat.COMPATIBLE
    if TypeFamily.BOOLEAN in (a, b):
        return Compat.NO
    if a in NUMERIC_FAMILIES and b in NUMERIC_FAMILIES:
        return Compat.COMPATIBLE
    if {a, b} == {TypeFamily.UUID, TypeFamily.TEXT}:
        return Compat.COMPATIBLE
    if TypeFamily.TEXT in (a, b):
        return Compat.NEEDS_VALUES  # keys stored as text on one side (common in raw data)
    return Compat.NO
