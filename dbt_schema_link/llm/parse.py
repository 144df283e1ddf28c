"""Strict reading of model answers. A name the model gives is kept only if it resolves to a
relation/column of the index (within the group being linked); everything else is dropped and
reported. Nothing the model writes is ever executed or echoed unbounded."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from dbt_schema_link.llm.client import Choice

#: Characters of a dropped name kept in the report.
DROPPED_NAME_CHARS = 80
#: Names read from one answer at most (a runaway answer cannot flood the linker).
MAX_NAMES = 200

_FENCE_RE = re.compile(r"```(?:[A-Za-z0-9_+-]*)\s*\n?(.*?)```", re.DOTALL)
_QUALIFIED_RE = re.compile(r"^[`\"\[]?([^`\"\[\].\s]+)[`\"\]]?\.[`\"\[]?([^`\"\[\].\s]+)[`\"\]]?$")
_WORD_RE = re.compile(r"[A-Za-z]+")


class AnswerFormatError(ValueError):
    """The model's answer does not have the shape the prompt asked for."""


def _clip(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= DROPPED_NAME_CHARS else text[: DROPPED_NAME_CHARS - 1] + "…"


def strip_fences(text: str) -> str:
    m = _FENCE_RE.search(text or "")
    return m.group(1).strip() if m else (text or "").strip()


def json_payload(text: str):
    """The JSON value of an answer (code fences allowed; else the outermost {...} or [...])."""
    body = strip_fences(text)
    try:
        return json.loads(body)
    except ValueError:
        pass
    for open_, close in (("{", "}"), ("[", "]")):
        a, b = body.find(open_), body.rfind(close)
        if a != -1 and b > a:
            try:
                return json.loads(body[a:b + 1])
            except ValueError:
                continue
    raise AnswerFormatError("the answer is not JSON")


def name_list(value) -> list[str]:
    """Strings from a JSON list, or from {"columns": [...]} / {"tables": [...]} objects."""
    out: list[str] = []
    if isinstance(value, dict):
        for key in ("columns", "tables", "schema", "elements"):
            if key in value:
                out += name_list(value[key])
        return out[:MAX_NAMES]
    if isinstance(value, list):
        for item in value[:MAX_NAMES]:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                table = item.get("table") or item.get("name")
                cols = item.get("columns")
                if isinstance(table, str) and isinstance(cols, list):
                    out += [f"{table}.{c}" for c in cols if isinstance(c, str)]
                elif isinstance(table, str):
                    out.append(table)
        return out[:MAX_NAMES]
    raise AnswerFormatError("the answer is not a list of names")


_QUOTED_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
#: Keys of the answer objects the prompts ask for: never names.
_ANSWER_KEYS = frozenset({"columns", "tables", "schema", "elements", "table", "name"})


def answer_names(text: str) -> list[str]:
    """Names from an answer that should be JSON: the JSON when it parses; otherwise the quoted
    strings of a cut-off or malformed answer (`{"columns": ["a.b", "c.d` → a.b), so a real model's
    partial output still counts for what it completed. Raises when neither gives a name."""
    try:
        return name_list(json_payload(text))
    except AnswerFormatError:
        pass
    names = [m.group(1) for m in _QUOTED_RE.finditer(strip_fences(text))]
    names = [n for n in names if n.strip() and n.strip().lower() not in _ANSWER_KEYS and len(n) <= 200]
    if not names:
        raise AnswerFormatError("the answer is neither JSON nor a list of quoted names")
    return names[:MAX_NAMES]


def split_name(name: str) -> tuple[str | None, str]:
    """'table.column' → (table, column); 'name' → (None, name); quotes/backticks removed.
    A longer dotted path keeps its last two parts (schema.table.column)."""
    name = name.strip().strip(",;")
    parts = [p.strip().strip('`"[]') for p in name.split(".")]
    parts = [p for p in parts if p]
    if not parts:
        return None, ""
    if len(parts) == 1:
        return None, parts[0]
    return parts[-2], parts[-1]


@dataclass
class Resolved:
    columns: list[int] = field(default_factory=list)  # column ids, first mention first
    relations: list[int] = field(default_factory=list)  # relations named without a column
    dropped: list[str] = field(default_factory=list)


class NameResolver:
    """Looks names up among the relations of some groups (case-insensitive): a relation by its
    warehouse identifier, dbt name or short name; a column by name within it."""

    def __init__(self, index, groups: Iterable[int] | None = None):
        corpus = index.corpus
        wanted = None if groups is None else set(int(g) for g in groups)
        self.rel_by_name: dict[str, list[int]] = {}
        self.col_by_name: dict[str, list[int]] = {}
        self.cols_of: dict[int, dict[str, int]] = {}
        for r, rd in enumerate(corpus.relations):
            if wanted is not None and rd.group not in wanted:
                continue
            for n in {rd.identifier.lower(), rd.name.lower(), rd.short_name.lower()}:
                self.rel_by_name.setdefault(n, []).append(r)
            cols = {}
            for c in range(rd.col_start, rd.col_end):
                low = corpus.columns[c].name.lower()
                cols.setdefault(low, c)
                self.col_by_name.setdefault(low, []).append(c)
            self.cols_of[r] = cols

    def relations(self, name: str) -> list[int]:
        return self.rel_by_name.get(name.strip().strip('`"[]').lower(), [])

    def column(self, relation: int, name: str) -> int | None:
        return self.cols_of.get(relation, {}).get(name.lower())

    def resolve(self, names: Sequence[str], allow_tables: bool = True) -> Resolved:
        out = Resolved()
        for raw in names[:MAX_NAMES]:
            table, col = split_name(raw)
            hits: list[int] = []
            if table is not None:
                rels = self.relations(table)
                hits = [c for r in rels if (c := self.column(r, col)) is not None]
            else:
                if allow_tables and self.relations(col):
                    for r in self.relations(col):
                        if r not in out.relations:
                            out.relations.append(r)
                    continue
                cands = self.col_by_name.get(col.lower(), [])
                hits = cands if len(cands) == 1 else []  # an unqualified name must be unambiguous
            if not hits:
                if raw.strip():
                    out.dropped.append(_clip(raw))
                continue
            for c in hits:
                if c not in out.columns:
                    out.columns.append(c)
        return out


# ----------------------------------------------------------------------------------------------
# hallucinated schema


def schema_elements(text: str) -> list[tuple[str, str]]:
    """(table, column) pairs from a hallucinated schema: JSON ({"tables": [{"table", "columns"}]},
    a list of "table.column"), or one "table.column" / "table(col, col)" per line."""
    try:
        names = answer_names(text)
    except AnswerFormatError:
        names = []
        for line in strip_fences(text).splitlines():
            line = line.strip().lstrip("-*• ").strip()
            m = re.match(r"^([A-Za-z_][\w$]*)\s*\(([^)]*)\)\s*$", line)
            if m:
                names += [f"{m.group(1)}.{c.strip().split()[0]}" for c in m.group(2).split(",") if c.strip()]
            elif _QUALIFIED_RE.match(line):
                names.append(line)
    out: list[tuple[str, str]] = []
    for n in names[:MAX_NAMES]:
        table, col = split_name(n)
        if table and col and re.fullmatch(r"[\w$]+", table) and re.fullmatch(r"[\w$]+", col):
            if (table, col) not in out:
                out.append((table, col))
    if not out:
        raise AnswerFormatError("the answer names no table.column elements")
    return out


# ----------------------------------------------------------------------------------------------
# yes / no


def yes_no(token: str) -> bool | None:
    words = _WORD_RE.findall(token.lower())
    if not words:
        return None
    if words[0] in ("yes", "y", "true"):
        return True
    if words[0] in ("no", "n", "false"):
        return False
    return None


def p_yes_from_logprobs(choice: Choice) -> float | None:
    """Normalised probability of "yes" at the first answer token: P(yes) / (P(yes) + P(no)) over
    its top alternatives. None when there are no log-probabilities or neither word is among them."""
    if not choice.logprobs:
        return None
    for tok in choice.logprobs:
        if not tok.token.strip():
            continue  # leading whitespace token
        alts = list(tok.top) or [(tok.token, tok.logprob)]
        if not any(t == tok.token for t, _ in alts):
            alts.append((tok.token, tok.logprob))
        p_yes = sum(math.exp(lp) for t, lp in alts if yes_no(t) is True)
        p_no = sum(math.exp(lp) for t, lp in alts if yes_no(t) is False)
        if p_yes + p_no <= 0:
            return None
        return p_yes / (p_yes + p_no)
    return None


# ----------------------------------------------------------------------------------------------
# SQL drafts


def sql_columns(sql: str, resolver: NameResolver, dialect: str | None = None) -> Resolved:
    """Every column a drafted query uses that exists in the index: qualified names through their
    table or alias, unqualified ones through the tables in the query (unambiguous only)."""
    import sqlglot
    from sqlglot import exp

    text = strip_fences(sql).strip().rstrip(";")
    if not text:
        raise AnswerFormatError("the answer has no SQL")
    try:
        trees = [t for t in sqlglot.parse(text, read=dialect) if t is not None]
    except Exception:  # noqa: BLE001 - sqlglot raises several error types; any means unreadable
        try:
            trees = [t for t in sqlglot.parse(text) if t is not None]
        except Exception:  # noqa: BLE001
            raise AnswerFormatError("the SQL does not parse") from None
    if not trees:
        raise AnswerFormatError("the answer has no SQL")
    out = Resolved()
    for tree in trees:
        alias: dict[str, list[int]] = {}
        derived: set[str] = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        derived |= {q.alias.lower() for q in tree.find_all(exp.Subquery) if q.alias}
        in_query: list[int] = []
        for t in tree.find_all(exp.Table):
            rels = resolver.relations(t.name)
            if not rels:
                if t.name.lower() in derived:
                    if t.alias:
                        derived.add(t.alias.lower())  # columns read from a CTE are its own outputs
                elif t.name:
                    out.dropped.append(_clip(t.name))
                continue
            in_query += [r for r in rels if r not in in_query]
            alias.setdefault(t.name.lower(), rels)
            if t.alias:
                alias[t.alias.lower()] = rels
        for r in in_query:
            if r not in out.relations:
                out.relations.append(r)
        output_aliases = {a.alias.lower() for a in tree.find_all(exp.Alias) if a.alias}
        for col in tree.find_all(exp.Column):
            name = col.name
            if not name or name == "*":
                continue
            q = col.table.lower() if col.table else None
            if q in derived:
                continue
            reads_derived = False
            if q:
                rels = alias.get(q, resolver.relations(q))
            else:  # the tables of its own SELECT
                scope = col.find_ancestor(exp.Select)
                own = [t for t in (scope.find_all(exp.Table) if scope else ()) if t.find_ancestor(exp.Select) is scope]
                rels = [r for t in own for r in resolver.relations(t.name)] if own else in_query
                reads_derived = any(t.name.lower() in derived for t in own)
            hits = [c for r in rels if (c := resolver.column(r, name)) is not None]
            if not q and len(hits) > 1:
                hits = []  # ambiguous without a qualifier
            if not hits:
                if reads_derived:
                    continue  # most likely an output of the CTE / subquery it reads
                if not (not q and name.lower() in output_aliases):
                    out.dropped.append(_clip(f"{col.table}.{name}" if q else name))
                continue
            for c in hits:
                if c not in out.columns:
                    out.columns.append(c)
    return out
