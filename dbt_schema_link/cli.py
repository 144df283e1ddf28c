"""`dbt-schema-link` command line. Thin: parse options → one api function → print.

Data goes to stdout, progress and messages to stderr. A `SchemaLinkError` is printed as one line
(`error: ...`) with its exit code; no tracebacks for problems a user can fix.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Sequence

from dbt_schema_link import __version__, api
from dbt_schema_link.dbt_runner import DbtInvocation
from dbt_schema_link.embedding_spec import DEFAULT_MODEL, INT8_SUFFIX
from dbt_schema_link.errors import ProfilingIncomplete, SchemaLinkError
from dbt_schema_link.llm.client import DEFAULT_API_KEY_ENV, DEFAULT_TIMEOUT_S, Api
from dbt_schema_link.llm.options import (
    CACHE_DIR_NAME,
    ENV_API,
    ENV_API_KEY_ENV,
    ENV_BASE_URL,
    ENV_MODEL,
    STAGES,
    WRITE_STAGES,
)
from dbt_schema_link.profiling.options import ProfileOptions
from dbt_schema_link.project_config import locate

#: The flag that sets each api keyword a `SchemaLinkError.option` can name.
OPTION_FLAGS = {
    "project_dir": "--project-dir", "group_by": "--group-by", "min_shards": "--min-shards", "budget": "--budget", "top": "--top",
    "dbt_version": "--dbt-version", "llm_stages": "--llm", "llm_base_url": "--llm-base-url",
    "llm_model": "--llm-model", "llm_timeout": "--llm-timeout", "docs": "--docs",
    "fail_under": "--fail-under",
}
#: Options whose flag is a way out rather than the thing at fault: named after the message.
ALTERNATIVE_FLAGS = {"build_artifacts": "--build-artifacts"}


class _Reporter:
    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.start = time.monotonic()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print(f"[{time.monotonic() - self.start:6.1f}s] {message}", file=sys.stderr, flush=True)


def _project_args(p: argparse.ArgumentParser, several: bool = False, artifacts: bool = True) -> None:
    """The flags every command takes; `several`: --project-dir may repeat (index, ask);
    `artifacts`: the command reads dbt's artifacts (--build-artifacts)."""
    g = p.add_argument_group("dbt project" + ("s" if several else ""))
    if several:
        g.add_argument("--project-dir", action="append", default=None,
                       help="dbt project directory; repeat to index several projects together (default: .)")
    else:
        g.add_argument("--project-dir", default=".", help="dbt project directory (default: current directory)")
    g.add_argument("--target-path", default=None, help="dbt target directory (default: <project>/target)")
    g.add_argument("--profiles-dir", default=None, help="directory of profiles.yml (default: dbt's own lookup)")
    g.add_argument("--target", "-t", default=None, help="dbt target (profile output) to use")
    g.add_argument("--dbt", dest="dbt_executable", default=None, help="dbt executable (default: the one beside this Python)")
    # independent: -q drops progress lines, -v adds details (both: the details without the progress)
    g.add_argument("--quiet", "-q", action="store_true", help="no progress messages on stderr")
    g.add_argument("--verbose", "-v", action="store_true",
                   help="more detail on stderr where the command has it (link: wall time of each "
                        "discovery stage; write: every link not written, and why)")
    if artifacts:
        g.add_argument("--build-artifacts", action="store_true",
                       help="run `dbt docs generate` first when manifest.json/catalog.json are missing or "
                            "older than the project's files (default: say so, and stop when missing)")


def _profile_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("profiling")
    d = ProfileOptions()
    g.add_argument("--select", "-s", nargs="+", default=[], help="relations to profile (names or unique_ids)")
    g.add_argument("--exclude", nargs="+", default=[], help="relations to leave out")
    g.add_argument("--refresh", action="store_true", help="ignore cached profiles and the last run's scores: profile and score everything again")
    g.add_argument("--k", type=int, default=d.k, help=f"MinHash signature size (default {d.k})")
    g.add_argument("--sample-rows", type=int, default=d.sample_rows,
                   help=f"sample relations with more rows than this (default {d.sample_rows:,})")
    g.add_argument("--sample-percent", type=float, default=d.sample_percent,
                   help=f"sample size in percent (default {d.sample_percent})")
    g.add_argument("--log-path", default=None, metavar="DIR",
                   help="where dbt writes dbt.log, read for the profiles of the on-run-end hook "
                        "(default: $DBT_LOG_PATH, else <project>/logs)")


def _invocation(args, project_dir: str | Path | None = None) -> DbtInvocation:
    return DbtInvocation(
        project_dir=Path(project_dir or args.project_dir).resolve(),
        profiles_dir=Path(args.profiles_dir).resolve() if args.profiles_dir else None,
        target=args.target,
        dbt_executable=args.dbt_executable,
    )


def _options(args) -> ProfileOptions:
    return ProfileOptions(k=args.k, sample_rows=args.sample_rows, sample_percent=args.sample_percent)


def _settings_overrides(pairs: Sequence[str]) -> dict:
    out: dict = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SchemaLinkError(f"--set {pair!r} is not KEY=VALUE: e.g. --set min_confidence=0.8")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def cmd_init(args) -> int:
    report = api.init(args.project_dir, _invocation(args), check=args.check, progress=_Reporter(args.quiet),
                      on_run_end=args.on_run_end)
    for line in report.lines:
        print(line)
    return 1 if args.check and (not report.ready or report.edited) else 0


def cmd_profile(args) -> int:
    report = _Reporter(args.quiet)
    paths = locate(args.project_dir, args.target_path)
    run = api.profile(paths, _invocation(args), _options(args), args.select, args.exclude, args.refresh, report,
                      build_artifacts=args.build_artifacts, notice=_notice, log_dir=_log_path(args))
    if args.json:
        print(paths.profiles_json.read_text(encoding="utf-8"), end="")
    else:
        rows = [("relation", "rows", "columns", "skipped cols", "distinct", "note")]
        for uid in sorted(run.profiles.relations):
            prof = run.profiles.relations[uid]
            skipped = sum(1 for c in prof.columns.values() if c.skipped)
            approx = any(c.distinct_approx for c in prof.columns.values())
            note = f"sampled {prof.sample_percent:g}%" if prof.sampled else ""
            rows.append((uid, f"{prof.row_count:,}", str(len(prof.columns)), str(skipped),
                         "approx" if approx else "exact", note))
        _print_table(rows)
        print(f"\nwrote {paths.profiles_json}", file=sys.stderr)
    return _finish_failures(run.profiles)


def _finish_failures(profiles) -> int:
    if not profiles.failures:
        return 0
    for failure in profiles.failures:
        print(f"error: {failure.unique_id} was not profiled: {failure.message}", file=sys.stderr)
    raise ProfilingIncomplete(
        f"{len(profiles.failures)} relation(s) failed to profile and were skipped; the others were written"
    )


def cmd_link(args) -> int:
    report = _Reporter(args.quiet)
    paths = locate(args.project_dir, args.target_path)
    run = api.link(
        paths, _invocation(args), _settings_overrides(args.set), _options(args),
        use_warehouse=not args.no_profile, verify=not args.no_verify, refresh=args.refresh,
        select=args.select, exclude=args.exclude, progress=report, build_artifacts=args.build_artifacts,
        notice=_notice, log_dir=_log_path(args),
    )
    if args.check:
        return _finish_check(run)
    from dbt_schema_link.link_check import Difference

    for difference in run.differences:
        if difference.kind is Difference.NO_LONGER_HOLDS:  # ask and MCP no longer join on it
            _notice(f"notice: {difference.line()}")
    if args.format == "json":
        print(run.links.to_json(), end="")
    else:
        print(paths.links_md.read_text(encoding="utf-8"), end="")
    print(f"wrote {paths.links_json} and {paths.links_md}", file=sys.stderr)
    timings = getattr(run.links, "timings", None)
    if args.verbose and timings is not None:
        print("discovery stages (wall seconds):", file=sys.stderr)
        for line in timings.lines():
            print(f"  {line}", file=sys.stderr)
    return _finish_failures(run.profiles) if run.profiles is not None else 0


def _log_path(args) -> str | None:
    """Where dbt writes dbt.log, as dbt itself decides it (--log-path, then DBT_LOG_PATH)."""
    return args.log_path or os.environ.get("DBT_LOG_PATH") or None


def _finish_check(run) -> int:
    """`link --check`: one line per difference on stdout; exit 1 when there is any."""
    from dbt_schema_link.writers.records import PACKAGE_REASON

    for difference in run.differences:
        print(difference.line())
    for package, n in run.left_out.items():
        print(f"link --check: left out {n} link(s) on relations of package {package}: `write` cannot write them "
              f"({PACKAGE_REASON})", file=sys.stderr)
    if run.differences:
        print(f"link --check: {len(run.differences)} difference(s) between the inferred links and the written "
              f"ones", file=sys.stderr)
    else:
        print("link --check: the written links match the inferred ones", file=sys.stderr)
    code = _finish_failures(run.profiles) if run.profiles is not None else 0
    return 1 if run.differences else code


def cmd_write(args) -> int:
    from dbt_schema_link.writers import WriteMode

    mode = WriteMode.CHECK if args.check else WriteMode.DRY_RUN if args.dry_run else WriteMode.WRITE
    paths = locate(args.project_dir, args.target_path)
    overrides = {
        "min_confidence": args.min_confidence,
        "severity": args.severity,
        "semantic_models": args.semantic_models,
        "create_time_spine": args.create_time_spine or None,
        "constraints": args.constraints or None,
        "column_docs": False if args.no_docs else None,
        "docs": tuple(args.docs) or None,
        "draft_columns": False if args.no_column_drafts else None,
        "draft_relations": False if args.no_relation_drafts else None,
        "inherit_meta": args.inherit_meta or None,
        "dbt_version": args.dbt_version,
        "project_dir": paths.project_dir,
    }
    outcome = api.write(paths, _invocation(args), overrides, mode, args.include_declared, not args.no_validate,
                        build_artifacts=args.build_artifacts, notice=_notice,
                        llm=llm_options_from_args(args, allowed=WRITE_STAGES))
    if outcome.diff:
        print(outcome.diff, end="" if outcome.diff.endswith("\n") else "\n")
    for message in outcome.messages:
        print(message, file=sys.stderr)
    if args.verbose:
        for skipped in outcome.plan.skipped:
            print(f"not written: {skipped}", file=sys.stderr)
    return outcome.exit_code


def cmd_docs_coverage(args) -> int:
    from dbt_schema_link.writers.doc_coverage import to_json, to_markdown

    paths = locate(args.project_dir, args.target_path)
    run = api.docs_coverage(paths, _invocation(args), args.fail_under, args.build_artifacts, notice=_notice)
    print(to_json(run.report) if args.format == "json" else to_markdown(run.report), end="")
    if not run.passed:
        print(f"docs coverage {run.report.share:.1%} is below --fail-under {args.fail_under:g}", file=sys.stderr)
        return 1
    return 0


def _linker_args(p: argparse.ArgumentParser) -> None:
    _project_args(p, several=True)
    p.add_argument("--index-dir", default=None, help="where the index lives (default: <first project>/target/schema_link/index)")


def _notice(message: str) -> None:
    """Library notices (missing catalog, model fallback, index refreshed): shown even with --quiet."""
    print(message, file=sys.stderr, flush=True)


def _build_artifacts(args, report) -> None:
    if args.build_artifacts:
        api.build_artifacts(args.project_dir or ["."], args.target_path,
                            lambda d: _invocation(args, d), notice=report)


def cmd_index(args) -> int:
    report = _Reporter(args.quiet)
    _build_artifacts(args, report)
    result = api.index(args.project_dir or ["."], args.target_path, args.index_dir, args.model,
                       args.group_by, args.force, progress=report, notice=_notice, min_shards=args.min_shards)
    print(result.summary(), file=sys.stderr)
    return 0


def cmd_ask(args) -> int:
    if bool(args.question) == bool(args.questions):
        raise SchemaLinkError('give either a question ("...") or --questions FILE.jsonl')
    _build_artifacts(args, _Reporter(args.quiet))
    session = api.open_session(
        args.project_dir or ["."], args.target_path, args.index_dir, llm=llm_options_from_args(args), notice=_notice,
        budget=args.budget, top=args.top, settings=_settings_overrides(args.set) or None,
        refresh=not args.no_refresh, progress=None if args.quiet else _Reporter(False),
        quick_start=not args.questions,
    )
    if args.questions:
        for answer in api.ask_batch(api.read_questions(args.questions), session=session):
            print(api.answer_json(answer), flush=True)
            _llm_warnings(answer)
        _llm_summary(session, args.quiet)
        return 0
    answer = api.ask(args.question, args.hint, args.db, session=session)
    if args.format == "json":
        print(api.answer_json(answer))
    else:
        print(answer.context)
    _llm_warnings(answer)
    _llm_summary(session, args.quiet)
    note = answer.choices_note("--db")
    if note and not args.quiet:
        print(f"note: {note}", file=sys.stderr)
    return 0


def cmd_mcp(args) -> int:
    report = _Reporter(args.quiet)
    _build_artifacts(args, report)
    api.serve_mcp(args.project_dir or ["."], args.target_path, args.index_dir, args.model, args.budget,
                  progress=None if args.quiet else report, notice=_notice)
    return 0


def add_llm_arguments(parser: argparse.ArgumentParser, stages: tuple[str, ...] = STAGES) -> None:
    """The `--llm*` options of `ask` (and of benchmarks/question_linking.py); `write` passes its
    own stages (WRITE_STAGES)."""
    g = parser.add_argument_group("LLM stages (optional; docs/llm.md)")
    g.add_argument("--llm", default=None, metavar="STAGES",
                   help=f"comma-separated stages to run against an OpenAI-compatible endpoint: "
                        f"{', '.join(stages)}, or all (default: none, fully offline)")
    g.add_argument("--llm-base-url", default=None, metavar="URL",
                   help=f"endpoint base URL, e.g. http://localhost:11434/v1 (default: ${ENV_BASE_URL})")
    g.add_argument("--llm-model", default=None, metavar="NAME", help=f"model name (default: ${ENV_MODEL})")
    g.add_argument("--llm-api", default=None, choices=[a.value for a in Api],
                   help=f"chat (/chat/completions, instruction-tuned models; default) or completion "
                        f"(/completions with an 'Answer:' prompt, for base models without a chat "
                        f"template; default: ${ENV_API} or chat)")
    g.add_argument("--llm-api-key-env", default=None, metavar="VAR",
                   help=f"environment variable holding the API key (default: ${ENV_API_KEY_ENV} or {DEFAULT_API_KEY_ENV}); "
                        f"the key itself is never printed, logged or cached")
    g.add_argument("--llm-timeout", type=float, default=None, metavar="SECONDS",
                   help=f"seconds per request (default {DEFAULT_TIMEOUT_S:g})")
    g.add_argument("--llm-price-prompt", type=float, default=None, metavar="PRICE",
                   help="price per 1,000 prompt tokens, for the cost figures (default: no cost shown)")
    g.add_argument("--llm-price-completion", type=float, default=None, metavar="PRICE",
                   help="price per 1,000 completion tokens")
    g.add_argument("--llm-no-cache", action="store_true",
                   help=f"do not read or write the response cache (target/schema_link/{CACHE_DIR_NAME}/)")


def llm_options_from_args(args, stages: str | None = None, allowed: tuple[str, ...] = STAGES):
    """LLMOptions from parsed `add_llm_arguments` flags (`stages` overrides --llm); None when no
    stage is selected (fully offline). `allowed`: the command's stage names."""
    stages = args.llm if stages is None else stages
    if not stages:
        return None
    from dbt_schema_link.llm.options import llm_options

    return llm_options(stages, args.llm_base_url, args.llm_model, args.llm_api_key_env, args.llm_timeout,
                       cache=not args.llm_no_cache, prompt_price_per_1k=args.llm_price_prompt,
                       completion_price_per_1k=args.llm_price_completion, allowed=allowed, api=args.llm_api)


def _llm_warnings(answer) -> None:
    for warning in (answer.llm.warnings if answer.llm is not None else ()):
        print(f"warning: {warning}", file=sys.stderr)


def _llm_summary(session, quiet: bool) -> None:
    hook = session.hook
    if hook is not None and not quiet:
        print(hook.summary(), file=sys.stderr)


def _with_flag(exc: SchemaLinkError) -> str:
    """The library says what is wrong; the CLI says which flag sets it."""
    if exc.option in ALTERNATIVE_FLAGS:
        return f"{exc} (or pass {ALTERNATIVE_FLAGS[exc.option]})"
    flag = OPTION_FLAGS.get(exc.option or "")
    return f"{flag}: {exc}" if flag and not str(exc).startswith(flag) else str(exc)


def _print_table(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dbt-schema-link",
        description="Discover how a dbt project's tables join, write the links back as dbt tests, "
                    "and link questions to the models and columns they need.",
    )
    parser.add_argument("--version", action="version", version=f"dbt-schema-link {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("init", help="add the dbt package to packages.yml and install it (dbt deps)",
                       description="Add dbt_schema_link to the project's packages.yml (a round-trip edit that keeps "
                                   "comments; `local:` to the checkout this runs from, else to the dbt package "
                                   "inside the installed wheel) and run `dbt deps`. Example: dbt-schema-link init --check")
    _project_args(p, artifacts=False)
    p.add_argument("--check", action="store_true", help="report what would be done; change nothing (exit 1 if not ready)")
    p.add_argument("--on-run-end", action="store_true",
                   help="also add the package's on-run-end hook (profiles what `dbt build` builds) and "
                        "vars: {schema_link_on_run_end: true} to dbt_project.yml; without it no hook runs")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("profile", help="profile the project's relations inside the warehouse",
                       description="Run `dbt run-operation link_schemas` and write target/schema_link/profiles.json. "
                                   "Example: dbt-schema-link profile --project-dir examples/shop")
    _project_args(p)
    _profile_args(p)
    p.add_argument("--json", action="store_true", help="print the profiles JSON instead of a table")
    p.set_defaults(func=cmd_profile)

    p = sub.add_parser("link", help="infer join candidates with evidence (links.json, links.md)",
                       description="Profile, infer joins, verify them in the warehouse, write "
                                   "target/schema_link/links.json and links.md. "
                                   "Example: dbt-schema-link link --project-dir examples/shop")
    _project_args(p)
    _profile_args(p)
    p.add_argument("--no-profile", action="store_true",
                   help="do not touch the warehouse: use cached profiles (if any) and metadata only")
    p.add_argument("--no-verify", action="store_true", help="skip exact containment checks in the warehouse")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a discovery setting, e.g. --set min_confidence=0.8 (repeatable)")
    p.add_argument("--format", choices=["md", "json"], default="md", help="what to print on stdout")
    p.add_argument("--check", action="store_true",
                   help="CI: links written by `write` are inferred again, not taken as declared; print one line "
                        "per new join or written link that no longer holds, exit 1 if any")
    p.set_defaults(func=cmd_link)

    p = sub.add_parser("write", help="write accepted links into the project's YAML as dbt tests and docs",
                       description="Turn the links of the last `link` run into relationships data tests, "
                                   "column descriptions and (optionally) semantic-model entities, editing the "
                                   "project's own YAML in place. Example: dbt-schema-link write --dry-run")
    _project_args(p)
    p.add_argument("--dry-run", action="store_true", help="print a unified diff; write nothing")
    p.add_argument("--check", action="store_true", help="exit 1 if writing would change any file (for CI)")
    p.add_argument("--min-confidence", type=float, default=None, help="write inferred links at or above this confidence (default 0.7)")
    p.add_argument("--severity", choices=["warn", "error"], default=None, help="severity of generated tests for inferred links (default warn)")
    p.add_argument("--include-declared", action="store_true", help="also materialise links declared elsewhere (constraints, entities)")
    p.add_argument("--semantic-models", nargs="?", const="legacy", choices=["none", "legacy", "model"], default=None,
                   help="also write semantic-model entities: legacy top-level spec (default when given) or the dbt 1.12 in-model spec")
    p.add_argument("--create-time-spine", action="store_true", help="create a minimal time spine model when none exists")
    p.add_argument("--constraints", action="store_true", help="add foreign_key constraints to models with enforced contracts")
    p.add_argument("--no-docs", action="store_true", help="do not add join descriptions to foreign-key columns")
    p.add_argument("--docs", action="append", default=[], metavar="MODE", choices=["inherit", "draft"],
                   help="document undocumented columns: inherit (the description of the documented upstream "
                        "column it copies, through measured lineage) and/or draft (a short factual draft from the "
                        "profile, and one-line relation drafts); repeatable")
    p.add_argument("--inherit-meta", action="store_true", help="with --docs inherit: also copy the upstream column's meta and tags")
    p.add_argument("--no-column-drafts", action="store_true", help="with --docs draft: leave column drafts out")
    p.add_argument("--no-relation-drafts", action="store_true", help="with --docs draft: leave relation-level drafts out")
    p.add_argument("--dbt-version", default=None, help="YAML syntax for this dbt version (default: from the manifest)")
    p.add_argument("--no-validate", action="store_true", help="skip validating the result with dbt parse")
    add_llm_arguments(p, WRITE_STAGES)
    p.set_defaults(func=cmd_write)

    p = sub.add_parser("docs-coverage", help="share of columns documented per relation: by people, inherited, drafted, none",
                       description="Count how each model, seed, snapshot and source table's columns are documented, "
                                   "from the YAML on disk. Example: dbt-schema-link docs-coverage --fail-under 0.8")
    _project_args(p)
    p.add_argument("--fail-under", type=float, default=None, metavar="SHARE",
                   help="exit 1 when the share of documented columns is below this (0-1, e.g. 0.8)")
    p.add_argument("--format", choices=["md", "json"], default="md", help="Markdown table or JSON")
    p.set_defaults(func=cmd_docs_coverage)

    p = sub.add_parser("index", help="build or refresh the question-time index (descriptions, values, joins)",
                       description="Index relations and columns of one or more dbt projects for `ask`: dense "
                                   "vectors (local model), BM25, a value index and the join graph. "
                                   "Example: dbt-schema-link index --project-dir examples/shop")
    _linker_args(p)
    p.add_argument("--model", default=DEFAULT_MODEL,
                   help=f"sentence-transformers model name or path, with '{INT8_SUFFIX}' for int8 CPU inference, "
                        f"or 'none' for lexical retrieval only (default {DEFAULT_MODEL})")
    p.add_argument("--group-by", choices=["auto", "schema", "project"], default="auto",
                   help="unit of localization: database.schema, or the dbt project (auto: project when several)")
    p.add_argument("--min-shards", type=int, default=None,
                   help="date- or number-sharded relations of one shape (events_20210101 ... events_20211231), "
                        "this many or more, are indexed as one relation family; 0: never (default 3)")
    p.add_argument("--force", action="store_true", help="rebuild even when nothing changed")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("ask", help="the models, columns and join path a question needs, as LLM-ready context",
                       description='Example: dbt-schema-link ask "revenue by customer country last month" '
                                   "--project-dir examples/shop --budget 1500")
    _linker_args(p)
    p.add_argument("question", nargs="?", help="the natural-language question")
    p.add_argument("--hint", default=None, help="extra evidence for the question (e.g. a BIRD hint)")
    p.add_argument("--db", default=None, help="restrict to one database.schema (or project)")
    p.add_argument("--budget", type=int, default=2048, help="token budget for the whole prompt (default 2048)")
    p.add_argument("--top", type=int, default=None, help="at most this many columns")
    p.add_argument("--format", choices=["md", "json"], default="md", help="rendered context or the JSON answer")
    p.add_argument("--questions", metavar="FILE.jsonl", default=None,
                   help="batch mode: one JSON object per line (id, question, hint, db); prints one JSON line each")
    p.add_argument("--no-refresh", action="store_true", help="use the index as it is, even if the project changed")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a linking setting")
    add_llm_arguments(p)
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("mcp", help="serve the linker to agents: an MCP server on stdio (find_schema, join_path, ...)",
                       description="A Model Context Protocol server over stdin/stdout with the tools find_schema, "
                                   "join_path, describe_relation and list_links. Loads the index once (building it "
                                   "when missing) and refreshes it when the artifacts change; stdout carries "
                                   "protocol frames only, notices go to stderr. Client config: "
                                   '{"command": "dbt-schema-link", "args": ["mcp", "--project-dir", "path/to/project"]}')
    _linker_args(p)
    p.add_argument("--model", default=None,
                   help=f"embedding model to (re)build the index with (default: the index's own, else {DEFAULT_MODEL}; "
                        f"'none' for lexical only)")
    p.add_argument("--budget", type=int, default=2048,
                   help="find_schema's token budget when a call gives none (default 2048)")
    p.set_defaults(func=cmd_mcp)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except SchemaLinkError as exc:
        print(f"error: {_with_flag(exc)}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a file removed or replaced while the command ran (another run, `dbt deps`)
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot read or write{where} ({exc.strerror or exc}): check that it exists and that no other "
              f"command is rewriting the project, then run again", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted; nothing partial was written (files are replaced atomically)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
