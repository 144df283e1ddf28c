"""The public Python API: one function per CLI command. The CLI only parses options and prints."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from dbt_schema_link.artifacts.records import Project, Relation
from dbt_schema_link.artifacts.scope import SETTING as PACKAGES_SETTING, read_in_scope
from dbt_schema_link.artifacts_status import prepare_artifacts
from dbt_schema_link.collector import collector_paused
from dbt_schema_link.dbt_runner import DbtInvocation
from dbt_schema_link.fileio import atomic_write_text
from dbt_schema_link.profiling.build_log import LOG_DIR, read_build_log
from dbt_schema_link.profiling.band_join import warehouse_band_join
from dbt_schema_link.profiling.containment import warehouse_tuple_verifier, warehouse_verifier
from dbt_schema_link.profiling.options import ProfileOptions
from dbt_schema_link.profiling.profiler import profile_project
from dbt_schema_link.profiling.records import ProfileSet
from dbt_schema_link.profiling.stored import stored_profiles
from dbt_schema_link.project_config import ProjectPaths, locate, project_vars
from dbt_schema_link.project_setup import InitReport, init as init_project, require_package

Progress = Callable[[str], None]


@dataclass
class ProfileRun:
    project: Project
    profiles: ProfileSet


def init(project_dir: str | Path, inv: DbtInvocation, check: bool = False,
         progress: Progress | None = None, on_run_end: bool = False) -> InitReport:
    """Add the dbt package to packages.yml (round-trip edit) and run `dbt deps`
    (`dbt-schema-link init`); `on_run_end`: also add the package's on-run-end hook and its switch
    to dbt_project.yml; `check`: report only. `report.lines` say what was (would be) done."""
    return init_project(Path(project_dir), inv, check, progress, on_run_end)


def profile(paths: ProjectPaths, inv: DbtInvocation, options: ProfileOptions = ProfileOptions(),
            select: Sequence[str] = (), exclude: Sequence[str] = (), refresh: bool = False,
            progress: Progress | None = None, build_artifacts: bool = False,
            notice: Progress | None = None, log_dir: str | Path | None = None) -> ProfileRun:
    """Profile the project's relations in the warehouse; writes target/schema_link/profiles.json.
    Relations that a dbt build's on-run-end hook profiled since (read from dbt.log in `log_dir`,
    default <project>/logs) are taken from the log, not profiled again (`refresh`: profile all).
    `build_artifacts`: run `dbt docs generate` first when the artifacts are missing or stale;
    `notice` gets what the user should know (stale artifacts), `progress` the steps."""
    require_package(paths.project_dir)
    builds, unread = read_build_log(Path(log_dir) if log_dir else paths.project_dir / LOG_DIR)
    for line in unread:
        (notice or progress or _ignore)(line)
    prepare_artifacts(paths, inv, need_catalog=True, build=build_artifacts, notice=notice or progress)
    project = read_in_scope(paths, require_catalog=True)
    profiles = profile_project(project, inv, paths.profiles_json, options, select, exclude, refresh, progress,
                               builds=builds)
    return ProfileRun(project, profiles)


def cached_profiles(paths: ProjectPaths, project: Project) -> ProfileSet | None:
    """Profiles from an earlier `profile` run, without touching the warehouse."""
    return stored_profiles(paths.profiles_json, project)


@dataclass
class LinkRun:
    project: Project
    profiles: ProfileSet | None
    links: object  # discovery.LinkSet
    #: how the inferred links differ from those `write` wrote (link_check.LinkDifference)
    differences: list = field(default_factory=list)
    #: links left out of the comparison because `write` cannot write them, per package
    left_out: dict[str, int] = field(default_factory=dict)


# a run holds millions of records from loading to writing: the cyclic collector would walk them
# again and again for cycles they do not form (dbt_schema_link.collector)
@collector_paused()
def link(paths: ProjectPaths, inv: DbtInvocation, settings_overrides: dict | None = None,
         options: ProfileOptions = ProfileOptions(), use_warehouse: bool = True, verify: bool = True,
         refresh: bool = False, select: Sequence[str] = (), exclude: Sequence[str] = (),
         progress: Progress | None = None, build_artifacts: bool = False, notice: Progress | None = None,
         log_dir: str | Path | None = None) -> LinkRun:
    """Profile (unless told not to), infer join candidates, write links.json and links.md.
    The tests `write` generated are never taken as declared links: they are inferred again
    (provenance written); `run.differences` lists new joins and written links that no longer
    hold (`link --check` prints them all and fails on any)."""
    from dbt_schema_link.discovery import DiscoverySettings, discover
    from dbt_schema_link.discovery.memo import Relink, keeps_memo
    from dbt_schema_link.discovery.report import render_markdown
    from dbt_schema_link.score_memo_file import read_memo, write_memo

    configured = {k: v for k, v in project_vars(paths.project_dir).items() if k not in ("write", PACKAGES_SETTING)}
    settings = DiscoverySettings.from_mapping({**configured, **(settings_overrides or {})})
    if use_warehouse:
        run = profile(paths, inv, options, select, exclude, refresh, progress, build_artifacts, notice, log_dir)
        project, profiles = run.project, run.profiles
    else:
        prepare_artifacts(paths, inv, need_catalog=False, build=build_artifacts, notice=notice or progress)
        project = read_in_scope(paths, require_catalog=False)
        profiles = cached_profiles(paths, project)
    verifier = warehouse_verifier(inv, progress) if (use_warehouse and verify) else None
    # tests `write` generated are never declarations: discovery infers them again (provenance written)
    tuples = warehouse_tuple_verifier(inv, progress) if verifier is not None else None
    # value lookups in the engine (engine_lookup_min_columns): files under target/schema_link
    bands = warehouse_band_join(inv, paths.output_dir, progress) \
        if (use_warehouse and settings.engine_lookup_min_columns) else None
    # the last run's scores: children whose inputs are unchanged are not scored again (--refresh: all are)
    relink = None
    if keeps_memo(project, settings):
        relink = Relink(previous=None if refresh else read_memo(paths.scores_memo))
    else:
        with contextlib.suppress(OSError):  # a stale memo is never read (its scope differs): only disk space
            paths.scores_memo.unlink(missing_ok=True)
    links = discover(project, profiles, settings, verifier, progress, verify_tuples=tuples, band_join=bands,
                     relink=relink)
    atomic_write_text(paths.links_json, links.to_json())
    atomic_write_text(paths.links_md, render_markdown(links, project))
    if relink is not None and relink.memo is not None:
        try:
            write_memo(paths.scores_memo, relink.memo)
        except OSError as exc:  # the memo only saves time: links.json is written
            (notice or progress or (lambda _m: None))(
                f"{paths.scores_memo} not written ({exc.strerror or exc}): the next link scores every column")
    run = LinkRun(project, profiles, links)
    run.differences, run.left_out = _differences(paths, project, links)
    return run


def _differences(paths: ProjectPaths, project: Project, links) -> tuple[list, dict[str, int]]:
    """What `write` would write now against what it wrote (link_check.compare), and how many
    links per package it left out because `write` cannot write them."""
    from dbt_schema_link.discovery.records import LinkKind
    from dbt_schema_link.link_check import compare, written_links
    from dbt_schema_link.writers import WriteOptions
    from dbt_schema_link.writers.column_types import type_clash
    from dbt_schema_link.writers.plan import writable
    from dbt_schema_link.writers.state import link_key, read_state

    config = project_vars(paths.project_dir).get("write", {})
    options = WriteOptions.from_mapping(config if isinstance(config, dict) else {})
    def unwritable(relation_id: str) -> Relation | None:
        child = project.relations.get(relation_id)
        if child is None or writable(project, child) or (options.package_tests and options.tests):
            return None
        return child

    candidates = []
    left_out: dict[str, int] = {}
    for a in accepted_links(links):
        child = unwritable(a.child.relation)
        if child is not None:
            left_out[child.package_name] = left_out.get(child.package_name, 0) + 1
        else:
            candidates.append(a)
    written = [d for d in written_links(project) if unwritable(d.child.relation) is None]
    # links whose column types differ get docs only from `write`: never a test to compare
    wanted, reasons = [], {}
    for a in candidates:
        clash = type_clash(project, a) if a.confidence >= options.min_confidence else None
        if clash is not None:
            reasons[a.key()] = f"write gives it docs only: {clash}"
        elif a.confidence >= options.min_confidence:
            wanted.append((a.child, a.parent, a.confidence))
    state, _ = read_state(paths.project_dir / options.state_file)
    handled = {a.key() for a in candidates if state.has("tests", link_key(a))}
    # a written link the data no longer yields is kept at confidence 0: "not inferred any more"
    confidences = {(l.child.key(), l.parent.key()): l.confidence for l in links.links
                   if l.kind is LinkKind.INFERRED and l.confidence > 0}
    return (compare(wanted, written, confidences, handled, options.min_confidence, reasons),
            dict(sorted(left_out.items())))


def accepted_links(links, include_declared: bool = False) -> list:
    """Map discovery links to the writer's input: inferred ones (and declared ones on request)."""
    from dbt_schema_link.discovery.records import LinkKind
    from dbt_schema_link.writers import AcceptedLink

    wanted = {LinkKind.INFERRED} | ({LinkKind.DECLARED} if include_declared else set())
    return [AcceptedLink.of(link) for link in links.links if link.kind in wanted]


def load_links(paths: ProjectPaths):
    """The LinkSet written by the last `link` run."""
    from dbt_schema_link.discovery import LinkSet
    from dbt_schema_link.errors import ArtifactError

    if not paths.links_json.exists():
        raise ArtifactError(f"{paths.links_json} not found: run `dbt-schema-link link` first")
    try:
        return LinkSet.from_json(paths.links_json.read_text(encoding="utf-8"))
    except OSError as exc:  # a directory in its place, or removed since the check above
        raise ArtifactError(f"cannot read {paths.links_json} ({exc.strerror}): run `dbt-schema-link link` "
                            f"again") from None
    except ValueError as exc:  # malformed JSON; format/version problems are LinkSetFormatError
        raise ArtifactError(f"{paths.links_json} is not a links file ({exc}): run `dbt-schema-link link` again") from None


def write(paths: ProjectPaths, inv: DbtInvocation, overrides: dict, mode, include_declared: bool = False,
          validate: bool = True, build_artifacts: bool = False, notice: Progress | None = None, llm=None):
    """Write accepted links into the project's YAML (or show/check what would change). With
    `docs` in the overrides or settings, also descriptions (inherit / draft); `llm`
    (llm.LLMOptions with the `wording` stage) rewords the drafts, which keep their facts."""
    from dbt_schema_link.writers import WriteOptions, write_back

    prepare_artifacts(paths, inv, need_catalog=False, build=build_artifacts, notice=notice)
    project = read_in_scope(paths, require_catalog=False, one_node=False)
    linkset = load_links(paths)
    links = accepted_links(linkset, include_declared)
    config = project_vars(paths.project_dir).get("write", {})
    options = WriteOptions.from_mapping(config if isinstance(config, dict) else {}, **overrides)
    docs = docs_input(linkset, cached_profiles(paths, project)) if options.docs else None
    wording = None
    if docs is not None and llm is not None and "wording" in llm.stages:
        import dataclasses

        from dbt_schema_link.llm.options import CACHE_DIR_NAME
        from dbt_schema_link.llm.wording import DraftWording

        if llm.cache and llm.config.cache_dir is None:
            llm = dataclasses.replace(llm, config=dataclasses.replace(llm.config, cache_dir=paths.output_dir / CACHE_DIR_NAME))
        wording = DraftWording(llm)
        docs = dataclasses.replace(docs, wording=wording)
    outcome = write_back(project, links, options, mode, inv if validate else None, validate, docs)
    if llm is not None and wording is None:
        outcome.messages.append("notice: LLM wording rewords drafts only (docs: draft); nothing was sent")
    if wording is not None:
        outcome.messages += [f"warning: {w}" for w in wording.warnings] + [wording.summary()]
    return outcome


def docs_input(linkset, profiles: ProfileSet | None):
    """What `write --docs` reads besides the YAML: the lineage copies discovery measured and the
    profiles of the last `profile`/`link` run."""
    from dbt_schema_link.writers.doc_records import DocsInput, LineageCopy

    copies = tuple(LineageCopy(link.child, link.parent) for link in linkset.lineage)
    return DocsInput(lineage=copies, profiles=profiles)


@dataclass
class CoverageRun:
    report: object  # writers.doc_records.CoverageReport
    fail_under: float | None

    @property
    def passed(self) -> bool:
        return self.fail_under is None or self.report.share >= self.fail_under


def docs_coverage(paths: ProjectPaths, inv: DbtInvocation, fail_under: float | None = None,
                  build_artifacts: bool = False, notice: Progress | None = None) -> CoverageRun:
    """Share of columns documented per relation and overall, by people / inherited / drafted /
    none (`dbt-schema-link docs-coverage`); `passed` is False below `fail_under`."""
    from dbt_schema_link.errors import SchemaLinkError
    from dbt_schema_link.writers import WriteOptions
    from dbt_schema_link.writers.doc_coverage import docs_coverage as coverage

    if fail_under is not None and not 0.0 <= fail_under <= 1.0:
        raise SchemaLinkError(f"the threshold must be a share between 0 and 1 (e.g. 0.8), got {fail_under}",
                              option="fail_under")
    prepare_artifacts(paths, inv, need_catalog=False, build=build_artifacts, notice=notice)
    project = read_in_scope(paths, require_catalog=False)  # a source over a seed is counted once, as the seed
    if not project.has_catalog and notice is not None:
        notice("notice: no catalog.json: columns the YAML never mentions are not counted (run `dbt docs generate`)")
    config = project_vars(paths.project_dir).get("write", {})
    options = WriteOptions.from_mapping(config if isinstance(config, dict) else {}, project_dir=paths.project_dir)
    return CoverageRun(coverage(project, paths.project_dir, options.new_file_pattern), fail_under)


# --- question-time linking (`index`, `ask`) ---------------------------------------------------


def build_artifacts(project_dirs: Sequence[str | Path], target_path: str | Path | None,
                    invocation: Callable[[Path], DbtInvocation], notice: Progress | None = None) -> None:
    """`dbt docs generate` in each project whose manifest/catalog are missing or stale."""
    for d in project_dirs or ["."]:
        paths = locate(d, target_path)
        prepare_artifacts(paths, invocation(paths.project_dir), need_catalog=True, build=True, notice=notice)


def index(project_dirs: Sequence[str | Path] = (".",), target_path: str | Path | None = None,
          index_dir: str | Path | None = None, model: str | None = None, group_by: str = "auto",
          force: bool = False, progress: Progress | None = None, notice: Progress | None = None,
          min_shards: int | None = None):
    """Build or refresh the question index of one or more projects (`dbt-schema-link index`);
    a linker.BuildReport. `model` None: the default embedding model; "none": lexical only.
    `min_shards`: this many same-shaped shards or more are one relation family (None: the
    default, 3; 0: never). (Call `build_artifacts` first to make missing or stale artifacts.)"""
    from dbt_schema_link import linker

    kwargs = ({} if model is None else {"model": model}) | ({} if min_shards is None else {"min_shards": min_shards})
    return linker.index(project_dirs, target_path, index_dir, group_by=group_by, force=force, progress=progress,
                        notice=notice or _ignore, **kwargs)


def open_session(project_dirs: Sequence[str | Path] = (".",), target_path: str | Path | None = None,
                 index_dir: str | Path | None = None, llm=None, notice: Progress | None = None, **options):
    """A question session (`dbt-schema-link ask`): the index (refreshed when the project changed)
    and its model, loaded once. `llm` (dbt_schema_link.llm.LLMOptions) adds the selected LLM
    stages (docs/llm.md); other keywords as for `linker.open_session` (budget, top, settings,
    refresh, lexical, progress, quick_start)."""
    from dbt_schema_link import linker

    session = linker.open_session(project_dirs, target_path, index_dir, notice=notice or _ignore, **options)
    if llm is not None and llm.stages:
        from dbt_schema_link.llm.stages import attach

        session = attach(session, llm)
    return session


def ask(question: str, hint: str | None = None, db: str | None = None, *, session=None, **session_options):
    """Link one question; a linker.Answer (`answer.context` is the rendered prompt context)."""
    session = session or open_session(**session_options)
    return session.ask(question, hint, db)


def ask_batch(items, *, session=None, **session_options):
    """Link many questions (items with `question`, optional `id`, `hint`, `db`), one Answer each."""
    session = session or open_session(**session_options)
    yield from session.ask_many(items)


def read_questions(path: str | Path) -> list[dict]:
    """A JSON-lines questions file (`ask --questions`), checked line by line."""
    from dbt_schema_link.linker import read_questions as read

    return read(path)


def answer_json(answer) -> str:
    """One answer as the JSON line `ask --format json` prints."""
    from dbt_schema_link.linker import answer_json as to_json

    return to_json(answer)


def _ignore(message: str) -> None:
    """Default notice sink: notices stay on the report / session (`.notices`)."""


# --- agents (`mcp`) -----------------------------------------------------------------------------


def serve_mcp(project_dirs: Sequence[str | Path] = (".",), target_path: str | Path | None = None,
              index_dir: str | Path | None = None, model: str | None = None, budget: int | None = None,
              progress: Progress | None = None, notice: Progress | None = None) -> None:
    """Serve find_schema, join_path, describe_relation and list_links to an agent over MCP (stdio)
    until the client disconnects (`dbt-schema-link mcp`). The index is loaded once, built first when
    missing (`model`: the embedding model to build it with; None: the index's own, else the
    default) and refreshed when the artifacts change while serving. stdout carries protocol frames
    only: everything for a person goes to `notice` and `progress`."""
    from dbt_schema_link import __version__
    from dbt_schema_link.agents import AgentSession, AgentTools
    from dbt_schema_link.agents.mcp_server import require_sdk, serve_stdio
    from dbt_schema_link.linker.render import DEFAULT_BUDGET
    from dbt_schema_link.linker.service import default_index_dir, input_files
    from dbt_schema_link.linker.store import read_meta

    require_sdk()
    say = notice or _ignore
    dirs = list(project_dirs) or ["."]
    paths = [locate(d, target_path) for d in dirs]
    out_dir = Path(index_dir) if index_dir else default_index_dir(paths[0])
    if read_meta(out_dir) is None:
        say(f"notice: no question index at {out_dir}: building it first")
    if model is not None:
        index(dirs, target_path, index_dir, model, progress=progress, notice=say)

    def open_link_session():
        return open_session(dirs, target_path, index_dir, notice=say, progress=progress,
                            budget=DEFAULT_BUDGET if budget is None else budget)

    session = AgentSession(open_link_session, input_files(paths), [p.links_json for p in paths], say)
    serve_stdio(AgentTools(session), __version__, say)
