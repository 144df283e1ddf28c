"""Scores per convention and half, the reliability table, the JSON and the candidate dump.

Scores are fkbench's (strict precision, lenient precision, strict recall; micro-averaged: TP, FP
and FN summed over the databases of a cell) against the renamed truth.

Reliability: every found link (lineage left out; a pair written twice counts once, at its
highest confidence) falls in a confidence bin; a bin reports how many links it holds and the
share that are declared FKs (strict) or real join paths (lenient, as in fkbench's scoring).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from fkbench import product
from fkbench.databases import Pair
from fkbench.scoring import Score, is_lenient_match, score, total

from .generate import original_names
from .naming import Convention
from .runner import TaskResult
from .split import Half

#: Confidence bins of the reliability table: (label, low inclusive, high exclusive).
BINS: tuple[tuple[str, float, float], ...] = (
    (">=0.9", 0.9, float("inf")), ("0.7-0.9", 0.7, 0.9), ("0.5-0.7", 0.5, 0.7), ("<0.5", float("-inf"), 0.5),
)
HALVES = (Half.TUNING, Half.HELD_BACK)


def task_score(r: TaskResult) -> Score | None:
    return score(r.run.pairs, r.truth) if r.ok and r.truth is not None else None


def _fmt(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


@dataclass(frozen=True)
class Cell:
    score: Score | None
    databases: int
    failed: int
    link_seconds: float

    def to_dict(self) -> dict:
        return {"score": self.score.to_dict() if self.score else None, "databases": self.databases,
                "failed": self.failed, "link_seconds": round(self.link_seconds, 3)}


def cell(results: list[TaskResult]) -> Cell:
    scores = [s for s in (task_score(r) for r in results) if s is not None]
    return Cell(total(scores) if scores else None, len(results), sum(1 for r in results if not r.ok),
                sum(r.run.seconds for r in results if r.run is not None))


def grid(results: list[TaskResult]) -> dict[Convention, dict[str, Cell]]:
    """convention → {tuning, held_back, all} → Cell, in the order the conventions ran."""
    out: dict[Convention, dict[str, Cell]] = {}
    for conv in dict.fromkeys(r.convention for r in results):
        rows = [r for r in results if r.convention is conv]
        out[conv] = {h.value: cell([r for r in rows if r.half is h]) for h in HALVES}
        out[conv]["all"] = cell(rows)
    return out


def render_grid(g: dict[Convention, dict[str, Cell]]) -> str:
    groups = [h.value for h in HALVES] + ["all"]
    header = ["convention"] + [f"{col} {grp}" if col == "R" else col for grp in groups
                               for col in ("R", "P", "lenP", "TP/gold")] + ["link s", "failed"]
    rows = [header]
    for conv, cells in g.items():
        row = [conv.value]
        for grp in groups:
            s = cells[grp].score
            row += ([_fmt(s.recall), _fmt(s.precision), _fmt(s.lenient_precision), f"{s.tp}/{s.gold}"]
                    if s else ["-"] * 4)
        row += [f"{cells['all'].link_seconds:.0f}", str(cells["all"].failed) if cells["all"].failed else ""]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join([r[0].ljust(widths[0])] + [c.rjust(widths[i]) for i, c in enumerate(r) if i]) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("R recall, P precision, lenP lenient precision (micro over the databases of each half); "
                 "link s: sum of the link commands")
    return "\n".join(lines)


# --- reliability -------------------------------------------------------------------------------
@dataclass(frozen=True)
class LabelledLink:
    result: TaskResult
    link: product.FoundLink
    strict: bool
    lenient: bool


def labelled_links(results: list[TaskResult]) -> list[LabelledLink]:
    """Every found link of the scored tasks, one per pair (its highest confidence), labelled."""
    out = []
    for r in results:
        if not r.ok or r.links_json is None or r.truth is None:
            continue
        best: dict[Pair, product.FoundLink] = {}
        for link in product.found_links(json.loads(Path(r.links_json).read_text(encoding="utf-8"))):
            if len(link.pair) == 2 and (link.pair not in best or link.confidence > best[link.pair].confidence):
                best[link.pair] = link
        gold, parents = r.truth.pairs, r.truth.parents_of()
        for p, link in best.items():
            strict = p in gold
            out.append(LabelledLink(r, link, strict, strict or is_lenient_match(p, r.truth, parents)))
    return out


def reliability(links: list[LabelledLink]) -> dict[str, list[dict]]:
    """{tuning, held_back, all} → one row per bin: links, strict and lenient counts and shares."""
    out: dict[str, list[dict]] = {}
    for grp in [h.value for h in HALVES] + ["all"]:
        chosen = [x for x in links if grp == "all" or (x.result.half is not None and x.result.half.value == grp)]
        rows = []
        for label, lo, hi in BINS:
            inside = [x for x in chosen if lo <= x.link.confidence < hi]
            n, s, l = len(inside), sum(x.strict for x in inside), sum(x.lenient for x in inside)
            rows.append({"bin": label, "links": n, "declared": s, "lenient": l,
                         "share_declared": s / n if n else None, "share_lenient": l / n if n else None})
        out[grp] = rows
    return out


def render_reliability(table: dict[str, list[dict]], scope: str) -> str:
    lines = [f"reliability ({scope}): links per confidence bin, share that are declared FKs (strict / lenient)"]
    header = ["bin"] + [f"{grp} {c}" if c == "n" else c for grp in table for c in ("n", "strict", "lenient")]
    rows = [header]
    for i, (label, _, _) in enumerate(BINS):
        row = [label]
        for grp in table:
            b = table[grp][i]
            row += [str(b["links"]), _fmt(b["share_declared"]), _fmt(b["share_lenient"])]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines += ["  ".join([r[0].ljust(widths[0])] + [c.rjust(widths[i]) for i, c in enumerate(r) if i]) for r in rows]
    lines.insert(2, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# --- JSON and the candidate dump ---------------------------------------------------------------
def _names(p: Pair) -> list[str]:
    return sorted(f"{t}.{c}" for t, c in p)


def _original(p: Pair, back: dict) -> list[str]:
    return sorted(f"{back[e][0]}.{back[e][1]}" if e in back else f"?{e[0]}.{e[1]}" for e in p)


def task_dict(r: TaskResult) -> dict:
    s = task_score(r)
    out = {"db": r.db, "collection": r.collection, "convention": r.convention.value,
           "half": r.half.value if r.half else None, "gold": len(r.truth.pairs) if r.truth else None,
           "score": s.to_dict() if s else None,
           "error": r.error or (r.run.error if r.run else None),
           "failed_phase": r.run.failed_phase if r.run else None,
           "phases": {k: round(v, 3) for k, v in (r.run.phases if r.run else {}).items()},
           "generated": r.generated, "prepared": r.prepared, "reused_links": r.reused_links,
           "links_json": str(r.links_json) if r.links_json else None,
           "notes": r.renaming.notes if r.renaming else {}}
    if s is not None:
        back = original_names(r.schema, r.renaming)
        fps, missed = r.run.pairs - r.truth.pairs, r.truth.pairs - r.run.pairs
        out["false_positives"] = [{"renamed": _names(p), "original": _original(p, back)} for p in sorted(fps, key=_names)]
        out["missed"] = [{"renamed": _names(p), "original": _original(p, back)} for p in sorted(missed, key=_names)]
    return out


def candidate_rows(results: list[TaskResult]) -> list[dict]:
    """One row per found link (with its evidence vector) and per trap-rejected candidate
    (links.json carries no evidence for those), labelled against the declared FKs."""
    rows = []
    for x in labelled_links(results):
        r, link = x.result, x.link
        back = original_names(r.schema, r.renaming)
        rows.append({
            "convention": r.convention.value, "db": r.db, "half": r.half.value if r.half else None,
            "source": "link", "kind": link.kind, "child": list(link.child), "parent": list(link.parent),
            "child_original": list(back.get((link.child[0].lower(), link.child[1].lower()), ())),
            "parent_original": list(back.get((link.parent[0].lower(), link.parent[1].lower()), ())),
            "confidence": link.confidence,
            "evidence": {k: {"strength": v[0], "contribution": v[1]} for k, v in sorted(link.evidence.items())},
            "declared_fk": x.strict, "join_path": x.lenient})
    for r in results:
        if not r.ok or r.links_json is None:
            continue
        back = original_names(r.schema, r.renaming)
        parents = r.truth.parents_of()
        for c in product.rejected_candidates(json.loads(Path(r.links_json).read_text(encoding="utf-8"))):
            strict = c.pair in r.truth.pairs
            rows.append({
                "convention": r.convention.value, "db": r.db, "half": r.half.value if r.half else None,
                "source": "rejected", "trap": c.trap, "child": list(c.child), "parent": list(c.parent),
                "child_original": list(back.get((c.child[0].lower(), c.child[1].lower()), ())),
                "parent_original": list(back.get((c.parent[0].lower(), c.parent[1].lower()), ())),
                "would_be_confidence": c.would_be_confidence,
                "declared_fk": strict, "join_path": strict or is_lenient_match(c.pair, r.truth, parents)})
    return rows
