"""Exact containment checks in the warehouse (`schema_link_containment` macro, and
`schema_link_tuple_containment` for composite keys), batched."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

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
    room = MAX_ARGS_BYTES - args_size({"pairs": []})
    calls: list[list[Pair]] = []
    chunk: list[Pair] = []
    used = 0
    for pair in pairs:
        cost = args_size(_pair_arg(pair)) + 2  # the pair, ", "
        if chunk and (len(chunk) >= PAIRS_PER_CALL or used + cost > room):
            calls.append(chunk)
            chunk, used = [], 0
        chunk.append(pair)
        used += cost
    if chunk:
        calls.append(chunk)
    return calls


def warehouse_verifier(inv: DbtInvocation, progress: Callable[[str], None] | None = None):
    """A `Verifier` for discovery: (child, parent) pairs → exact containment from the warehouse."""

    def verify(pairs: Sequence[Pair]) -> Mapping[Pair, ContainmentResult]:
        results: dict[Pair, ContainmentResult] = {}
        for chunk in pair_calls(list(dict.fromkeys(pairs))):
            if progress:
                progress(f"verifying {len(chunk)} candidate pairs by exact containment in the warehouse")
            envelope = Envelope()
            args = {"pairs": [_pair_arg(pair) for pair in chunk]}
            result = run_operation(inv, CONTAINMENT_MACRO, args, lambda m: feed(envelope, m.msg))
            if not result.ok or not envelope.complete:
                raise WarehouseError(f"exact containment check failed: {result.error_summary()}")
            lookup = {(c.relation, c.column.lower(), p.relation, p.column.lower()): (c, p) for c, p in chunk}
            for raw in envelope.containment:
                res = containment_result(raw)
                key = (res.child, res.child_column.lower(), res.parent, res.parent_column.lower())
                if key in lookup:
                    results[lookup[key]] = res
        return results

    return verify


TUPLE_CONTAINMENT_MACRO = "schema_link_tuple_containment"
#: A composite candidate: the child's column tuple and the parent's, in key order.
TuplePair = tuple[tuple[ColumnRef, ...], tuple[ColumnRef, ...]]


def _tuple_arg(pair: TuplePair) -> dict:
    child, parent = pair
    return {"child": child[0].relation, "child_columns": [c.column for c in child],
            "parent": parent[0].relation, "parent_columns": [p.column for p in parent]}


def tuple_key(relation: str, columns: Sequence[str]) -> tuple:
    return (relation, tuple(c.lower() for c in columns))


def warehouse_tuple_verifier(inv: DbtInvocation, progress: Callable[[str], None] | None = None):
    """A `TupleVerifier` for discovery: composite candidates → tuple containment and parent-tuple
    uniqueness from the warehouse (one dbt call for up to PAIRS_PER_CALL candidates)."""

    def verify(pairs: Sequence[TuplePair]) -> Mapping[TuplePair, TupleContainmentResult]:
        results: dict[TuplePair, TupleContainmentResult] = {}
        unique = list(dict.fromkeys(pairs))
        for start in range(0, len(unique), PAIRS_PER_CALL):
            chunk = unique[start:start + PAIRS_PER_CALL]
            if progress:
                progress(f"verifying {len(chunk)} composite key candidates in the warehouse")
            envelope = Envelope()
            args = {"pairs": [_tuple_arg(pair) for pair in chunk]}
            result = run_operation(inv, TUPLE_CONTAINMENT_MACRO, args, lambda m: feed(envelope, m.msg))
            if not result.ok or not envelope.complete:
                raise WarehouseError(f"composite key containment check failed: {result.error_summary()}")
            lookup = {(tuple_key(c[0].relation, [x.column for x in c]), tuple_key(p[0].relation, [x.column for x in p])):
                      (c, p) for c, p in chunk}
            for raw in envelope.tuples:
                res = tuple_containment_result(raw)
                key = (tuple_key(res.child, res.child_columns), tuple_key(res.parent, res.parent_columns))
                if key in lookup:
                    results[lookup[key]] = res
        return results

    return verify
