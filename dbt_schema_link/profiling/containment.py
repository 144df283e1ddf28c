"""Exact containment checks in the warehouse (`schema_link_containment` macro, and
`schema_link_tuple_containment` for composite keys), batched."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.dbt_runner import MAX_ARGS_BYTES, DbtInvocation, args_size, run_operation
from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.envelope import Envelope, containment_result, feed, tuple_containment_result
from dbt_schema_link.profiling.records import ContainmentResult, TupleContainmentResult

CONTAINMENT_MACRO = "schema_link_containment"
#: Pairs per dbt invocation: one dbt start costs seconds, one pair costs milliseconds. A call
#: also stops short of MAX_ARGS_BYTES (long relation names fill the command line first).
PAIRS_PER_CALL = 500

Pair = tuple[ColumnRef, ColumnRef]


def _pair_arg(pair: Pair) -> dict:
    child, parent = pair
    return {"child": child.relation, "child_column": child.column,
            "parent": parent.relation, "parent_column": parent.column}


def pair_calls(pairs: Sequence[Pair]) -> list[list[Pair]]:
    """`pairs` split into dbt calls of at most PAIRS_PER_CALL pairs and MAX_ARGS_BYTES of arguments."""
    return _calls(pairs, _pair_arg)


def _calls(items: Sequence, arg_of: Callable[[Any], dict]) -> list[list]:
    room = MAX_ARGS_BYTES - args_size({"pairs": []})
    calls: list[list] = []
    chunk: list = []
    used = 0
    for item in items:
        cost = args_size(arg_of(item)) + 2  # the item, ", "
        if chunk and (len(chunk) >= PAIRS_PER_CALL or used + cost > room):
            calls.append(chunk)
            chunk, used = [], 0
        chunk.append(item)
        used += cost
    if chunk:
        calls.append(chunk)
    return calls


def _measure(inv: DbtInvocation, macro: str, items: Sequence, arg_of: Callable[[Any], dict], what: str, failed: str,
             progress: Callable[[str], None] | None, lines: Callable[[Envelope], list],
             read: Callable[[dict], Any], key_of: Callable[[Any], tuple], result_key: Callable[[Any], tuple]) -> dict:
    """Run `macro` on `items` in as few dbt calls as the limits allow; item -> its result, matched
    by `key_of(item)` == `result_key(result)` (results for items not asked are ignored)."""
    results: dict = {}
    for chunk in _calls(list(dict.fromkeys(items)), arg_of):
        if progress:
            progress(f"verifying {len(chunk)} {what} in the warehouse")
        envelope = Envelope()
        result = run_operation(inv, macro, {"pairs": [arg_of(item) for item in chunk]}, lambda m: feed(envelope, m.msg))
        if not result.ok or not envelope.complete:
            raise WarehouseError(f"{failed}: {result.error_summary()}")
        lookup = {key_of(item): item for item in chunk}
        for raw in lines(envelope):
            res = read(raw)
            item = lookup.get(result_key(res))
            if item is not None:
                results[item] = res
    return results


def warehouse_verifier(inv: DbtInvocation, progress: Callable[[str], None] | None = None):
    """A `Verifier` for discovery: (child, parent) pairs → exact containment from the warehouse."""

    def verify(pairs: Sequence[Pair]) -> Mapping[Pair, ContainmentResult]:
        return _measure(inv, CONTAINMENT_MACRO, pairs, _pair_arg, "candidate pairs by exact containment",
                        "exact containment check failed", progress,
                        lambda e: e.containment, containment_result,
                        lambda pair: (pair[0].relation, pair[0].column.lower(), pair[1].relation, pair[1].column.lower()),
                        lambda r: (r.child, r.child_column.lower(), r.parent, r.parent_column.lower()))

    return verify


TUPLE_CONTAINMENT_MACRO = "schema_link_tuple_containment"
#: A composite candidate: the child's column tuple and the parent's, in key order.
TuplePair = tuple[tuple[ColumnRef, ...], tuple[ColumnRef, ...]]


def _tuple_arg(pair: TuplePair) -> dict:
    child, parent = pair
    return {"child": child[0].relation, "child_columns": [c.column for c in child],
            "parent": parent[0].relation, "parent_columns": [p.column for p in parent]}


def _tuple_key(relation: str, columns: Sequence[str]) -> tuple:
    return (relation, tuple(c.lower() for c in columns))


def warehouse_tuple_verifier(inv: DbtInvocation, progress: Callable[[str], None] | None = None):
    """A `TupleVerifier` for discovery: composite candidates → tuple containment and parent-tuple
    uniqueness from the warehouse."""

    def verify(pairs: Sequence[TuplePair]) -> Mapping[TuplePair, TupleContainmentResult]:
        return _measure(inv, TUPLE_CONTAINMENT_MACRO, pairs, _tuple_arg, "composite key candidates",
                        "composite key containment check failed", progress,
                        lambda e: e.tuples, tuple_containment_result,
                        lambda pair: tuple(_tuple_key(side[0].relation, [c.column for c in side]) for side in pair),
                        lambda r: (_tuple_key(r.child, r.child_columns), _tuple_key(r.parent, r.parent_columns)))

    return verify
