"""Per-package results, the printed tables and the JSON document."""

from __future__ import annotations

from dataclasses import dataclass, field

from .labels import Label
from .project import PackageRun
from .scoring import BANDS, WRITE_BAR, ScoredLink, Tally, missed, tally
from .split import HALVES, Half


@dataclass
class PackageResult:
    name: str
    half: Half | None
    labels: list[Label]
    run: PackageRun = field(default_factory=PackageRun)
    links: list[ScoredLink] | None = None  # None: not linked (error or --prepare-only)
    links_path: str | None = None

    @property
    def tally(self) -> Tally | None:
        return tally(self.labels, self.links) if self.links is not None else None

    def to_dict(self) -> dict:
        t = self.tally
        return {
            "package": self.name, "half": self.half.value if self.half else None,
            "tables": self.run.tables, "labels": len(self.labels),
            "error": self.run.error, "failed_phase": self.run.failed_phase, "reused_project": self.run.reused,
            "phases": {k: round(v, 3) for k, v in self.run.phases.items()},
            "link_seconds": None if self.run.link_seconds is None else round(self.run.link_seconds, 3),
            "links_json": self.links_path,
            "score": t.to_dict() if t else None,
            "found_links": [x.to_dict() for x in self.links] if self.links is not None else None,
            "missed_labels": [x.to_dict() for x in missed(self.labels, self.links)] if self.links is not None else None,
        }


def group_tally(results: list[PackageResult]) -> Tally | None:
    scored = [r.tally for r in results if r.links is not None]
    if not scored:
        return None
    out = Tally()
    for t in scored:
        out = out + t
    return out


def groups(results: list[PackageResult]) -> dict[str, list[PackageResult]]:
    """{tuning, held_back, all} → the results in it (a package outside the split only in all)."""
    out = {h.value: [r for r in results if r.half is h] for h in HALVES}
    out["all"] = list(results)
    return out


def totals(results: list[PackageResult]) -> dict:
    out = {}
    for name, rs in groups(results).items():
        t = group_tally(rs)
        out[name] = {"packages": len(rs), "failed": sum(1 for r in rs if r.run.error),
                     "link_seconds": round(sum(r.run.link_seconds or 0.0 for r in rs), 3),
                     "score": t.to_dict() if t else None}
    return out


# --- printing ----------------------------------------------------------------------------------
def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


HEADER = ["package", "half", "labels", "found", "R", "R nonnull", "R conf", "P", "P allow",
          f">={WRITE_BAR}", "P@bar", "Pa@bar", "null ch", "link s"]


def _row(name: str, half: str, t: Tally | None, seconds: float | None, error: str | None, labels: int) -> list[str]:
    if t is None:
        return [name, half, str(labels), "ERR" if error else "-"] + [""] * (len(HEADER) - 5) + [
            "-" if seconds is None else f"{seconds:.1f}"]
    return [name, half, str(t.labels), str(t.found),
            f"{_f(t.recall)} {t.labels_found}/{t.labels}",
            f"{_f(t.recall_nonnull)} {t.nonnull_found}/{t.nonnull}",
            f"{_f(t.recall_confirmed)} {t.confirmed_found}/{t.confirmed}",
            _f(t.precision), _f(t.precision_allowed), str(t.bar), _f(t.bar_precision), _f(t.bar_precision_allowed),
            f"{t.all_null} ({t.all_null_bar})", "-" if seconds is None else f"{seconds:.1f}"]


def align(rows: list[list[str]], rules: tuple[int, ...]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append("  ".join([row[0].ljust(widths[0])] + [c.rjust(widths[i]) for i, c in enumerate(row) if i]))
        if n in rules:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def render_table(results: list[PackageResult]) -> str:
    rows = [HEADER]
    for r in results:
        rows.append(_row(r.name, r.half.value if r.half else "", r.tally, r.run.link_seconds, r.run.error,
                         len(r.labels)))
    for name, rs in groups(results).items():
        seconds = sum(r.run.link_seconds or 0.0 for r in rs)
        rows.append(_row(name.upper(), "", group_tally(rs), seconds if rs else None, None,
                         sum(len(r.labels) for r in rs)))
    lines = align(rows, (0, len(results)))
    lines.append("R recall over all labels / labels with a non-empty child / data-confirmed labels (child "
                 "non-empty, every value in the parent); P strict precision, P allow with allowance (scoring.py); "
                 f"P@bar, Pa@bar the same over links at confidence >= {WRITE_BAR}; null ch: found links whose "
                 "child is all NULL (of them at the bar); link s: the link command")
    return "\n".join(lines)


def render_bands(results: list[PackageResult]) -> str:
    gs = groups(results)
    header = ["band"] + [c for name in gs for c in (f"{name} n", "strict", "allow")]
    rows = [header]
    tallies = {name: group_tally(rs) for name, rs in gs.items()}
    for i, (label, _, _) in enumerate(BANDS):
        row = [label]
        for name in gs:
            t = tallies[name]
            n, s, a = t.bands[i] if t else (0, 0, 0)
            row += [str(n), _f(s / n if n else None), _f(a / n if n else None)]
        rows.append(row)
    return "\n".join(["confidence bands: found links, share true (strict / with allowance)"] + align(rows, (0,)))
