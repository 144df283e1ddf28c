"""Budget-aware rendering of the linked schema as LLM-ready context.

The budget covers the whole prompt: template + question + hint + schema. If the localized group's
whole schema fits, it is rendered whole; otherwise the best column of every selected model and
every key on the join path are kept, and the rest is filled by score (linked columns first, then
the group's other columns) while it fits. The text is line-based and the token estimate is
additive over lines, so each candidate line is costed once. A join `write` wrote says so only with
the tokens left over: what fits is the same before and after the tests are written.

Markdown output is compact DDL-like text:

    TABLE "shop"."main"."fct_orders" -- model fct_orders: One row per order.
      order_id INTEGER PK -- the order's id
      customer_id INTEGER FK -> dim_customers.customer_id
      status VARCHAR -- order status; e.g. 'placed', 'shipped'
    JOIN fct_orders.customer_id = dim_customers.customer_id
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.linker.answer import Answer, JoinPick
from dbt_schema_link.linker.ranking import best_first
from dbt_schema_link.linker.store import LinkIndex
from dbt_schema_link.linker.tokens import count_line, count_tokens

DEFAULT_TEMPLATE = """Answer the question with one SQL query over the schema below ({dialect}).
{schema}
Question: {question}
Hint: {hint}"""
DEFAULT_BUDGET = 2048
DESCRIPTION_CHARS = 160
SAMPLE_VALUES = 3
#: No column line costs less: its name (one token at least) and the newline.
MIN_LINE_TOKENS = 2
#: The join sentence `write` puts in a column's YAML ("Joins to `stg_orders.order_id` (many-to-one).",
#: "... Joins to `stg_orders.order_id`." in a draft): the FK marker says it on the same line.
_JOIN_SENTENCE = re.compile(r"\s*Joins to `([^`]+)`(?: \([^)]*\))?\.")


@dataclass
class Rendered:
    text: str
    tokens: int
    mode: str  # "full" | "linked"


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _described_parents(description: str) -> set[str]:
    """``relation.column`` of each join sentence in a description, lower-cased."""
    return {m.group(1).lower() for m in _JOIN_SENTENCE.finditer(description or "")}


class Renderer:
    def __init__(self, index: LinkIndex, template: str = DEFAULT_TEMPLATE, dialect: str = "SQL"):
        for field in ("{schema}", "{question}"):
            if field not in template:
                raise SchemaLinkError(f"the prompt template must contain {field}: e.g. {DEFAULT_TEMPLATE!r}")
        self.index = index
        self.template = template
        self.dialect = dialect
        self._fk: dict[int, tuple[int, str]] = {}
        # Lines and their token costs, computed once per column / relation: a large group is
        # costed for every question (does the whole schema fit? which columns fill the rest?).
        self._col_cost: dict[int, int] = {}
        self._rel_cost: dict[int, int] = {}
        superseded = np.fromiter((r.superseded for r in index.corpus.relations), dtype=bool,
                                 count=len(index.corpus.relations))
        self._superseded_col = superseded[index.col_relation] if len(index.col_relation) else np.zeros(0, bool)
        corpus = index.corpus
        ranked: dict[int, tuple[float, bool]] = {}
        for e in corpus.edges:
            if e.contradicted is not None:
                continue  # not a link (the answer's JOIN line says what it is when one is used)
            # Among equally confident parents (a join and the same join to a pass-through copy of
            # its parent) the one the column's own description names wins, so that the line's FK
            # and the project's docs name one parent.
            parent = corpus.columns[e.parent]
            rel = corpus.relations[parent.relation]
            named = {f"{n}.{parent.name}".lower() for n in (rel.short_name, rel.name)}
            rank = (e.confidence, bool(named & _described_parents(corpus.columns[e.child].description)))
            if e.child not in ranked or rank > ranked[e.child]:
                ranked[e.child] = rank
                self._fk[e.child] = (e.parent, f"{rel.identifier}.{parent.name}")

    # lines ---------------------------------------------------------------------------------
    def header(self, r: int) -> str:
        rd = self.index.corpus.relations[r]
        # Warehouse text is data: every piece is forced onto this one line, so a description or
        # value cannot start a line of its own (no fake "Question:" or instructions).
        line = f"TABLE {_one_line(rd.relation_name, 400)} -- {rd.resource_type} {_one_line(rd.name, 200)}"
        if rd.aliases:  # a package's source over this table: the name its models use
            line += f" (also {_one_line(', '.join(rd.aliases), 200)})"
        if rd.shards:  # one relation family: the same columns in every shard
            kind = "dated shards" if rd.shard_dated else "shards"
            line += (f" (family {_one_line(rd.short_name, 200)}: {rd.shards} {kind} with these columns, "
                     f"{_one_line(rd.shard_first, 200)} … {_one_line(rd.shard_last, 200)})")
        if rd.description:
            line += f": {_one_line(rd.description, DESCRIPTION_CHARS)}"
        return line

    def column_line(self, c: int) -> str:
        cd = self.index.corpus.columns[c]
        parts = [f"  {_one_line(cd.name, 200)}"]
        if cd.data_type:
            parts.append(_one_line(cd.data_type, 80))
        if cd.is_pk:
            parts.append("PK")
        fk = self._fk.get(c)
        if fk:
            parts.append(f"FK -> {fk[1]}")
        line = " ".join(parts)
        notes = []
        description = _JOIN_SENTENCE.sub("", cd.description).strip() if fk else cd.description
        if description:
            notes.append(_one_line(description, DESCRIPTION_CHARS))
        if cd.values:
            notes.append("e.g. " + ", ".join(repr(_one_line(v, 30)) for v in cd.values[:SAMPLE_VALUES]))
        if notes:
            line += " -- " + "; ".join(notes)
        return line

    def column_cost(self, c: int) -> int:
        """Tokens of a column's line plus its newline."""
        cost = self._col_cost.get(c)
        if cost is None:
            cost = self._col_cost[c] = count_line(self.column_line(c)) + 1
        return cost

    def header_cost(self, r: int) -> int:
        cost = self._rel_cost.get(r)
        if cost is None:
            cost = self._rel_cost[r] = count_line(self.header(r)) + 1
        return cost

    def _best_columns(self, groups: list[int], col_scores: np.ndarray, limit: int) -> list[int]:
        """The columns of the answer's units outside superseded layers, best score first (ties in
        column order), cut to the `limit` best: no more lines than that can fit the budget left."""
        cols = np.flatnonzero(np.isin(self.index.col_group, groups) & ~self._superseded_col)
        return best_first(cols, np.asarray(col_scores)[cols], limit)

    def _columns_of(self, r: int) -> range:
        rd = self.index.corpus.relations[r]
        return range(rd.col_start, rd.col_end)

    def _frame(self, question: str, hint: str | None, dialect: str) -> tuple[list[str], int, int]:
        """Template lines with the schema slot; its token cost without the schema."""
        filled = self.template.replace("{dialect}", dialect).replace("{question}", " ".join(question.split()))
        lines = filled.split("\n")
        out = []
        for line in lines:
            if "{hint}" in line:
                if not hint:
                    continue
                line = line.replace("{hint}", " ".join(hint.split()))
            out.append(line)
        slot = next(i for i, line in enumerate(out) if "{schema}" in line)
        cost = sum(count_line(line.replace("{schema}", "")) for line in out) + len(out) - 1
        return out, slot, cost

    def _assemble(self, frame: list[str], slot: int, body: list[str]) -> str:
        line = frame[slot]
        before, after = line.split("{schema}", 1)
        schema = "\n".join(body)
        middle = (before + schema + after) if body else (before + after)
        return "\n".join(frame[:slot] + [middle] + frame[slot + 1:])

    @staticmethod
    def _tree_order(answer: Answer) -> list:
        """Selected models in breadth-first order over the join path from the best one, so any
        prefix that fits the budget is connected (bridges come before what they connect)."""
        rank = {p.unique_id: i for i, p in enumerate(answer.relations)}
        by_uid = {p.unique_id: p for p in answer.relations}
        adj: dict[str, set[str]] = {}
        for j in answer.joins:
            adj.setdefault(j.child_uid, set()).add(j.parent_uid)
            adj.setdefault(j.parent_uid, set()).add(j.child_uid)
        out: list = []
        seen: set[str] = set()
        for start in answer.relations:
            if start.unique_id in seen:
                continue
            queue = [start.unique_id]
            seen.add(start.unique_id)
            while queue:
                uid = queue.pop(0)
                out.append(by_uid[uid])
                for nxt in sorted(adj.get(uid, ()), key=lambda u: rank.get(u, 1 << 30)):
                    if nxt not in seen and nxt in by_uid:
                        seen.add(nxt)
                        queue.append(nxt)
        return out

    @staticmethod
    def _noted(joins: list[JoinPick], room: int | None) -> list[str]:
        """The join lines, each with its written note while the `room` left allows (None: no limit)."""
        lines = []
        for j in joins:
            line, noted = j.line(written_note=False), j.line()
            extra = count_line(noted) - count_line(line)
            if noted != line and (room is None or extra <= room):
                line = noted
                if room is not None:
                    room -= extra
            lines.append(line)
        return lines

    # render ---------------------------------------------------------------------------------
    def render(self, answer: Answer, budget: int | None = DEFAULT_BUDGET, col_scores: np.ndarray | None = None) -> Rendered:
        idx = self.index
        corpus = idx.corpus
        group = answer.group
        dialect = self.dialect
        frame, slot, fixed = self._frame(answer.question, answer.hint, dialect)
        if budget is not None and fixed > budget:
            raise SchemaLinkError(f"a budget of {budget} tokens cannot hold the prompt template and question "
                                  f"({fixed} tokens): raise the budget", option="budget")
        if group is None:
            text = self._assemble(frame, slot, [])
            return Rendered(text, count_tokens(text), "linked")
        # The budget is planned on the joins without their written notes, which are added after
        # where room is left: the tests `write` generates never change which columns fit.
        join_lines = [j.line(written_note=False) for j in answer.joins]
        units = [group.group] + [c.group for c in answer.spans]
        group_rels = [int(r) for r in np.flatnonzero(np.isin(idx.rel_group, units))]
        # Whole group schema, if it fits (costed line by line, stopping once it cannot).
        full_cost = fixed + sum(count_line(line) + 1 for line in join_lines)
        for r in group_rels:
            if budget is not None and full_cost > budget:
                break
            full_cost += self.header_cost(r) + sum(self.column_cost(c) for c in self._columns_of(r))
        if budget is None or full_cost <= budget:
            full_body: list[str] = []
            for r in group_rels:
                full_body.append(self.header(r))
                full_body.extend(self.column_line(c) for c in self._columns_of(r))
            full_body.extend(self._noted(answer.joins, None if budget is None else budget - full_cost))
            text = self._assemble(frame, slot, full_body)
            return Rendered(text, count_tokens(text), "full")
        # Linked subset: each selected model with its join keys and best column (in rank order,
        # with the join lines that connect it to models already in), then fill by score.
        order = [p.relation for p in answer.relations]
        chosen_cols: dict[int, list[int]] = {}
        joins_in: list[JoinPick] = []
        used = fixed
        for pick in self._tree_order(answer):
            keys = [c.column for c in pick.columns if "join key" in c.reasons]
            others = [c.column for c in pick.columns if "join key" not in c.reasons]
            unit = keys + others[:1]
            new_joins = [j for j in answer.joins if pick.unique_id in (j.child_uid, j.parent_uid)
                         and {j.child_uid, j.parent_uid} - {pick.unique_id} <= {corpus.relations[r].unique_id for r in chosen_cols}]
            cost = self.header_cost(pick.relation) + sum(self.column_cost(c) for c in unit) \
                + sum(count_line(j.line(written_note=False)) + 1 for j in new_joins)
            if used + cost > budget:
                break  # what is left is further from the best model: the rendered part stays connected
            used += cost
            chosen_cols[pick.relation] = list(unit)
            joins_in += new_joins
        fill: list[int] = [c.column for p in answer.relations if p.relation in chosen_cols for c in p.columns]
        fill += [c.column for p in answer.relations if p.relation not in chosen_cols for c in p.columns]
        if col_scores is not None:
            # Filling by score skips superseded layers (raw copies of a model's columns).
            fill += self._best_columns(units, col_scores, (budget - used) // MIN_LINE_TOKENS + 1)
        seen = {c for cols in chosen_cols.values() for c in cols}
        for c in fill:
            if c in seen:
                continue
            seen.add(c)
            r = corpus.columns[c].relation
            if budget - used < MIN_LINE_TOKENS:
                break  # nothing more fits
            cost = self.column_cost(c) + (self.header_cost(r) if r not in chosen_cols else 0)
            if used + cost > budget:
                continue
            used += cost
            chosen_cols.setdefault(r, []).append(c)
        body: list[str] = []
        for r in list(order) + [r for r in chosen_cols if r not in order]:
            if r not in chosen_cols:
                continue
            body.append(self.header(r))
            for c in sorted(chosen_cols[r]):
                body.append(self.column_line(c))
        body.extend(self._noted(joins_in, budget - used))
        text = self._assemble(frame, slot, body)
        return Rendered(text, count_tokens(text), "linked")
