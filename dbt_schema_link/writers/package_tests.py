"""A link on an installed package's relation, written where dbt accepts it from the root project.

dbt refuses a root-project YAML entry for a node its package already describes, and the
package's own files are replaced by `dbt deps`; a singular data test in the root project's test
path that selects the child keys with no parent (what a `relationships` test checks) parses and
runs (checked on dbt 1.11.16). Its `config.meta.schema_link` names the pair, so the manifest reader
takes it as a written link (`link --check`). One file per link, `<test-path>/schema_link/`; a file
that exists with other bytes is someone's and is left alone; one someone deleted is remembered in
the state file and not written again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from dbt_schema_link.artifacts.records import Project, Relation, ResourceType
from dbt_schema_link.project_config import configured_paths
from dbt_schema_link.writers import relationships
from dbt_schema_link.writers.column_docs import column_label
from dbt_schema_link.writers.options import WriteOptions
from dbt_schema_link.writers.records import AcceptedLink, ChangeKind, FileChange, Skipped, WritePlan
from dbt_schema_link.writers.state import WriteState, link_key
from dbt_schema_link.writers.workspace import Workspace

#: the folder under the root project's first test path that holds these tests
TEST_DIR = "schema_link"
#: the `config.meta.schema_link` keys naming the pair (read back by artifacts/manifest.py)
META_KEYS = ("child", "child_column", "parent", "parent_column")
_UNSAFE = re.compile(r"[^a-z0-9_]+")


def test_path(project_dir: Path, child: Relation, link: AcceptedLink, parent: Relation) -> Path:
    root = configured_paths(project_dir, "test-paths", "tests")[0]
    parts = (child.short_name, link.child.column, parent.short_name, link.parent.column)
    name = "__".join(_UNSAFE.sub("_", p.lower()).strip("_") or "x" for p in parts)
    return (project_dir / root / TEST_DIR / f"{name}.sql").resolve()


def _node(rel: Relation, project: Project) -> str:
    """How the root project names a relation of any package in SQL."""
    if rel.resource_type is ResourceType.SOURCE or rel.package_name == project.project_name:
        return rel.ref_expression()
    return f"ref('{rel.package_name}', '{rel.name}')"


def _column(name: str, adapter: str) -> str:
    return relationships.quote_identifier(name, adapter) if relationships.needs_quoting(name, adapter) else name


def test_sql(project: Project, link: AcceptedLink, child: Relation, parent: Relation, options: WriteOptions) -> str:
    meta = {"schema_link": {"child": link.child.relation, "child_column": link.child.column,
                            "parent": link.parent.relation, "parent_column": link.parent.column,
                            "relationship_type": link.relationship_type.meta_value,
                            "confidence": round(link.confidence, 3), "evidence": link.evidence_summary}}
    thresholds = "".join(f"{k}={json.dumps(v)}, " for k, v in link.threshold_config().items())
    config = (f"{{{{ config(severity={json.dumps(options.severity)}, {thresholds}tags={json.dumps([options.tag])}, "
              f"meta={json.dumps(meta, sort_keys=True)}) }}}}")
    c, p = _column(link.child.column, project.adapter_type), _column(link.parent.column, project.adapter_type)
    return (
        f"-- Written by dbt-schema-link: {column_label(child, link.child.column)} references "
        f"{column_label(parent, link.parent.column)}.\n"
        f"-- {child.name} belongs to package {child.package_name}, whose YAML dbt lets only the package describe:\n"
        "-- this data test checks the join instead (rows = child keys with no parent). Delete it to reject the link.\n"
        f"{config}\n"
        f"select child.{c}\n"
        f"from {{{{ {_node(child, project)} }}}} as child\n"
        f"left join {{{{ {_node(parent, project)} }}}} as parent on child.{c} = parent.{p}\n"
        f"where child.{c} is not null and parent.{p} is null\n"
    )


def write_package_test(ws: Workspace, project: Project, project_dir: Path, link: AcceptedLink, options: WriteOptions,
                       state: WriteState, declared: dict, plan: WritePlan) -> None:
    child, parent = project.relations[link.child.relation], project.relations[link.parent.relation]
    if any(ch in f"{link.child.column}{link.parent.column}" for ch in "{}\n"):
        plan.skipped.append(Skipped(link, "test", "a column name with braces or a line break cannot go into a data test"))
        return
    path = test_path(project_dir, child, link, parent)
    new = test_sql(project, link, child, parent, options).encode("utf-8")
    key = link_key(link)
    if path.exists():
        if path.read_bytes() == new:
            if not state.has("tests", key):
                ws.adopt("tests", key)
        else:
            plan.skipped.append(Skipped(link, "test", f"{ws.display(path)} exists with other content: left as it is"))
        return
    if state.has("tests", key):
        plan.skipped.append(Skipped(link, "test", "rejected: its data test was written before and has since been deleted "
                                                  "(see the state file)"))
        return
    found = declared.get(link.key())
    if found is not None:
        plan.skipped.append(Skipped(link, "test", f"already declared by {found.source_id or found.origin.value}"))
        return
    ws.add_file(FileChange(path=path, display=ws.display(path), old=None, new=new, kind=ChangeKind.SQL,
                           actions=(f"data test {column_label(child, link.child.column)} -> "
                                    f"{column_label(parent, link.parent.column)} (package {child.package_name})",)))
    ws.record(path, "tests", key)
