"""Column grounding: which columns of the selected relations the answer shows, within the column
budget (join keys first, then the best column of every terminal, then by score; descriptions and
values count as much as names)."""

from __future__ import annotations

import re

import numpy as np

from dbt_schema_link.linker.evidence import Evidence
from dbt_schema_link.linker.joins import JoinStage
from dbt_schema_link.linker.settings import LinkSettings
from dbt_schema_link.linker.store import LinkIndex

#: Column types and names (dates are often stored as text) that hold a point in time.
_TEMPORAL_TYPE_RE = re.compile(r"date|time", re.IGNORECASE)
_TEMPORAL_NAME_RE = re.compile(r"(^|_)(date|day|time|timestamp|ts)($|_)|_(at|on|dt)$|^(created|updated|ordered|opened)",
                               re.IGNORECASE)


def is_temporal(column) -> bool:
    """A date/time type, or a name that says so (dates are often stored as text)."""
    if column.data_type and _TEMPORAL_TYPE_RE.search(column.data_type):
        return True
    return bool(_TEMPORAL_NAME_RE.search(column.name)) and "bool" not in (column.data_type or "").lower()


class GroundingStage:
    def __init__(self, index: LinkIndex, settings: LinkSettings, joins: JoinStage):
        self.index = index
        self.settings = settings
        self.joins = joins

    def ground(self, ev: Evidence, chosen: list[int], terminals: set[int], tree: list[int]) -> dict[int, list[int]]:
        s, idx = self.settings, self.index
        picked = self.joins.join_keys(chosen, tree)
        if s.count_key and ev.counts and terminals:
            top = max(terminals, key=lambda r: (float(ev.rel_name[r]), float(ev.rel[r])))
            pk = [c for c in range(int(idx.rel_start[top]), int(idx.rel_start[top] + idx.rel_ncols[top])) if idx.col_is_pk[c]]
            if len(pk) == 1 and pk[0] not in picked[top]:
                picked[top].append(pk[0])
        if s.time_key and ev.time_grain and terminals:
            self._add_time_column(ev, terminals, picked)
        n_keys = sum(len(v) for v in picked.values()) if s.keys_in_budget else 0
        # candidate non-key columns of terminal relations, by score (and, for the budget fill
        # only, a bridge's columns that have evidence of their own)
        cands: list[tuple[float, int, int]] = []
        bridged: list[tuple[float, int, int]] = []
        best_overall = -np.inf
        for r in chosen:
            a, b = int(idx.rel_start[r]), int(idx.rel_start[r] + idx.rel_ncols[r])
            for c in range(a, b):
                if c in picked[r]:
                    continue
                sc = float(ev.col[c])
                if r in terminals or ev.value[c] > 0:
                    cands.append((sc, r, c))
                    best_overall = max(best_overall, sc)
                elif s.fill_bridges and self.has_evidence(ev, c):
                    bridged.append((sc, r, c))
        cands.sort(key=lambda t: (-t[0], t[2]))
        floor = best_overall * s.column_ratio if best_overall > 0 else best_overall
        budget = max(0, self.column_budget(len(terminals)) - n_keys)
        per_rel = {r: 0 for r in chosen}
        # 1) the best column of every terminal relation
        for sc, r, c in cands:
            if r in terminals and per_rel[r] == 0 and budget > 0:
                picked[r].append(c)
                per_rel[r] += 1
                budget -= 1
        # 2) fill by score, above the floor; asked who, a person's name comes whole (first and last)
        for sc, r, c in cands:
            if budget <= 0:
                break
            if c in picked[r] or per_rel[r] >= s.per_relation or sc < floor:
                continue
            for part in self._whole(ev, r, c):
                if part not in picked[r] and budget > 0:
                    picked[r].append(part)
                    per_rel[r] += 1
                    budget -= 1
        # 3) the budget left goes to columns with evidence of their own: below the floor, past the
        # per-relation cap (wide tables) and on bridges
        if s.fill_budget:
            for sc, r, c in sorted(cands + bridged, key=lambda t: (-t[0], t[2])):
                if budget <= 0:
                    break
                if c in picked[r] or per_rel[r] >= s.fill_per_relation or not self.has_evidence(ev, c):
                    continue
                picked[r].append(c)
                per_rel[r] += 1
                budget -= 1
        return picked

    def _whole(self, ev: Evidence, r: int, c: int) -> list[int]:
        """`c`, and when the question asks who, the other parts of the name it is a part of (first
        name: the last name too), unless the question names a part itself ("the first name of")."""
        idx = self.index
        if not (ev.persons and idx.col_is_name_part[c]):
            return [c]
        a, b = int(idx.rel_start[r]), int(idx.rel_start[r] + idx.rel_ncols[r])
        parts = [p for p in range(a, b) if idx.col_is_name_part[p]]
        if any(ev.name[p] >= 1.0 for p in parts):
            return [c]
        return [c] + [p for p in parts if p != c]

    def column_budget(self, n_terminals: int) -> int:
        """max_columns, grown by wide_columns per terminal relation from the wide_relations-th
        on (a question whose evidence spans many relations needs more columns), at most
        wide_max_columns."""
        s = self.settings
        extra = s.wide_columns * max(0, n_terminals - s.wide_relations + 1)
        return max(s.max_columns, min(s.max_columns + extra, s.wide_max_columns))

    def has_evidence(self, ev: Evidence, c: int) -> bool:
        s = self.settings
        return bool(ev.name[c] >= s.fill_name or ev.lex[c] >= s.fill_lex or ev.value[c] > 0)

    def _add_time_column(self, ev: Evidence, terminals: set[int], picked: dict[int, list[int]]) -> None:
        """The best-scoring date/timestamp column (by type or by name) of the best terminal
        relation that has one, unless a picked column already is one."""
        idx, corpus = self.index, self.index.corpus
        for r in sorted(terminals, key=lambda r: (-float(ev.rel_name[r]), -float(ev.rel[r]), r)):
            cols = range(int(idx.rel_start[r]), int(idx.rel_start[r] + idx.rel_ncols[r]))
            temporal = [c for c in cols if is_temporal(corpus.columns[c])]
            if not temporal:
                continue
            if not any(c in temporal for c in picked[r]):
                picked[r].append(max(temporal, key=lambda c: (float(ev.col[c]), -c)))
            return
