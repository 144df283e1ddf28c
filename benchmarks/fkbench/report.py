"""Per-database results, the printed table and the JSON document."""

from __future__ import annotations

from dataclasses import dataclass, field

from .databases import GroundTruth
from .peer import PeerRun
from .product import ProductRun
from .scoring import Score, score, total


@dataclass
class ToolResult:
    score: Score | None  # None when the tool did not run to the end
    seconds: float
    total_seconds: float
    error: str | None = None
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"score": self.score.to_dict() if self.score else None, "seconds": round(self.seconds, 3),
                "total_seconds": round(self.total_seconds, 3), "error": self.error, **self.detail}


@dataclass
class DatabaseResult:
    name: str
    collection: str
    truth: GroundTruth
    product: ToolResult | None = None
    peer: ToolResult | None = None
    peer_edges: ToolResult | None = None

    def to_dict(self) -> dict:
        return {
            "name": self.name, "collection": self.collection, "gold_fks": len(self.truth.pairs),
            "unresolved_fks": self.truth.unresolved,
            "product": self.product.to_dict() if self.product else None,
            "peer": self.peer.to_dict() if self.peer else None,
            "peer_edges": self.peer_edges.to_dict() if self.peer_edges else None,
        }


def _sorted_pairs(pairs) -> list[list[str]]:
    return sorted(sorted(f"{t}.{c}" for t, c in p) for p in pairs)


def product_result(run: ProductRun, truth: GroundTruth, prepare_only: bool = False) -> ToolResult:
    ok = run.error is None and not prepare_only
    detail = {"phases": {k: round(v, 3) for k, v in run.phases.items()}, "failed_phase": run.failed_phase,
              "links_json": run.links_path, "kept_varchar": run.kept_varchar}
    if ok:
        detail["false_positives"] = _sorted_pairs(run.pairs - truth.pairs)
        detail["missed"] = _sorted_pairs(truth.pairs - run.pairs)
    return ToolResult(score(run.pairs, truth) if ok else None, run.seconds, run.total_seconds, run.error, detail)


def peer_results(run: PeerRun, truth: GroundTruth) -> tuple[ToolResult, ToolResult]:
    """(report reading: all pairs inside each Markdown group, edge reading: its pairwise links)."""
    out = []
    for pairs in (run.pairs, run.edge_pairs):
        ok = run.error is None
        detail = {"report": run.report_path, "inner_seconds": round(run.inner_seconds, 3)}
        if ok:
            detail["false_positives"] = _sorted_pairs(pairs - truth.pairs)
            detail["missed"] = _sorted_pairs(truth.pairs - pairs)
        out.append(ToolResult(score(pairs, truth) if ok else None, run.seconds, run.seconds, run.error, detail))
    return out[0], out[1]


def totals(results: list[DatabaseResult], attr: str) -> dict | None:
    tools = [getattr(r, attr) for r in results if getattr(r, attr) is not None]
    if not tools:
        return None
    scored = [t.score for t in tools if t.score is not None]
    return {
        "databases": len(tools), "failed": sum(1 for t in tools if t.error),
        "score": total(scored).to_dict() if scored else None,
        "seconds": round(sum(t.seconds for t in tools), 3),
        "total_seconds": round(sum(t.total_seconds for t in tools), 3),
    }


# --- printing --------------------------------------------------------------------------------
def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _cells(tool: ToolResult | None, with_total: bool) -> list[str]:
    width = 8 if with_total else 7
    if tool is None:
        return [""] * width
    s = tool.score
    head = [("ERR" if tool.error else "-"), "", "", "", "", ""] if s is None else [
        str(s.found), str(s.tp), _f(s.precision), _f(s.lenient_precision), _f(s.recall), _f(s.f1)]
    times = [f"{tool.seconds:.1f}"] + ([f"{tool.total_seconds:.1f}"] if with_total else [])
    return head + times


def _total_cells(t: dict | None, with_total: bool) -> list[str]:
    if t is None:
        return [""] * (8 if with_total else 7)
    s = t["score"] or {}
    head = [str(s.get("found", "-")), str(s.get("tp", "-")), _f(s.get("precision")),
            _f(s.get("lenient_precision")), _f(s.get("recall")), _f(s.get("f1"))]
    return head + [f"{t['seconds']:.1f}"] + ([f"{t['total_seconds']:.1f}"] if with_total else [])


def render_table(results: list[DatabaseResult]) -> str:
    metric = ["found", "TP", "P", "lenP", "R", "F1"]
    header = ["db", "gold"] + metric + ["s", "tot s", "|"] + metric + ["s"]
    rows = [header]
    for r in results:
        rows.append([r.name, str(len(r.truth.pairs))] + _cells(r.product, True) + ["|"] + _cells(r.peer, False))
    gold = sum(len(r.truth.pairs) for r in results)
    rows.append(["TOTAL (micro)", str(gold)] + _total_cells(totals(results, "product"), True) + ["|"]
                + _total_cells(totals(results, "peer"), False))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    bar = header.index("|")

    def offset(column: int) -> int:
        return sum(w + 2 for w in widths[:column])

    titles = " " * offset(2) + "dbt-schema-link"
    titles = titles.ljust(offset(bar + 1)) + "schema-linker 0.0.5 (report)"
    lines = [titles]
    for n, row in enumerate(rows):
        lines.append("  ".join([row[0].ljust(widths[0])] + [c.rjust(widths[i]) for i, c in enumerate(row) if i]))
        if n in (0, len(rows) - 2):
            lines.append("  ".join("-" * w for w in widths))
    lines.append("P precision, lenP lenient precision, R recall; s: dbt-schema-link link / schema-linker "
                 "process; tot s: load + dbt deps + dbt docs generate + link")
    return "\n".join(lines)
