"""`plan_writes`: accepted links -> the exact bytes every touched file would get. Reads files,
writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from dbt_schema_link.artifacts.records import LinkOrigin, Project, Relation
from dbt_schema_link.confidence import confidence_text
from dbt_schema_link.errors import YamlWriteError
from dbt_schema_link.writers import column_docs, composite_tests, constraints, relationships
from dbt_schema_link.writers.column_types import type_clash
from dbt_schema_link.writers.doc_records import DocsInput
from dbt_schema_link.writers.doc_writes import DocsRun, plan_docs_after_links, plan_docs_before_links
from dbt_schema_link.writers.entries import (
    ensure_column,
    ensure_entry,
    entry_file,
    find_column,
    find_entry,
)
from dbt_schema_link.writers.options import SemanticSpec, WriteOptions
from dbt_schema_link.writers.package_tests import write_package_test
from dbt_schema_link.writers.records import (
    AcceptedLink,
    ChangeKind,
    FileChange,
    Skipped,
    WritePlan,
)
from dbt_schema_link.writers.state import WriteState, column_key, link_key, read_state
from dbt_schema_link.writers.syntax import DbtSyntax, syntax_for
from dbt_schema_link.writers.workspace import Workspace
from dbt_schema_link.writers.yaml_io import YamlRefused, map_add

_TEST_ORIGINS = frozenset({LinkOrigin.RELATIONSHIPS_TEST, LinkOrigin.RELATIONSHIPS_WHERE_TEST})
REJECTED = "rejected: it was written before and has since been removed from the YAML (see the state file)"


def project_dir_of(project: Project, options: WriteOptions) -> Path:
    raw = options.project_dir or project.project_dir
    if not raw:
        raise YamlWriteError("no dbt project directory given: set WriteOptions.project_dir", option="project_dir")
    path = Path(raw).resolve()
    if not (path / "dbt_project.yml").exists():
        raise YamlWriteError(f"{path} has no dbt_project.yml: point at the dbt project's directory", option="project_dir")
    return path


def plan_writes(project: Project, links: Sequence[AcceptedLink], options: WriteOptions = WriteOptions(),
                docs: DocsInput | None = None) -> WritePlan:
    """What `apply` would write for these links (and, with ``options.docs``, the descriptions
    from lineage and profiles in ``docs``). Pure apart from reading the project's files."""
    project_dir = project_dir_of(project, options)
    syntax = syntax_for(options.dbt_version or project.dbt_version)
    state_path = project_dir / options.state_file
    state, state_raw = read_state(state_path)
    plan = WritePlan(project_dir=project_dir, dbt_version=syntax.label)
    accepted = select_links(project, links, options, plan)
    ws = Workspace(project_dir)
    declared = {
        (d.child.key(), d.parent.key()): d for d in project.declared_links if d.origin in _TEST_ORIGINS
    }
    documented: set[tuple[str, str]] = set()
    run = DocsRun(ws, project, project_dir, syntax, options, state, docs or DocsInput(), plan,
                  joins=tuple(accepted) + tuple(project.declared_links)) if options.docs else None
    if run is not None:
        plan_docs_before_links(run)
    own = [link for link in accepted if writable(project, project.relations[link.child.relation])]
    for link in accepted:
        if link in own:
            _write_link(ws, project, project_dir, link, syntax, options, state, declared, documented, plan)
        elif options.tests and link.extra_pairs:
            plan.skipped.append(Skipped(link, "test", "a composite key on an installed package's relation is not "
                                                      "written (only the root project's YAML takes its test)"))
        elif options.tests:
            write_package_test(ws, project, project_dir, link, options, state, declared, plan)
    if run is not None:
        plan_docs_after_links(run)
    if options.semantic_models is not SemanticSpec.NONE:
        from dbt_schema_link.writers.semantic_models import write_entities

        write_entities(ws, project, project_dir, [k for k in own if not k.extra_pairs], syntax, options, state, plan)
    changes, refusals, additions = ws.finish()
    plan.changes = changes
    plan.refusals = refusals
    new_state = state.with_added(additions)
    if any(keys - state.written.get(kind, set()) for kind, keys in additions.items()):
        new_bytes = new_state.to_bytes()
        if new_bytes != state_raw:
            plan.changes.append(FileChange(
                path=state_path, display=options.state_file, old=state_raw, new=new_bytes, kind=ChangeKind.STATE,
                old_mtime_ns=state_path.stat().st_mtime_ns if state_raw is not None else None,
                actions=("remember what was written",),
            ))
    return plan


def writable(project: Project, child: Relation) -> bool:
    """Whether a link on this child can be written into YAML: it belongs to the root project (an
    installed package's files are not the user's; see records.PACKAGE_REASON). The others become
    data tests (package_tests.py) unless `package_tests` is off."""
    return not (project.project_name and child.package_name and child.package_name != project.project_name)


def select_links(project: Project, links: Sequence[AcceptedLink], options: WriteOptions,
                 plan: WritePlan) -> list[AcceptedLink]:
    """Drop links below the threshold, on unknown relations or other packages; one per pair."""
    best: dict[tuple, AcceptedLink] = {}
    for link in links:
        if not isinstance(link, AcceptedLink):
            raise TypeError(f"plan_writes takes AcceptedLink records, got {type(link).__name__}")
        child = project.relations.get(link.child.relation)
        parent = project.relations.get(link.parent.relation)
        if child is None or parent is None:
            missing = link.child.relation if child is None else link.parent.relation
            plan.skipped.append(Skipped(link, "link", f"{missing} is not in the manifest (run `dbt parse`)"))
            continue
        if link.child.key() == link.parent.key():
            plan.skipped.append(Skipped(link, "link", "a column cannot reference itself"))
            continue
        if not link.declared_elsewhere and link.confidence < options.min_confidence:
            reason = f"confidence {confidence_text(link.confidence)} is below min_confidence {options.min_confidence:g}"
            plan.skipped.append(Skipped(link, "link", reason))
            continue
        if not writable(project, child) and not (options.package_tests and options.tests):
            reason = f"{child.name} belongs to package {child.package_name}; only the root project's files are edited"
            plan.skipped.append(Skipped(link, "link", reason, package=child.package_name))
            continue
        current = best.get(link.key())
        if current is None or (link.declared_elsewhere, link.confidence) > (current.declared_elsewhere, current.confidence):
            best[link.key()] = link
    return sorted(best.values(), key=lambda k: (k.child.relation, k.child.column.lower(), -k.confidence,
                                                k.parent.relation, k.parent.column.lower()))


def _write_link(ws: Workspace, project: Project, project_dir: Path, link: AcceptedLink, syntax: DbtSyntax,
                options: WriteOptions, state: WriteState, declared: dict, documented: set, plan: WritePlan) -> None:
    child: Relation = project.relations[link.child.relation]
    parent: Relation = project.relations[link.parent.relation]
    target = entry_file(child, project_dir, options.new_file_pattern)
    if isinstance(target, str):
        plan.skipped.append(Skipped(link, "link", target))
        return
    try:
        yfile = ws.open(target.path, may_create=not target.has_entry)
        entry = find_entry(yfile, child)
        if entry is None and target.has_entry:
            raise YamlRefused(f"no entry for {child.name} in this file although the manifest says so: run `dbt parse`")
        column = find_column(entry, link.child.column)
        clash = type_clash(project, link)
        if clash and (options.tests or options.constraints):
            plan.skipped.append(Skipped(link, "test", clash))
        add_test = options.tests and not clash and _want_test(link, parent, column, project, state, declared, plan)
        doc_key = column_key(link.child)
        add_desc = add_meta = False
        if options.column_docs and not link.extra_pairs and link.child.key() not in documented:
            documented.add(link.child.key())
            manifest_col = child.column(link.child.column)
            add_desc = not column_docs.has_description(column) and not (manifest_col and manifest_col.description.strip())
            # a hand-declared test already is the evidence: no meta beside it (its own is ours)
            human_declared = link.key() in declared or (
                relationships.has_relationship_test(column, parent, link.parent.column, project)
                and not state.has("tests", link_key(link))
            )
            add_meta = not column_docs.has_meta(column) and not human_declared
            if (add_desc or add_meta) and state.has("docs", doc_key):
                plan.skipped.append(Skipped(link, "docs", REJECTED))
                add_desc = add_meta = False
        _adopt_interrupted(ws, link, parent, column, project, state, options)
        quote_column = relationships.needs_quoting(link.child.column, project.adapter_type)
        if add_test and quote_column:
            unquotable = _unquotable(link.child.column, project.adapter_type, column)
            if unquotable:
                plan.skipped.append(Skipped(link, "test", unquotable))
                add_test = False
        add_fk = options.constraints and not clash and not link.extra_pairs and constraints.wanted(link, child, parent, entry, column, syntax, state, plan)
        if not (add_test or add_desc or add_meta or add_fk):
            return
        entry = ensure_entry(yfile, child)
        column = ensure_column(yfile, entry, link.child.column)
        label = column_docs.column_label(child, link.child.column)
        if add_desc:
            column_docs.add_description(yfile, column, column_docs.description_for(link, parent))
        if add_meta:
            column_docs.add_meta(yfile, column, column_docs.meta_value(link, parent), syntax)
        if add_desc or add_meta:
            yfile.actions.append(f"docs {label}")
            ws.record(target.path, "docs", doc_key)
        if add_test:
            if quote_column and "quote" not in column:
                # dbt puts the column's name into the test's SQL as is unless `quote: true`
                yfile.editable(column)
                map_add(column, "quote", True, after="name")
            if link.extra_pairs:
                relationships.add_test(yfile, column, composite_tests.build_composite_test(
                    link, parent, syntax, options, project.adapter_type))
                yfile.actions.append(f"composite test {link}")
            else:
                relationships.add_test(yfile, column, relationships.build_test(link, parent, syntax, options,
                                                                               project.adapter_type))
                yfile.actions.append(f"test {label} -> {column_docs.column_label(parent, link.parent.column)}")
            ws.record(target.path, "tests", link_key(link))
        if add_fk:
            constraints.add(yfile, column, link, parent)
            yfile.actions.append(f"foreign key {label}")
            ws.record(target.path, "constraints", link_key(link))
    except YamlRefused as exc:
        ws.refuse(target.path, str(exc), link)


def _unquotable(name: str, adapter: str, column) -> str | None:
    """Why dbt could not run a test on this column (it needs quoting), or None."""
    if relationships.quote_char(adapter) in name:
        return "dbt does not escape the quote character in a column name: the test could not run"
    if column is not None and column.get("quote") is False:
        return "the column needs quoting but its YAML says `quote: false`"
    return None


def _adopt_interrupted(ws: Workspace, link: AcceptedLink, parent: Relation, column, project: Project,
                       state: WriteState, options: WriteOptions) -> None:
    """Our own test / column docs already in the YAML but not in the state file: a run was
    interrupted after writing the YAML and before the state file (written last). Remember them
    now, as that run would have, so that removing them later is respected."""
    key = link_key(link)
    if not state.has("tests", key) and relationships.has_relationship_test(
            column, parent, link.parent.column, project, tag=options.tag):
        ws.adopt("tests", key)
    doc_key = column_key(link.child)
    if not state.has("docs", doc_key) and column is not None and (
            column_docs.has_meta(column)
            or column.get("description") == column_docs.safe_text(column_docs.description_for(link, parent))):
        ws.adopt("docs", doc_key)


def _want_test(link: AcceptedLink, parent: Relation, column, project: Project, state: WriteState,
               declared: dict, plan: WritePlan) -> bool:
    if link.extra_pairs:
        if composite_tests.has_composite_test(column, link, parent, project):
            plan.skipped.append(Skipped(link, "test", "its composite relationships test is already in the YAML"))
            return False
        if state.has("tests", link_key(link)):
            plan.skipped.append(Skipped(link, "test", REJECTED))
            return False
        return True
    if relationships.has_relationship_test(column, parent, link.parent.column, project):
        plan.skipped.append(Skipped(link, "test", "a relationships test for it is already in the YAML"))
        return False
    found = declared.get(link.key())
    if found is not None:
        plan.skipped.append(Skipped(link, "test", f"already declared by {found.source_id or found.origin.value}"))
        return False
    if state.has("tests", link_key(link)):
        plan.skipped.append(Skipped(link, "test", REJECTED))
        return False
    return True

