"""Write-back: accepted links -> relationships tests, column docs and semantic-layer entities in
the project's own YAML (edited in place, round-trip), atomically and idempotently.

    outcome = write_back(project, links, WriteOptions(min_confidence=0.7), WriteMode.CHECK)
    # or step by step:
    plan = plan_writes(project, links, WriteOptions(min_confidence=0.7))  # pure: reads files only
    print(unified_diff(plan))                # --dry-run
    sys.exit(1 if plan.would_change else 0)  # --check
    apply(plan)                              # atomic writes, refuses files changed since planning
"""

from dbt_schema_link.writers.apply import (
    ApplyResult,
    apply,
    check_unchanged,
    unified_diff,
)
from dbt_schema_link.writers.command import WriteMode, WriteOutcome, write_back
from dbt_schema_link.writers.options import SemanticSpec, WriteOptions
from dbt_schema_link.writers.plan import plan_writes
from dbt_schema_link.writers.records import (
    AcceptedLink,
    ChangeKind,
    FileChange,
    Refusal,
    RelationshipType,
    Skipped,
    WritePlan,
)

__all__ = [
    "AcceptedLink",
    "ApplyResult",
    "ChangeKind",
    "FileChange",
    "Refusal",
    "RelationshipType",
    "SemanticSpec",
    "Skipped",
    "WriteMode",
    "WriteOptions",
    "WriteOutcome",
    "WritePlan",
    "apply",
    "check_unchanged",
    "plan_writes",
    "unified_diff",
    "write_back",
]
