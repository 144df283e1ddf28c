"""Which relations are read: the root project's and those of installed packages.

Everything the project can query is in scope by default (`packages: all`): a SaaS connector's
package brings the sources, staging and marts the warehouse is made of. The setting
`vars: {schema_link: {packages: root}}` keeps the root project only, and a list of package names
adds just those. The dbt_schema_link package itself and its integration-test project are never
read unless one of them is the root project (they are the tool, not the warehouse).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from dbt_schema_link.artifacts.identity import one_node_per_object
from dbt_schema_link.artifacts.manifest import read_project
from dbt_schema_link.artifacts.records import Project, Relation
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.project_config import ProjectPaths, project_vars

#: the setting's key under `vars.schema_link`
SETTING = "packages"
#: this tool's own dbt projects: never part of the warehouse being read
TOOL_PACKAGES = frozenset({"dbt_schema_link", "dbt_schema_link_integration_tests"})


class ScopeMode(str, Enum):
    ALL = "all"
    ROOT = "root"
    NAMED = "named"  # the root project and the packages listed


@dataclass(frozen=True)
class PackageScope:
    mode: ScopeMode = ScopeMode.ALL
    names: tuple[str, ...] = ()

    @classmethod
    def from_setting(cls, value: Any) -> PackageScope:
        """`all` (default, also when unset), `root`, or a list of package names."""
        if value is None or value == ScopeMode.ALL.value:
            return cls()
        if value == ScopeMode.ROOT.value:
            return cls(ScopeMode.ROOT)
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) and v.strip() for v in value):
            return cls(ScopeMode.NAMED, tuple(v.strip() for v in value))
        raise SchemaLinkError(f"vars.schema_link.{SETTING} must be `all`, `root` or a list of package names, "
                              f"got {value!r}: e.g. packages: [github]", option=SETTING)

    def includes(self, rel: Relation, root: str) -> bool:
        package = rel.package_name
        if not root or not package or package == root:
            return True
        if package in TOOL_PACKAGES:
            return False
        return self.mode is ScopeMode.ALL or (self.mode is ScopeMode.NAMED and package in self.names)


def scoped(project: Project, scope: PackageScope) -> Project:
    """The project limited to the relations in scope (declared links between them only). A package
    named in the setting but not installed is an error naming the installed ones."""
    installed = {r.package_name for r in project.relations.values()} - {project.project_name}
    unknown = [n for n in scope.names if n not in installed]
    if unknown:
        choices = ", ".join(sorted(installed - TOOL_PACKAGES)) or "none"
        raise SchemaLinkError(f"vars.schema_link.{SETTING}: no installed package {unknown[0]!r} has models, seeds, "
                              f"snapshots or sources (installed: {choices})", option=SETTING)
    kept = {uid: r for uid, r in project.relations.items() if scope.includes(r, project.project_name)}
    if len(kept) == len(project.relations):
        return project
    links = [d for d in project.declared_links if d.child.relation in kept and d.parent.relation in kept]
    return replace(project, relations=kept, declared_links=links)


def package_counts(relations: list[Relation] | tuple[Relation, ...], root: str) -> dict[str, int]:
    """How many of these relations each installed package brings (the root project left out)."""
    out: dict[str, int] = {}
    for rel in relations:
        if root and rel.package_name and rel.package_name != root:
            out[rel.package_name] = out.get(rel.package_name, 0) + 1
    return dict(sorted(out.items()))


def read_in_scope(paths: ProjectPaths, require_catalog: bool, one_node: bool = True) -> Project:
    """The project as profiling, discovery, `link --check` and the index read it: the relations
    in scope (`vars.schema_link.packages`), one node per database object (identity.py; `write`
    keeps every node: a links file may name any of them, and each has its own YAML entry)."""
    project = read_project(paths.target_dir, require_catalog=require_catalog, project_dir=paths.project_dir)
    project = scoped(project, PackageScope.from_setting(project_vars(paths.project_dir).get(SETTING)))
    return one_node_per_object(project) if one_node else project
