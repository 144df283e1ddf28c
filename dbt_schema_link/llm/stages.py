"""Optional LLM stages of the question-time linker, each switchable:

- ``hallucinate`` (CRUSH4SQL): the model proposes a minimal schema for the question without
  seeing ours; every proposed element probes the index (dense + lexical + name retrieval on the
  element's words); a greedy collective selection covers all probes under the column budget,
  weighting each probe by its confidence (its best match) and rewarding elements that connect
  (same model, or joinable in one hop of the link graph); the chosen columns are merged into the
  column evidence before localization and selection.
- ``rerank`` (MDB-Link): each candidate database/schema of the short list gets a yes/no relevance
  question over a budget-aware rendering of its schema; candidates are reordered by the
  normalised probability of "yes" (top log-probabilities, or the share of "yes" among sampled
  answers when the endpoint gives none).
- ``bidirectional`` (RSL-SQL): forward (the model lists the tables/columns it needs from the
  rendered candidate schema) ∪ backward (the model drafts SQL; sqlglot reads every column it
  uses); the union goes through join completion and rendering as before.

The linker calls `LLMStages.start` once per question (see `Linker.link`); the returned
`QuestionRun` is the only state of that question. Any failure — endpoint down, timeouts, a
malformed answer — leaves the offline result in place and adds a one-line warning to the
answer's `llm` record; nothing here raises into the linker.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from dbt_schema_link.linker.selection import Selection
from dbt_schema_link.linker.text import identifier_words, question_terms
from dbt_schema_link.llm import prompts
from dbt_schema_link.llm.client import ChatClient, ChatRequest, ChatResponse, LLMError, Meter
from dbt_schema_link.llm.options import CACHE_DIR_NAME, LLMOptions
from dbt_schema_link.llm.parse import (
    AnswerFormatError,
    NameResolver,
    Resolved,
    answer_names,
    p_yes_from_logprobs,
    schema_elements,
    sql_columns,
    yes_no,
)

#: Temperature of those samples.
SAMPLE_TEMPERATURE = 1.0
#: Longest answers accepted per stage (tokens): a column list of about two dozen `table.column`
#: names, a Spider/BIRD-sized query. Caps, not targets: a model that rambles costs this much.
HALLUCINATE_MAX_TOKENS = 300
RERANK_MAX_TOKENS = 2
FORWARD_MAX_TOKENS = 200
BACKWARD_MAX_TOKENS = 300
#: Hallucinated elements used as probes at most.
MAX_PROBES = 24
#: Columns each probe offers to the collective selection.
PROBE_TOP_K = 5
#: Probe similarity = dense cosine + these weights × normalised BM25 / name coverage.
PROBE_W_LEX = 0.3
PROBE_W_NAME = 0.3
#: Bonus in the collective objective for a column connected to one already chosen.
CONNECT_BONUS = 0.1
#: The greedy selection stops when the best marginal gain falls below this.
MIN_GAIN = 0.01
#: Column evidence added for a chosen column (scaled by its share of the best coverage); the
#: linker's fused column scores are ~0.5–2.
HALLUCINATE_COL_WEIGHT = 0.6
#: The same for relation evidence (through its best chosen column) and for localization.
HALLUCINATE_REL_WEIGHT = 0.6
HALLUCINATE_LOC_WEIGHT = 0.3


@dataclass
class LLMRecord:
    """The `llm` object of an answer: what ran, what it cost, what was dropped or went wrong."""

    model: str
    stages: list[str]  # requested
    ran: list[str] = field(default_factory=list)  # stages whose result was used
    meter: Meter = field(default_factory=Meter)
    dropped: dict[str, list[str]] = field(default_factory=dict)  # stage → names not in the index
    warnings: list[str] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    def drop(self, stage: str, names: Sequence[str]) -> None:
        got = self.dropped.setdefault(stage, []) if names else None
        for name in names:
            if name not in got:  # each distinct name once per question
                got.append(name)

    def to_dict(self) -> dict:
        out = {"model": self.model, "stages": self.stages, "ran": self.ran}
        out.update(self.meter.to_dict())
        out["tokens"] = self.meter.prompt_tokens + self.meter.completion_tokens
        out["dropped"] = self.dropped
        out["dropped_count"] = sum(len(v) for v in self.dropped.values())
        out["warnings"] = self.warnings
        out["details"] = self.details
        return out


class LLMStages:
    """The linker hook: one per session, shared by its questions (thread-safe client)."""

    def __init__(self, options: LLMOptions, renderer, client: ChatClient | None = None):
        self.options = options
        self.renderer = renderer
        self.index = renderer.index
        self.client = client or ChatClient(options.config)
        self._logprobs: bool | None = None  # learnt from the first reranking answer
        self._lock = threading.Lock()

    @property
    def run_meter(self) -> Meter:
        return self.client.run

    def summary(self) -> str:
        m = self.client.run
        cost = f", cost {m.cost:.4f}" if m.cost is not None else ""
        return (f"llm {self.options.config.model} ({', '.join(self.options.stages) or 'no stages'}): "
                f"{m.requests} request(s), {m.cached} cached, {m.failures} failed, "
                f"{m.prompt_tokens + m.completion_tokens:,} tokens ({m.prompt_tokens:,} prompt){cost}")

    def start(self, linker, question: str, hint: str | None, ev) -> "QuestionRun":
        run = QuestionRun(self, linker, question, hint, ev)
        if "hallucinate" in self.options.stages:
            run.guard("hallucinate", run.hallucinate)
        return run

    def close(self) -> None:
        self.client.close()


class QuestionRun:
    def __init__(self, stages: LLMStages, linker, question: str, hint: str | None, ev):
        self.stages = stages
        self.linker = linker
        self.index = linker.index
        self.question = question
        self.hint = hint
        self.ev = ev
        opts = stages.options
        self.record = LLMRecord(opts.config.model, list(opts.stages))
        self.reasons: dict[int, list[str]] = {}

    # -- plumbing ---------------------------------------------------------------------------
    def guard(self, stage: str, fn, *args):
        """Run one stage; any failure becomes a warning and the offline result stands."""
        try:
            return fn(*args)
        except LLMError as exc:
            self.warn(stage, str(exc))
        except AnswerFormatError as exc:
            self.warn(stage, f"malformed answer ({exc})")
        except Exception as exc:  # noqa: BLE001 - a stage must never break the offline answer
            self.warn(stage, f"internal error {exc.__class__.__name__}: {exc}")
        return None

    def warn(self, stage: str, message: str) -> None:
        text = prompts.one_line(f"llm {stage} skipped, offline result kept: {message}", 300)
        if text not in self.record.warnings:
            self.record.warnings.append(text)

    def _chat(self, request: ChatRequest) -> ChatResponse:
        return self.stages.client.chat(request, self.record.meter)

    def _reason(self, column: int, text: str) -> None:
        got = self.reasons.setdefault(int(column), [])
        if text not in got:
            got.append(text)

    # -- CRUSH4SQL ---------------------------------------------------------------------------
    def hallucinate(self) -> None:
        resp = self._chat(ChatRequest(prompts.hallucinate_messages(self.question, self.hint),
                                      max_tokens=HALLUCINATE_MAX_TOKENS, answer_prefix=prompts.JSON_ANSWER_PREFIX,
                                      stop=prompts.JSON_ANSWER_STOP))
        elements = schema_elements(resp.text)[:MAX_PROBES]
        self.record.details["hallucinated"] = [f"{t}.{c}" for t, c in elements]
        sims = self._probe(elements)  # (probes × columns)
        budget = max(1, int(self.linker.settings.max_columns))
        chosen, coverage = collective_select(sims, budget, self._connected)
        if not chosen:
            raise AnswerFormatError("no proposed element matches any column")
        ev, idx = self.ev, self.index
        top = max(coverage.values())
        rel_bonus: dict[int, float] = {}
        for c, value in coverage.items():
            share = value / top if top > 0 else 0.0
            ev.col[c] += HALLUCINATE_COL_WEIGHT * share
            if ev.loc is not None:
                ev.loc[c] += HALLUCINATE_LOC_WEIGHT * share
            r = int(idx.col_relation[c])
            rel_bonus[r] = max(rel_bonus.get(r, 0.0), share)
            self._reason(c, "llm schema probe")
        for r, share in rel_bonus.items():
            ev.rel[r] += HALLUCINATE_REL_WEIGHT * share
            if ev.rel_loc is not None:
                ev.rel_loc[r] += HALLUCINATE_LOC_WEIGHT * share
        corpus = idx.corpus
        self.record.details["probe_columns"] = [
            f"{corpus.relations[corpus.columns[c].relation].identifier}.{corpus.columns[c].name}" for c in chosen]
        self.record.ran.append("hallucinate")

    def _probe(self, elements: list[tuple[str, str]]) -> np.ndarray:
        idx, linker = self.index, self.linker
        texts = [f"{identifier_words(t)} {identifier_words(c)}" for t, c in elements]
        n = len(idx.corpus.columns)
        sims = np.zeros((len(texts), n), np.float32)
        vecs = linker.embed_questions(texts)
        if vecs is not None:
            sims += np.asarray(vecs @ np.asarray(idx.col_vectors).T, dtype=np.float32)
        for i, text in enumerate(texts):
            qterms = question_terms(text)
            bm = idx.col_lex.score(qterms)
            best = float(bm.max()) if len(bm) else 0.0
            if best > 0:
                sims[i] += PROBE_W_LEX * (bm / best)
            name_cov, _ = linker.name_index.coverage(qterms)
            sims[i] += PROBE_W_NAME * name_cov
        allowed = np.isfinite(self.ev.col)
        sims[:, ~allowed] = -np.inf
        return sims

    def _connected(self, a: int, b: int) -> bool:
        idx = self.index
        ra, rb = int(idx.col_relation[a]), int(idx.col_relation[b])
        return ra == rb or any(adj.node == rb for adj in idx.graph.neighbours(ra))

    # -- MDB-Link ----------------------------------------------------------------------------
    def rerank(self, candidates: list) -> list:
        if "rerank" not in self.stages.options.stages or len(candidates) < 2:
            return candidates
        out = self.guard("rerank", self._rerank, candidates)
        return out if out is not None else candidates

    def _rerank(self, candidates: list) -> list:
        opts = self.stages.options
        schemas = [prompts.group_schema(self.stages.renderer, c.group, self.ev.col, prompts.RERANK_SCHEMA_BUDGET)
                   for c in candidates]
        messages = [prompts.rerank_messages(s, self.question, self.hint) for s in schemas]
        scores: list[float | None] = [None] * len(candidates)
        methods = ["logprobs"] * len(candidates)
        if self.stages._logprobs is not False:
            reqs = [ChatRequest(m, max_tokens=RERANK_MAX_TOKENS, logprobs=True, top_logprobs=opts.top_logprobs)
                    for m in messages]
            for i, res in enumerate(self.stages.client.chat_many(reqs, self.record.meter)):
                if isinstance(res, LLMError):
                    raise res
                scores[i] = p_yes_from_logprobs(res.choices[0])
                if res.choices[0].logprobs is None:
                    with self.stages._lock:
                        self.stages._logprobs = False
                elif scores[i] is not None:
                    with self.stages._lock:
                        self.stages._logprobs = True
        missing = [i for i, s in enumerate(scores) if s is None]
        for i, share in zip(missing, self._sample_yes([messages[i] for i in missing])):
            scores[i] = share
            methods[i] = "sampling"
        self.record.details["rerank"] = [
            {"group": c.key, "p_yes": round(float(s), 4), "method": m, "offline_rank": i + 1}
            for i, (c, s, m) in enumerate(zip(candidates, scores, methods))]
        order = sorted(range(len(candidates)), key=lambda i: (-float(scores[i]), i))
        self.record.ran.append("rerank")
        return [candidates[i] for i in order]

    def _sample_yes(self, messages: list) -> list[float]:
        """Share of "yes" among sampled answers per prompt: one request with n samples, topped
        up with seeded single requests when the endpoint returns fewer choices than asked."""
        if not messages:
            return []
        k = self.stages.options.samples
        first = [ChatRequest(m, max_tokens=RERANK_MAX_TOKENS, temperature=SAMPLE_TEMPERATURE, n=k) for m in messages]
        answers: list[list[bool | None]] = []
        for res in self.stages.client.chat_many(first, self.record.meter):
            if isinstance(res, LLMError):
                raise res
            answers.append([yes_no(ch.text) for ch in res.choices])
        extra: list[tuple[int, ChatRequest]] = []
        for i, got in enumerate(answers):
            for seed in range(len(got), k):
                extra.append((i, ChatRequest(messages[i], max_tokens=RERANK_MAX_TOKENS,
                                             temperature=SAMPLE_TEMPERATURE, seed=seed)))
        if extra:
            for (i, _), res in zip(extra, self.stages.client.chat_many([r for _, r in extra], self.record.meter)):
                if isinstance(res, LLMError):
                    raise res
                answers[i].append(yes_no(res.text))
        out = []
        for got in answers:
            valid = [a for a in got if a is not None]
            if not valid:
                raise AnswerFormatError("no sampled answer was yes or no")
            out.append(sum(valid) / len(valid))
        return out

    # -- RSL-SQL -----------------------------------------------------------------------------
    def select(self, group: int) -> Selection | None:
        if "bidirectional" not in self.stages.options.stages:
            return None
        return self.guard("bidirectional", self._bidirectional, group)

    def _bidirectional(self, group: int):
        idx, ev = self.index, self.ev
        renderer = self.stages.renderer
        schema = prompts.group_schema(renderer, group, ev.col, prompts.LINK_SCHEMA_BUDGET)
        resolver = NameResolver(idx, [group])
        reqs = [ChatRequest(prompts.forward_messages(schema, self.question, self.hint), max_tokens=FORWARD_MAX_TOKENS,
                            answer_prefix=prompts.JSON_ANSWER_PREFIX, stop=prompts.JSON_ANSWER_STOP),
                ChatRequest(prompts.backward_messages(schema, self.question, self.hint, renderer.dialect),
                            max_tokens=BACKWARD_MAX_TOKENS, answer_prefix=prompts.SQL_ANSWER_PREFIX,
                            stop=prompts.SQL_ANSWER_STOP)]
        fwd_res, bwd_res = self.stages.client.chat_many(reqs, self.record.meter)
        forward = self._read("forward", fwd_res, lambda text: resolver.resolve(answer_names(text)))
        dialect = _sqlglot_dialect(renderer.dialect)
        backward = self._read("backward", bwd_res, lambda text: sql_columns(text, resolver, dialect))
        if forward is None and backward is None:
            return None
        picks: list[int] = []
        terminals: list[int] = []
        for part, label in ((forward, "llm forward"), (backward, "llm backward (sql)")):
            if part is None:
                continue
            for c in part.columns:
                self._reason(c, label)
                if c not in picks:
                    picks.append(c)
                r = int(idx.col_relation[c])
                if r not in terminals:
                    terminals.append(r)
            for r in part.relations:
                if r not in terminals:
                    terminals.append(r)
        corpus = idx.corpus
        self.record.details["forward"] = [self._name(c) for c in forward.columns] if forward else None
        self.record.details["backward"] = [self._name(c) for c in backward.columns] if backward else None
        if not terminals:
            self.warn("bidirectional", "the model named nothing that exists in the schema")
            return None
        chosen, tree, unjoined = self.linker.complete_joins(ev, group, terminals)
        columns = self.linker.join_keys(chosen, tree)
        for c in picks:
            r = int(idx.col_relation[c])
            if c not in columns[r]:
                columns[r].append(c)
        for r in terminals:  # a table named without any column: its best column by evidence
            rd = corpus.relations[r]
            if not any(c in picks for c in range(rd.col_start, rd.col_end)):
                own = [c for c in range(rd.col_start, rd.col_end) if c not in columns[r]]
                if own:
                    columns[r].append(max(own, key=lambda c: float(ev.col[c])))
        self.record.ran.append("bidirectional")
        return Selection(terminals, chosen, columns, tree, unjoined)

    def _read(self, part: str, res, parse) -> Resolved | None:
        if isinstance(res, LLMError):
            self.warn(f"bidirectional {part}", str(res))
            return None
        try:
            got = parse(res.text)
        except AnswerFormatError as exc:
            self.warn(f"bidirectional {part}", f"malformed answer ({exc})")
            return None
        self.record.drop(part, got.dropped)
        if part == "backward":
            self.record.details["sql"] = prompts.one_line(res.text, 1000)
        return got

    def _name(self, c: int) -> str:
        corpus = self.index.corpus
        return f"{corpus.relations[corpus.columns[c].relation].identifier}.{corpus.columns[c].name}"

    # -- the answer --------------------------------------------------------------------------
    def finish(self, answer) -> None:
        for rel in answer.relations:
            for col in rel.columns:
                for reason in self.reasons.get(col.column, ()):
                    if reason not in col.reasons:
                        col.reasons.append(reason)
        answer.llm = self.record


def collective_select(sims: np.ndarray, budget: int, connected) -> tuple[list[int], dict[int, float]]:
    """Greedy maximisation of Σ_p w_p · max_{c∈S} sim(p, c) + CONNECT_BONUS · |{c ∈ S joined to
    an earlier pick}| under |S| ≤ budget, over each probe's PROBE_TOP_K columns. w_p is the
    probe's confidence: its best similarity (clipped to [0, 1]). Returns the picks in order and
    each pick's weighted coverage (its largest w_p · sim over probes)."""
    if sims.size == 0:
        return [], {}
    n_probes = sims.shape[0]
    finite = np.where(np.isfinite(sims), sims, -1.0)
    cand: set[int] = set()
    for p in range(n_probes):
        k = min(PROBE_TOP_K, finite.shape[1])
        top = np.argpartition(-finite[p], k - 1)[:k]
        cand.update(int(c) for c in top if finite[p, c] > 0)
    weight = np.clip(finite.max(axis=1), 0.0, 1.0)
    covered = np.zeros(n_probes, np.float64)
    chosen: list[int] = []
    coverage: dict[int, float] = {}
    pool = sorted(cand)
    while pool and len(chosen) < budget:
        best, best_gain = None, MIN_GAIN
        for c in pool:
            s = np.clip(finite[:, c], 0.0, None)
            gain = float(np.sum(weight * np.maximum(0.0, s - covered)))
            if gain <= MIN_GAIN:
                continue  # connecting alone does not earn a place: it must cover some probe better
            if chosen and any(connected(c, o) for o in chosen):
                gain += CONNECT_BONUS
            if gain > best_gain:
                best, best_gain = c, gain
        if best is None:
            break
        s = np.clip(finite[:, best], 0.0, None)
        covered = np.maximum(covered, s)
        chosen.append(best)
        coverage[best] = float(np.max(weight * s))
        pool.remove(best)
    return chosen, coverage


def _sqlglot_dialect(adapter: str | None) -> str | None:
    name = (adapter or "").lower()
    known = {"duckdb": "duckdb", "postgres": "postgres", "redshift": "redshift", "snowflake": "snowflake",
             "bigquery": "bigquery", "databricks": "databricks", "spark": "spark", "trino": "trino",
             "sqlite": "sqlite", "mysql": "mysql", "sqlserver": "tsql", "fabric": "tsql", "oracle": "oracle",
             "clickhouse": "clickhouse", "athena": "athena"}
    return known.get(name)


def attach(session, options: LLMOptions | None, cache_dir: str | Path | None = None):
    """A session sharing `session`'s index, model and renderer whose linker runs the selected
    stages (the same session when no stage is selected). Responses are cached in `cache_dir`,
    by default target/schema_link/llm_cache/ beside the session's index."""
    if options is None or not options.stages:
        return session
    if cache_dir is None and session.index_dir is not None:
        cache_dir = Path(session.index_dir).parent / CACHE_DIR_NAME
    if options.cache and options.config.cache_dir is None and cache_dir is not None:
        options = dataclasses.replace(options, config=dataclasses.replace(options.config, cache_dir=Path(cache_dir)))
    return session.with_hook(LLMStages(options, session.renderer))
