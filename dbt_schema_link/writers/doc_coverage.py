"""`dbt-schema-link docs-coverage`: how each model / seed / snapshot / source table's columns are
documented — by people, inherited, drafted, or not at all — read from the YAML on disk (so it is
current right after `write`, before any `dbt parse`), with the manifest's text where no YAML
entry can be read. Installed packages' relations are counted from the manifest's text, per
package (their files are the package's, never edited). Read-only."""

from __future__ import annotations

import json
from pathlib import Path

from dbt_schema_link.artifacts.records import Project, Relation
from dbt_schema_link.artifacts.scope import TOOL_PACKAGES
from dbt_schema_link.writers.doc_marker import Marker, origin
from dbt_schema_link.writers.doc_records import (
    ColumnCoverage,
    CoverageReport,
    DocOrigin,
    RelationCoverage,
)
from dbt_schema_link.writers.entries import EntryFile, entry_file, find_column, find_entry
from dbt_schema_link.writers.options import DEFAULT_NEW_FILE_PATTERN
from dbt_schema_link.writers.yaml_io import YamlFile, YamlRefused, load_yaml_file

COVERAGE_FORMAT = "dbt_schema_link/docs_coverage"
COVERAGE_FORMAT_VERSION = 1
_ORDER = (DocOrigin.PERSON, DocOrigin.INHERITED, DocOrigin.DRAFTED, DocOrigin.NONE)


def docs_coverage(project: Project, project_dir: Path, new_file_pattern: str = DEFAULT_NEW_FILE_PATTERN) -> CoverageReport:
    """`project`: the relations to count (the api passes those in scope, one node per object)."""
    files: dict[Path, YamlFile | None] = {}
    report = CoverageReport()
    name = project.project_name
    for uid, rel in sorted(project.relations.items()):
        if not rel.enabled or rel.package_name in TOOL_PACKAGES and rel.package_name != name:
            continue
        in_root = not name or not rel.package_name or rel.package_name == name
        entry, readable = _entry(rel, project_dir, new_file_pattern, files) if in_root else (None, False)
        columns = []
        for col in sorted(rel.columns.values(), key=lambda c: (c.index, c.name.lower())):
            node = find_column(entry, col.name) if readable else {"description": col.description, "meta": col.meta}
            marker = Marker.of(node)
            found = origin(node)
            columns.append(ColumnCoverage(col.name, found, marker.inherited_from if found is DocOrigin.INHERITED else None))
        rel_node = entry if readable else {"description": rel.description, "meta": rel.meta}
        report.relations.append(RelationCoverage(uid, rel.name, rel.resource_type.value, origin(rel_node),
                                                 tuple(columns), rel.package_name or name))
    return report


def _entry(rel: Relation, project_dir: Path, pattern: str, files: dict) -> tuple[object, bool]:
    """(YAML entry or None, whether the YAML could be read)."""
    target = entry_file(rel, project_dir, pattern)
    if not isinstance(target, EntryFile):
        return None, False
    path = target.path.resolve()
    if path not in files:
        try:
            files[path] = load_yaml_file(path, target.display) if path.exists() else None
        except YamlRefused:
            files[path] = None
    yfile = files[path]
    if yfile is None:
        return None, not target.has_entry  # no file yet: nothing documented in YAML
    try:
        return find_entry(yfile, rel), True
    except YamlRefused:
        return None, False


def _counts(item) -> dict[str, int]:
    return {o.value: item.count(o) for o in _ORDER}


def to_json(report: CoverageReport) -> str:
    body = {
        "format": COVERAGE_FORMAT,
        "format_version": COVERAGE_FORMAT_VERSION,
        "columns": report.columns,
        "documented": report.documented,
        "share": round(report.share, 4),
        "counts": _counts(report),
        "packages": [
            {"name": name, "relations": len(part.relations), "columns": part.columns, "documented": part.documented,
             "share": round(part.share, 4), "counts": _counts(part)}
            for name, part in report.by_package().items()
        ],
        "relations": [
            {
                "unique_id": r.unique_id, "name": r.name, "package": r.package, "resource_type": r.resource_type,
                "description": r.description.value, "columns": len(r.columns), "documented": r.documented,
                "share": round(r.share, 4), "counts": _counts(r),
                "undocumented": [c.name for c in r.columns if c.origin is DocOrigin.NONE],
            }
            for r in report.relations
        ],
    }
    return json.dumps(body, indent=2) + "\n"


def to_markdown(report: CoverageReport) -> str:
    lines = [
        "# Documentation coverage",
        "",
        f"{report.documented} of {report.columns} columns documented ({report.share:.1%}): "
        + ", ".join(f"{report.count(o)} {o.value}" for o in _ORDER) + ".",
        "",
    ]
    packages = report.by_package()
    if len(packages) > 1:
        lines += ["| package | relations | columns | documented | person | inherited | drafted | none |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {name} | {len(part.relations)} | {part.columns} | {part.share:.0%} | "
                  + " | ".join(str(part.count(o)) for o in _ORDER) + " |" for name, part in packages.items()]
        lines.append("")
    lines += [
        "| relation | type | description | columns | documented | person | inherited | drafted | none |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report.relations:
        lines.append(f"| {r.name} | {r.resource_type} | {r.description.value} | {len(r.columns)} | {r.share:.0%} | "
                     + " | ".join(str(r.count(o)) for o in _ORDER) + " |")
    missing = [(r.name, c.name) for r in report.relations for c in r.columns if c.origin is DocOrigin.NONE]
    if missing:
        lines += ["", "Undocumented columns: " + ", ".join(f"`{rel}.{col}`" for rel, col in missing) + "."]
    return "\n".join(lines) + "\n"
