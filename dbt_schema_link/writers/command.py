"""`write_back`: the one call behind `dbt-schema-link write [--dry-run | --check]`.

plan -> (dry run: diff | check: would anything change? | write: validate, then apply). The CLI
prints `outcome.diff` on stdout, `outcome.plan.summary()` and `outcome.validation.checked` on
stderr, and exits with `outcome.exit_code`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Sequence

from dbt_schema_link.artifacts.records import Project
from dbt_schema_link.dbt_runner import DbtInvocation
from dbt_schema_link.errors import YamlWriteError
from dbt_schema_link.writers.apply import apply, unified_diff
from dbt_schema_link.writers.doc_records import DocsInput
from dbt_schema_link.writers.options import WriteOptions
from dbt_schema_link.writers.plan import plan_writes
from dbt_schema_link.writers.records import AcceptedLink, WritePlan
from dbt_schema_link.writers.validate import ValidationReport, validate_plan


class WriteMode(str, Enum):
    WRITE = "write"
    DRY_RUN = "dry_run"  # print the diff, write nothing
    CHECK = "check"  # exit 1 when writing would change the project (CI)


@dataclass
class WriteOutcome:
    plan: WritePlan
    mode: WriteMode
    diff: str = ""  # unified diff (dry run and check)
    written: tuple[str, ...] = ()
    validation: ValidationReport | None = None
    messages: list[str] = field(default_factory=list)  # for stderr

    @property
    def exit_code(self) -> int:
        """check: 1 when writing would change the project; write/dry run: 1 when some file was
        refused (the rest is written), else 0."""
        if self.mode is WriteMode.CHECK:
            return 1 if self.plan.would_change else 0
        return 1 if self.plan.refusals else 0


def write_back(project: Project, links: Sequence[AcceptedLink], options: WriteOptions = WriteOptions(),
               mode: WriteMode = WriteMode.WRITE, inv: DbtInvocation | None = None,
               validate: bool = True, docs: DocsInput | None = None) -> WriteOutcome:
    """Plan the write-back and carry it out in ``mode``.

    Writing validates first (dbt's JSON schema; `dbt parse` on a scratch copy when ``inv`` is
    given) and raises YamlWriteError, writing nothing, when the output would not parse cleanly.
    """
    plan = plan_writes(project, links, options, docs)
    outcome = WriteOutcome(plan=plan, mode=mode)
    outcome.messages += plan.summary()
    if mode is not WriteMode.WRITE:
        outcome.diff = unified_diff(plan)
        if mode is WriteMode.CHECK and plan.would_change:
            outcome.messages.append(
                f"{len(plan.project_changes)} file(s) would change: run `dbt-schema-link write` and commit the result"
            )
        return outcome
    if not plan.changes:
        outcome.messages.append("nothing to write: the project's YAML is up to date")
        return outcome
    if validate:
        report = validate_plan(plan, inv)
        outcome.validation = report
        outcome.messages += report.checked
        if not report.ok:
            more = f" (and {len(report.problems) - 1} more)" if len(report.problems) > 1 else ""
            raise YamlWriteError(f"nothing written: {report.problems[0]}{more}")
    outcome.written = apply(plan).written
    outcome.messages.append(f"wrote {len(outcome.written)} file(s)")
    return outcome
