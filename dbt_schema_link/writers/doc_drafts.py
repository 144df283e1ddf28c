"""Short factual drafts of descriptions from what profiling measured (pure).

Column: ``Status (text); one of closed, shipped, cancelled; never null.`` — the column's name
in words, its kind, then what the profile says: the full value list when the column is
categorical with only a few values (never for identifiers: unique columns, key names, UUID/hash
values), else unique / how many distinct values, text lengths, the null share; then "Joins to
`parent.column`." for each accepted link. Relation:
``One row per order_id; joins to stg_customers on customer_id.`` from the grain (declared
primary key, else the one unique never-null column) and the joins accepted for it. Nothing here
guesses meaning; a person can replace any draft, and the hash marker keeps their text theirs.
"""

from __future__ import annotations

import re
from typing import Sequence

from dbt_schema_link.artifacts.records import DeclaredLink, Relation, ResourceType
from dbt_schema_link.profiling.records import ColumnProfile, RelationProfile
from dbt_schema_link.writers.records import AcceptedLink

#: Joins named in a relation draft before "and N more".
MAX_JOINS_NAMED = 3

_KINDS = (  # first match of the warehouse type, lower-cased
    (re.compile(r"timestamp|datetime"), "timestamp"),
    (re.compile(r"^date"), "date"),
    (re.compile(r"^time"), "time"),
    (re.compile(r"bool"), "true/false"),
    (re.compile(r"^(tiny|small|big|huge|u)?int|integer|^long|^short|^byte"), "integer"),
    (re.compile(r"decimal|numeric|number|money"), "decimal"),
    (re.compile(r"float|double|real"), "number"),
    (re.compile(r"char|text|string|clob"), "text"),
    (re.compile(r"json|variant|object|struct|map"), "structured"),
    (re.compile(r"array|list|\[\]"), "list"),
)


def kind_of(data_type: str | None) -> str | None:
    text = (data_type or "").lower()
    for pattern, kind in _KINDS:
        if pattern.search(text):
            return kind
    return None


def words(name: str) -> str:
    """``first_shipped_at`` / ``FirstShippedAt`` -> ``First shipped at``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.strip('"`[]'))
    parts = [p for p in re.split(r"[\s_\-.]+", spaced) if p]
    text = " ".join(p if p.isupper() and len(p) > 1 else p.lower() for p in parts) or name
    return text[0].upper() + text[1:]


_LISTED = "one of "


def _count(n: int) -> str:
    return f"{n:,}"


def _null_phrase(column: ColumnProfile, rows: int) -> str | None:
    if rows <= 0:
        return None
    nulls = max(0, rows - column.non_null)
    if nulls == 0:
        return "never null"
    if column.non_null == 0:
        return "always null"
    share = 100.0 * nulls / rows
    return "under 1% null" if share < 1 else f"{round(share):.0f}% null"


#: Names of columns that identify rows (``id``, ``customer_id``, ``order_key``, ``storeId``).
_IDENTIFIER_NAME = re.compile(r"(^|_)(id|uuid|guid|key|pk|fk|sk)$|[a-z0-9](Id|ID|Uuid|UUID|Key)$", re.I)
#: Values that are identifiers whatever the column is called: UUIDs and long hex digests.
_IDENTIFIER_VALUE = re.compile(r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,})$", re.I)


def is_categorical(name: str, column: ColumnProfile) -> bool:
    """Whether listing the column's values says what it holds: a few repeated categories, not
    identifiers (a unique column, a key by its name, UUID or hash values), whose list would only be
    a sample of ids."""
    if column.distinct >= column.non_null:
        return False
    if _IDENTIFIER_NAME.search(name.strip('"`[]')):
        return False
    return not any(_IDENTIFIER_VALUE.match(str(v).strip()) for v in column.top_values or ())


def _values_phrase(name: str, column: ColumnProfile, max_values: int) -> str | None:
    if column.non_null <= 0:
        return None
    if column.flag_words or kind_of(column.data_type) == "true/false":
        return None
    listed = column.top_values or ()
    if listed and not column.distinct_approx and column.distinct <= min(len(listed), max_values) \
            and is_categorical(name, column):
        return _LISTED + ", ".join(str(v) for v in listed[:column.distinct])
    if column.distinct >= column.non_null and not column.distinct_approx:
        return "unique"
    about = "about " if column.distinct_approx else ""
    return f"{about}{_count(column.distinct)} distinct values"


def _number(value: float) -> str:
    """A measured value as written in the data (no thousands separators: ids read as ids)."""
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def _range_phrase(column: ColumnProfile) -> str | None:
    """``from 1 to 5`` when profiling measured the numeric range (min/max, numeric columns)."""
    low, high = column.min_value, column.max_value
    if low is None or high is None or kind_of(column.data_type) not in ("integer", "decimal", "number"):
        return None
    return f"always {_number(low)}" if low == high else f"from {_number(low)} to {_number(high)}"


def _length_phrase(column: ColumnProfile) -> str | None:
    if kind_of(column.data_type) != "text" or column.min_len is None or column.max_len is None:
        return None
    if column.min_len == column.max_len:
        return f"always {column.min_len} characters"
    return f"{column.min_len}-{column.max_len} characters"


def column_draft(name: str, profile: RelationProfile | None, max_values: int,
                 joins_to: Sequence[str] = ()) -> str | None:
    """The draft for one column, or None when it was not profiled and joins nothing (nothing
    factual to say). ``joins_to``: the parents (``relation.column``) of its accepted links."""
    joins = " ".join(join_sentence(parent) for parent in joins_to)
    column = profile.column(name) if profile is not None else None
    if column is None or column.skipped:
        return joins or None
    kind = kind_of(column.data_type)
    head = f"{words(name)} ({kind})" if kind else words(name)
    values = _values_phrase(name, column, max_values)
    listed = bool(values and values.startswith(_LISTED))
    length = None if listed else _length_phrase(column)  # the list says it
    span = None if listed else _range_phrase(column)
    parts = [p for p in (values, span, length, _null_phrase(column, profile.row_count)) if p]
    text = "; ".join([head, *parts])
    if profile.sampled:
        text += " (measured on a sample)"
    return f"{text}. {joins}" if joins else text + "."


def join_sentence(parent: str) -> str:
    """``Joins to `stg_products.product_id`.`` — a draft's words for one accepted link."""
    return f"Joins to `{parent}`."


def grain(rel: Relation, profile: RelationProfile | None) -> tuple[str, ...]:
    """The relation's key columns: the declared primary key, else a column the profile measured
    unique and never null (exact counts), integers before text, then in column order — any such
    column makes "one row per ..." true."""
    if rel.primary_key:
        return tuple(rel.primary_key)
    if profile is None or profile.row_count <= 0:
        return ()
    unique = [c for c in profile.columns.values()
              if not c.skipped and not c.distinct_approx and c.non_null == profile.row_count
              and c.distinct == profile.row_count and kind_of(c.data_type) in ("integer", "text")]
    if not unique:
        return ()

    def order(c: ColumnProfile) -> tuple:
        declared = rel.column(c.name)
        return (kind_of(c.data_type) != "integer", declared.index if declared else len(rel.columns), c.name)

    best = min(unique, key=order)
    declared = rel.column(best.name)
    return (declared.name if declared else best.name,)


def _relation_label(rel: Relation) -> str:
    return rel.name if rel.resource_type is ResourceType.SOURCE else rel.short_name


def relation_draft(rel: Relation, profile: RelationProfile | None, joins: Sequence[AcceptedLink | DeclaredLink],
                   relations: dict[str, Relation]) -> str | None:
    """``One row per order_id; joins to stg_customers on customer_id.`` or None (no grain, no joins)."""
    parts = []
    key = grain(rel, profile)
    if key:
        parts.append("One row per " + (key[0] if len(key) == 1 else "(" + ", ".join(key) + ")"))
    named = []
    for link in sorted(joins, key=lambda j: (j.child.column.lower(), j.parent.relation, j.parent.column.lower())):
        parent = relations.get(link.parent.relation)
        if parent is None:
            continue
        on = link.child.column if link.child.column.lower() == link.parent.column.lower() \
            else f"{link.child.column} = {link.parent.column}"
        phrase = f"{_relation_label(parent)} on {on}"
        if phrase not in named:
            named.append(phrase)
    if named:
        shown = ", ".join(named[:MAX_JOINS_NAMED])
        more = f" and {len(named) - MAX_JOINS_NAMED} more" if len(named) > MAX_JOINS_NAMED else ""
        parts.append(f"joins to {shown}{more}")
    if not parts:
        return None
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?%?")
_IDENTIFIER = re.compile(r"\b\w*_\w*\b")
#: Longest reworded draft accepted (characters).
MAX_WORDING_CHARS = 300


def facts_of(draft: str) -> tuple[str, ...]:
    """What a rewording must keep verbatim: numbers, listed values and identifiers."""
    facts: list[str] = []
    for part in draft.rstrip(".").split("; "):
        if part.startswith(_LISTED):
            facts += [v.strip() for v in part[len(_LISTED):].split(", ") if v.strip()]
    facts += _NUMBER.findall(draft) + _IDENTIFIER.findall(draft)
    return tuple(dict.fromkeys(f for f in facts if f))


def accept_wording(reply: str | None, facts: Sequence[str]) -> str | None:
    """The reworded text when it is one short line that keeps every fact, else None."""
    text = " ".join((reply or "").split()).strip().strip('"').strip()
    if not text or len(text) > MAX_WORDING_CHARS or any(f not in text for f in facts):
        return None
    return text if text.endswith((".", "!", "?")) else text + "."

