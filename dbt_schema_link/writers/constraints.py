"""Opt-in foreign-key constraints for models whose YAML entry enforces a contract.

dbt adds the constraint's parent as a DAG edge and DuckDB/PostgreSQL enforce it (the parent needs
a primary/unique key), so this is only ever written when asked for. ``to:``/``to_columns:`` need
dbt >= 1.9.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.comments import CommentedMap

from dbt_schema_link.artifacts.records import Relation, ResourceType
from dbt_schema_link.writers.entries import add_item
from dbt_schema_link.writers.records import AcceptedLink, Skipped, WritePlan
from dbt_schema_link.writers.state import WriteState, link_key
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.yaml_io import YamlFile, flow_seq, plain


def contract_enforced(entry: Any) -> bool:
    config = entry.get("config") if isinstance(entry, dict) else None
    contract = config.get("contract") if isinstance(config, dict) else None
    return isinstance(contract, dict) and contract.get("enforced") is True


def has_fk(column: Any, parent: Relation, parent_column: str) -> bool:
    items = column.get("constraints") if isinstance(column, dict) else None
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict) or item.get("type") != "foreign_key":
            continue
        to = str(item.get("to") or "").replace('"', "'").replace(" ", "")
        cols = [str(c).lower() for c in item.get("to_columns") or []]
        if to == parent.ref_expression().replace(" ", "") and parent_column.lower() in cols:
            return True
    return False


def wanted(link: AcceptedLink, child: Relation, parent: Relation, entry: Any, column: Any, syntax: DbtSyntax,
           state: WriteState, plan: WritePlan) -> bool:
    def skip(reason: str) -> bool:
        plan.skipped.append(Skipped(link, "constraint", reason))
        return False

    if child.resource_type is not ResourceType.MODEL or not contract_enforced(entry):
        return skip("the child model's YAML entry does not enforce a contract (config.contract.enforced: true)")
    if not syntax.fk_constraint_to:
        return skip(f"foreign-key constraints with to:/to_columns: need dbt >= 1.9 (project is on {syntax.label})")
    if has_fk(column, parent, link.parent.column):
        return skip("the foreign-key constraint is already in the YAML")
    if state.has("constraints", link_key(link)):
        return skip("rejected: removed from the YAML after it was written")
    return True


def add(yfile: YamlFile, column: CommentedMap, link: AcceptedLink, parent: Relation) -> None:
    constraint = CommentedMap()
    constraint["type"] = "foreign_key"
    constraint["to"] = plain(parent.ref_expression())
    constraint["to_columns"] = flow_seq([plain(link.parent.column)])
    add_item(yfile, column, "constraints", constraint)
