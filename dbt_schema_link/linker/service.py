"""Public functions of the question-time linker, in the words of the CLI:

    report = index(["path/to/project"])                 # dbt-schema-link index
    answer = ask("How many orders per country?")        # dbt-schema-link ask "..."
    for a in ask_batch(read_questions("q.jsonl")): ...  # dbt-schema-link ask --questions q.jsonl

`open_session` loads the index and the embedding model once for many questions. Nothing here
prints: notices (missing catalog, model fallback, index refreshed) go to the `notice` callback and
are kept on the report/session; `progress` gets build steps. Optional stages plug in through
`LinkSession.with_hook` (linker/hook.py); `dbt_schema_link.api` wires the LLM stages.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from dbt_schema_link.artifacts.scope import read_in_scope
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.linker.answer import Answer
from dbt_schema_link.linker.documents import GROUP_MODES, ProjectInput
from dbt_schema_link.linker.families import DEFAULT_MIN_SHARDS, check_min_shards
from dbt_schema_link.linker.embedder import DEFAULT_MODEL, NO_MODEL, load_embedder
from dbt_schema_link.linker.hook import LinkerHook
from dbt_schema_link.linker.linkfile import contradicted_pairs, project_links
from dbt_schema_link.linker.pipeline import Linker
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.render import DEFAULT_BUDGET, DEFAULT_TEMPLATE, Renderer
from dbt_schema_link.linker.store import BuildReport, build_index, fingerprint, load_index, read_meta
from dbt_schema_link.links import CONFIDENCE_BARS
from dbt_schema_link.profiling.stored import stored_profiles
from dbt_schema_link.profiling.records import ProfileSet
from dbt_schema_link.project_config import ProjectPaths, locate, project_vars

Progress = Callable[[str], None]


def _ignore(message: str) -> None:
    """The default `notice`: the message is still kept on the report or session."""


def default_index_dir(paths: ProjectPaths) -> Path:
    return paths.output_dir / "index"


def _profiles(paths: ProjectPaths, project) -> ProfileSet | None:
    return stored_profiles(paths.profiles_json, project)


def _locate_all(project_dirs: Sequence[str | Path], target_path: str | Path | None) -> list[ProjectPaths]:
    dirs = list(project_dirs) or ["."]
    return [locate(d, target_path) for d in dirs]


def input_files(paths: Sequence[ProjectPaths]) -> list[Path]:
    """The artifacts an index is built from (its fingerprint covers them; the MCP server watches them)."""
    out = []
    for p in paths:
        # dbt_project.yml: its vars hold the write bar that decides which written links join
        out += [p.target_dir / "manifest.json", p.target_dir / "catalog.json", p.profiles_json, p.links_json,
                p.project_dir / "dbt_project.yml"]
    return out


def written_min_confidence(paths: ProjectPaths) -> float:
    """The write bar of the project (``vars: {schema_link: {write: {min_confidence}}}``): a link
    `write` wrote is joined on only while the data still scores it at least this."""
    config = project_vars(paths.project_dir).get("write", {})
    value = config.get("min_confidence") if isinstance(config, dict) else None
    try:
        return min(1.0, max(0.0, float(value))) if value is not None else CONFIDENCE_BARS.write_test
    except (TypeError, ValueError):
        return CONFIDENCE_BARS.write_test


def load_inputs(paths: Sequence[ProjectPaths], notice: Progress = _ignore) -> list[ProjectInput]:
    """Projects as the index sees them: records, cached profiles (sample values), join links."""
    inputs = []
    for p in paths:
        project = read_in_scope(p, require_catalog=False)
        if not project.has_catalog:
            notice(f"notice: {p.target_dir / 'catalog.json'} not found: column types and undocumented columns "
                   f"are missing (run `dbt docs generate`)")
        # tests on sources included: the manifest reader resolves their child
        links = project_links(p.links_json, project, written_min_confidence(p))
        inputs.append(ProjectInput(project, _profiles(p, project), links, contradicted_pairs(p.links_json, project)))
    return inputs


def index(project_dirs: Sequence[str | Path] = (".",), target_path: str | Path | None = None,
          index_dir: str | Path | None = None, model: str | None = DEFAULT_MODEL, group_by: str = "auto",
          force: bool = False, progress: Progress | None = None, notice: Progress = _ignore,
          min_shards: int = DEFAULT_MIN_SHARDS) -> BuildReport:
    """Build or refresh the question index of one or more dbt projects (`dbt-schema-link index`).

    Unchanged inputs → nothing is done; changed descriptions/profiles/links → rebuilt, embedding
    only the texts that changed. The index lives in the first project's target/schema_link/index
    unless `index_dir` says otherwise. `min_shards` same-shaped shards or more are one relation
    family (linker/families.py; 0: none). Notices go to `notice` and onto the report.
    """
    if group_by not in GROUP_MODES:
        raise SchemaLinkError(f"grouping {group_by!r} is not one of {', '.join(GROUP_MODES)}", option="group_by")
    check_min_shards(min_shards)
    paths = _locate_all(project_dirs, target_path)
    out_dir = Path(index_dir) if index_dir else default_index_dir(paths[0])
    wanted = None if (model or "").strip().lower() in NO_MODEL else model

    def digest_for(model_name: str | None) -> str:
        return fingerprint(input_files(paths), {"model": model_name, "group_by": group_by, "min_shards": min_shards,
                                                 "projects": [str(p.project_dir) for p in paths]})

    digest = digest_for(wanted)
    meta = read_meta(out_dir)
    if not force and meta and meta.get("fingerprint") == digest and meta.get("model") == wanted:
        return build_index([], out_dir, None, group_by, digest, False, progress, min_shards=min_shards)  # up to date
    notices: list[str] = []

    def say(message: str) -> None:
        notices.append(message)
        notice(message)

    status = load_embedder(model)
    if status.notice:
        say(status.notice)
    if status.embedder is None and wanted is not None:
        digest = digest_for(None)
    inputs = load_inputs(paths, say)
    meta = [{"name": i.project.project_name, "project_dir": str(p.project_dir), "target_dir": str(p.target_dir),
             "dbt_version": i.project.dbt_version, "adapter": i.project.adapter_type}
            for i, p in zip(inputs, paths)]
    report = build_index(inputs, out_dir, status.embedder, group_by, digest, True, progress, meta, min_shards)
    report.notices.extend(notices)
    return report


@dataclass
class LinkSession:
    """An opened index with its model: answers many questions without reloading anything."""

    linker: Linker
    renderer: Renderer
    budget: int | None = DEFAULT_BUDGET
    notices: list[str] = field(default_factory=list)
    index_dir: Path | None = None  # where the index was loaded from (hooks keep their caches beside it)

    @property
    def index(self):
        return self.linker.index

    @property
    def hook(self) -> LinkerHook | None:
        return self.linker.hook

    def with_hook(self, hook: LinkerHook | None) -> "LinkSession":
        """A session sharing this one's index, model and renderer whose linker runs `hook`."""
        linker = copy.copy(self.linker)
        linker.hook = hook
        return replace(self, linker=linker, notices=list(self.notices))

    def _finish(self, answer: Answer) -> Answer:
        rendered = self.renderer.render(answer, self.budget, answer.scores)
        answer.context, answer.tokens, answer.render, answer.budget = rendered.text, rendered.tokens, rendered.mode, self.budget
        return answer

    def ask(self, question: str, hint: str | None = None, db: str | None = None, id: str | int | None = None) -> Answer:
        return self._finish(self.linker.link(question, hint, db, id=id))

    def ask_many(self, items: Iterable[dict]) -> Iterator[Answer]:
        for answer in self.linker.link_many(items):
            yield self._finish(answer)


def open_session(project_dirs: Sequence[str | Path] = (".",), target_path: str | Path | None = None,
                 index_dir: str | Path | None = None, budget: int | None = DEFAULT_BUDGET, top: int | None = None,
                 settings: dict | LinkSettings | None = None, template: str = DEFAULT_TEMPLATE,
                 refresh: bool = True, lexical: bool = False, notice: Progress = _ignore,
                 progress: Progress | None = None, quick_start: bool = False) -> LinkSession:
    """Load (refreshing first if the project changed) the index and its embedding model.
    Offline; `dbt_schema_link.api.open_session(llm=...)` adds the LLM stages (docs/llm.md).
    `quick_start`: a session for one question or a few, which embeds without torch where the
    model allows (see embedder.load_embedder)."""
    if budget is not None and budget < 1:
        raise SchemaLinkError(f"the token budget {budget} must be a positive number of tokens", option="budget")
    if top is not None and top < 1:
        raise SchemaLinkError(f"at most {top} columns: the column limit must be at least 1", option="top")
    notices: list[str] = []

    def say(message: str) -> None:
        notices.append(message)
        notice(message)

    if index_dir is not None and not project_dirs:
        out_dir = Path(index_dir)
    else:
        paths = _locate_all(project_dirs, target_path)
        out_dir = Path(index_dir) if index_dir else default_index_dir(paths[0])
        meta = read_meta(out_dir)
        if refresh:
            model = (meta or {}).get("model", DEFAULT_MODEL) if meta else DEFAULT_MODEL
            group_by = (meta or {}).get("group_by", "auto")
            min_shards = (meta or {}).get("min_shards", DEFAULT_MIN_SHARDS)
            report = index(project_dirs, target_path, out_dir, model or "none", group_by, False, progress, say,
                           min_shards)
            if not report.up_to_date:
                say(f"notice: {report.summary()}")
    idx = load_index(out_dir)
    embedder = None
    if idx.model and not lexical:
        status = load_embedder(idx.model, quick_start=quick_start)
        if status.notice:
            say(status.notice)
        embedder = status.embedder
    elif not idx.model:
        say("notice: the index has no dense vectors (built without an embedding model): lexical and value matching only")
    base = settings if isinstance(settings, LinkSettings) else LinkSettings().with_overrides(settings)
    if top is not None:
        base = base.with_overrides({"max_columns": top})
    dialect = next((p.get("adapter") for p in idx.meta.get("projects", []) if p.get("adapter")), None) or "SQL"
    return LinkSession(Linker(idx, embedder, base), Renderer(idx, template, dialect), budget, notices, out_dir)


def ask(question: str, hint: str | None = None, db: str | None = None, *, session: LinkSession | None = None,
        **session_options) -> Answer:
    """Link one question (`dbt-schema-link ask "..."`); options as for `open_session`."""
    session = session or open_session(**session_options)
    return session.ask(question, hint, db)


def ask_batch(items: Iterable[dict], *, session: LinkSession | None = None, **session_options) -> Iterator[Answer]:
    """Link many questions (`ask --questions FILE.jsonl`): items with `question`, optional `id`,
    `hint`, `db`. The model is loaded once and questions are embedded in chunks."""
    session = session or open_session(**session_options)
    yield from session.ask_many(items)


def read_questions(path: str | Path) -> list[dict]:
    """A JSON-lines file of {"id", "question", "hint"?, "db"?} objects (one-line errors)."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SchemaLinkError(f"cannot read questions file {path}: {exc.strerror}") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SchemaLinkError(f"{path}:{n} is not a JSON object ({exc.msg}): one question object per line") from None
        if not isinstance(item, dict) or not isinstance(item.get("question"), str) or not item["question"].strip():
            raise SchemaLinkError(f'{path}:{n} has no "question" text: expected {{"id": ..., "question": "..."}}')
        for key in ("hint", "db"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise SchemaLinkError(f'{path}:{n}: "{key}" must be a string')
        item.setdefault("id", n)
        out.append(item)
    return out


def answer_json(answer: Answer) -> str:
    return json.dumps(answer.to_dict(), ensure_ascii=False)
