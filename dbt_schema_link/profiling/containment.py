"""Exact containment checks in the warehouse (`schema_link_containment` macro), batched."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.dbt_runner import DbtInvocation, run_operation
from dbt_schema_link.errors import WarehouseError
from dbt_schema_link.profiling.envelope import Envelope, containment_result, feed
from dbt_schema_link.profiling.records import ContainmentResult

CONTAINMENT_MACRO = "schema_link_containment"
#: Pairs per dbt invocation: one dbt start costs seconds, one pair costs milliseconds.
PAIRS_PER_CALL = 500

Pair = tuple[ColumnRef, ColumnRef]


def warehouse_verifier(inv: DbtInvocation, progress: Callable[[str], None] | None = None):
    """A `Verifier` for discovery: (child, parent) pairs → exact containment from the warehouse."""

    def verify(pairs: Sequence[Pair]) -> Mapping[Pair, ContainmentResult]:
        results: dict[Pair, ContainmentResult] = {}
        unique = list(dict.fromkeys(pairs))
        for start in range(0, len(unique), PAIRS_PER_CALL):
            chunk = unique[start:start + PAIRS_PER_CALL]
            if progress:
                progress(f"verifying {len(chunk)} candidate pairs by exact containment in the warehouse")
            envelope = Envelope()
            args = {"pairs": [
                {"child": c.relation, "child_column": c.column, "parent": p.relation, "parent_column": p.column}
                for c, p in chunk
            ]}
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
