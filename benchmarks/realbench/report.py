"""Per-project results, tallies summed over groups, the printed tables and the JSON document.

Scored: the links of the first `link` run whose provenance is `inferred` or `sql` (what the
product found itself; declared links are the project's own relationships tests). Figures:
- by confidence band (saasbench.scoring.BANDS) the links and their verdicts (judge.py): true,
  allowed (SaaS only), doubtful, false, unjudged; share true = true / judged (unjudged left out,
  and shown);
- at the write bar (confidence >= 0.7, what `write` turns into tests): links, precision = true /
  judged, the same with allowance (true + allowed), unjudged;
- recall: labelled joins found by any join link of links.json (declared ones included: the reading
  of labels.json's `found`), and, over the labelled joins no declared link covers, the share a
  discovered link found (`R undecl`: what the product adds to what the project declares);
- the written tests' statuses (`dbt test -s tag:schema_link`), tests and join links on `_tmp`
  views, `link --check` green or red, seconds of link / second link / link --check / index.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from saasbench.report import align
from saasbench.scoring import BANDS, WRITE_BAR

from .judge import Judge, ScoredLink, Verdict, labels_found, score_links, truth_text
from .links import Link, join_links, provenance_counts
from .loop import LoopRun
from .split import HALVES, Half

#: Verdict columns of a band, in this order.
VERDICTS = (Verdict.TRUE, Verdict.ALLOWED, Verdict.DOUBTFUL, Verdict.FALSE, Verdict.UNJUDGED)
#: Indexes of the bands at or above the write bar.
BAR_BANDS = tuple(i for i, (_, lo, _) in enumerate(BANDS) if lo >= WRITE_BAR)
TEST_STATUSES = ("pass", "warn", "error", "fail")
TIMED = ("link", "link2", "check", "index")


@dataclass
class ProjectResult:
    name: str
    family: str  # dbt | saas
    half: Half | None
    run: LoopRun = field(default_factory=LoopRun)
    label_counts: dict[str, int] = field(default_factory=dict)  # records by verdict, or labels by kind
    truth: list = field(default_factory=list)  # the labelled joins recall is over
    scored: list[ScoredLink] | None = None  # None: not linked
    found: list[bool] = field(default_factory=list)  # per truth label: found by a join link
    declared: list[bool] = field(default_factory=list)  # per truth label: a declared link covers it
    found_discovered: list[bool] = field(default_factory=list)  # per truth label: found by a discovered link
    provenance1: dict[str, int] = field(default_factory=dict)  # join links of the first run by provenance
    provenance2: dict[str, int] = field(default_factory=dict)  # of the second run
    tmp_links: int = 0  # join links (any provenance) of the first run on a `_tmp` view
    tmp_link_names: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. how many seeds map to source tables

    @property
    def tally(self) -> "Tally":
        return tally(self)

    def missed(self) -> list[str]:
        return [truth_text(label) for label, hit in zip(self.truth, self.found) if not hit]

    def to_dict(self) -> dict:
        return {"project": self.name, "family": self.family, "half": self.half.value if self.half else None,
                "labels": self.label_counts, "notes": self.notes, "run": self.run.to_dict(),
                "links_first_run": self.provenance1, "links_second_run": self.provenance2,
                "tmp_links": self.tmp_link_names, "score": self.tally.to_dict(),
                "scored_links": [s.to_dict() for s in self.scored] if self.scored is not None else None,
                "missed_labels": self.missed() if self.scored is not None else None}


def score(result: ProjectResult, links_doc: dict, judge: Judge) -> None:
    """Fill `result`'s link figures from the first run's links.json and the project's judge."""
    joins: list[Link] = join_links(links_doc)
    discovered = [link for link in joins if link.discovered]
    declared = [link for link in joins if link.provenance == "declared"]
    result.truth = list(judge.truth)
    result.scored = score_links(judge, discovered)
    result.found = labels_found(judge, joins)
    result.declared = labels_found(judge, declared)
    result.found_discovered = labels_found(judge, discovered)
    result.provenance1 = provenance_counts(joins)
    tmp = [link for link in joins if link.on_tmp]
    result.tmp_links = len(tmp)
    result.tmp_link_names = [f"{link.provenance} {link.confidence:.2f} {link.name()}" for link in tmp]


# --- tallies -----------------------------------------------------------------------------------------
def _ratio(a: int | float, b: int | float) -> float | None:
    return a / b if b else None


def _zero_bands() -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(0 for _ in VERDICTS) for _ in BANDS)


@dataclass(frozen=True)
class Tally:
    """Counts of one project, or summed over several (micro-averaged ratios)."""

    projects: int = 0
    failed: int = 0  # projects whose loop did not run through (run.error)
    labels: int = 0
    found: int = 0
    undeclared: int = 0  # labelled joins no declared link covers
    undeclared_found: int = 0  # of them, found by a discovered link
    declared_links: int = 0
    tmp_links: int = 0
    tmp_tests: int = 0
    checks_green: int = 0
    checks_red: int = 0
    tests: tuple[int, ...] = tuple(0 for _ in TEST_STATUSES)  # pass, warn, error, fail
    tests_total: int = 0  # every status (skipped too)
    seconds: tuple[float, ...] = tuple(0.0 for _ in TIMED)
    bands: tuple[tuple[int, ...], ...] = field(default_factory=_zero_bands)  # per band: count per VERDICTS

    def __add__(self, other: "Tally") -> "Tally":
        def add(a, b):
            return tuple(add(x, y) for x, y in zip(a, b)) if isinstance(a, tuple) else a + b
        return Tally(**{f.name: add(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)})

    def band(self, i: int) -> dict[Verdict, int]:
        return dict(zip(VERDICTS, self.bands[i]))

    def at_bar(self) -> dict[Verdict, int]:
        return {v: sum(self.bands[i][k] for i in BAR_BANDS) for k, v in enumerate(VERDICTS)}

    @property
    def links(self) -> int:
        return sum(sum(b) for b in self.bands)

    @staticmethod
    def share_true(counts: dict[Verdict, int], allowed: bool = False) -> float | None:
        judged = sum(counts.values()) - counts[Verdict.UNJUDGED]
        return _ratio(counts[Verdict.TRUE] + (counts[Verdict.ALLOWED] if allowed else 0), judged)

    @property
    def bar_links(self) -> int:
        return sum(self.at_bar().values())

    @property
    def bar_precision(self) -> float | None:
        return self.share_true(self.at_bar())

    @property
    def bar_precision_allowed(self) -> float | None:
        return self.share_true(self.at_bar(), allowed=True)

    @property
    def recall(self) -> float | None:
        return _ratio(self.found, self.labels)

    @property
    def recall_undeclared(self) -> float | None:
        return _ratio(self.undeclared_found, self.undeclared)

    @property
    def test_pass_rate(self) -> float | None:
        return _ratio(self.tests[0], self.tests_total)

    def to_dict(self) -> dict:
        bar = self.at_bar()
        return {
            "projects": self.projects, "failed": self.failed, "labels": self.labels, "found": self.found,
            "recall": self.recall, "undeclared": self.undeclared, "undeclared_found": self.undeclared_found,
            "recall_undeclared": self.recall_undeclared, "discovered_links": self.links,
            "declared_links": self.declared_links, "write_bar": WRITE_BAR, "bar_links": self.bar_links,
            "bar": {v.value: n for v, n in bar.items()}, "bar_precision": self.bar_precision,
            "bar_precision_allowed": self.bar_precision_allowed,
            "bands": [{"band": label, **{v.value: n for v, n in self.band(i).items()},
                       "share_true": self.share_true(self.band(i)),
                       "share_true_allowed": self.share_true(self.band(i), allowed=True)}
                      for i, (label, _, _) in enumerate(BANDS)],
            "tests": dict(zip(TEST_STATUSES, self.tests)), "tests_total": self.tests_total,
            "test_pass_rate": self.test_pass_rate, "tmp_links": self.tmp_links, "tmp_tests": self.tmp_tests,
            "checks_green": self.checks_green, "checks_red": self.checks_red,
            "seconds": {k: round(v, 3) for k, v in zip(TIMED, self.seconds)},
        }


def tally(r: ProjectResult) -> Tally:
    bands = [[0 for _ in VERDICTS] for _ in BANDS]
    for s in r.scored or []:
        i = next(i for i, (_, lo, hi) in enumerate(BANDS) if lo <= s.link.confidence < hi)
        bands[i][VERDICTS.index(s.verdict)] += 1
    tests = r.run.tests
    green = r.run.check_green
    undeclared = [not d for d in r.declared]
    return Tally(
        projects=1, failed=int(r.run.error is not None),
        labels=len(r.truth) if r.scored is not None else 0, found=sum(r.found),
        undeclared=sum(undeclared), undeclared_found=sum(f for f, u in zip(r.found_discovered, undeclared) if u),
        declared_links=r.provenance1.get("declared", 0), tmp_links=r.tmp_links,
        tmp_tests=len(tests.on_tmp) if tests else 0,
        checks_green=int(green is True), checks_red=int(green is False),
        tests=tuple(tests.count(s) for s in TEST_STATUSES) if tests else tuple(0 for _ in TEST_STATUSES),
        tests_total=tests.total if tests else 0,
        seconds=tuple(r.run.seconds(s) or 0.0 for s in TIMED),
        bands=tuple(tuple(b) for b in bands),
    )


def groups(results: list[ProjectResult]) -> dict[str, list[ProjectResult]]:
    """{tuning, held_back, dbt, saas, all} -> the results in it."""
    out = {h.value: [r for r in results if r.half is h] for h in HALVES}
    out["dbt"] = [r for r in results if r.family == "dbt"]
    out["saas"] = [r for r in results if r.family == "saas"]
    out["all"] = list(results)
    return out


def group_tally(results: list[ProjectResult]) -> Tally:
    out = Tally()
    for r in results:
        out = out + r.tally
    return out


def totals(results: list[ProjectResult]) -> dict:
    return {name: group_tally(rs).to_dict() for name, rs in groups(results).items()}


# --- printing -----------------------------------------------------------------------------------------
def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _s(x: float | None) -> str:
    return "-" if not x else f"{x:.1f}"


HEADER = ["project", "half", "labels", "links", f">={WRITE_BAR}", "P@bar", "+allow", "unj@bar", "R", "R undecl",
          "tests P/W/E/F", "pass", "check", "_tmp l/t", "link s", "link2 s", "check s", "index s"]


def _check_cell(t: Tally, single: bool) -> str:
    if single:
        return "green" if t.checks_green else "RED" if t.checks_red else "-"
    return f"{t.checks_green} green / {t.checks_red} red"


def _row(name: str, half: str, t: Tally, single: bool, error: str | None = None) -> list[str]:
    if single and error and t.links == 0 and t.labels == 0:
        return [name, half, "ERR"] + [""] * (len(HEADER) - 7) + [_s(t.seconds[i]) for i in range(len(TIMED))]
    bar = t.at_bar()
    return [name, half, str(t.labels), str(t.links), str(t.bar_links), _f(t.bar_precision),
            _f(t.bar_precision_allowed), str(bar[Verdict.UNJUDGED]),
            f"{_f(t.recall)} {t.found}/{t.labels}", f"{_f(t.recall_undeclared)} {t.undeclared_found}/{t.undeclared}",
            "/".join(str(n) for n in t.tests), _f(t.test_pass_rate), _check_cell(t, single),
            f"{t.tmp_links}/{t.tmp_tests}"] + [_s(t.seconds[i]) for i in range(len(TIMED))]


def render_table(results: list[ProjectResult]) -> str:
    rows = [HEADER]
    for r in results:
        rows.append(_row(r.name, r.half.value if r.half else "", r.tally, True, r.run.error))
    for name, rs in groups(results).items():
        if rs:
            rows.append(_row(name.upper(), f"{len(rs)} proj", group_tally(rs), False))
    lines = align(rows, (0, len(results)))
    lines.append(
        f"links: discovered (inferred/sql) links of the first `link`; >={WRITE_BAR}: of them at the write bar; "
        "P@bar: true / judged at the bar, +allow: with saasbench's allowance (SaaS); unj@bar: unjudged at the bar; "
        "R: labelled joins found by any link (declared too), R undecl: labelled joins no declared link covers, "
        "found by a discovered link; tests: statuses of `dbt test -s tag:schema_link`, pass: PASS / all; "
        "check: `link --check`; _tmp l/t: join links / written tests on `_tmp` views; seconds of the commands")
    return "\n".join(lines)


def render_bands(results: list[ProjectResult]) -> str:
    rows = [["group", "band", "links"] + [v.value for v in VERDICTS] + ["share true", "+allow"]]
    for name, rs in groups(results).items():
        if not rs:
            continue
        t = group_tally(rs)
        for i, (label, _, _) in enumerate(BANDS):
            counts = t.band(i)
            rows.append([name, label, str(sum(counts.values()))] + [str(counts[v]) for v in VERDICTS]
                        + [_f(t.share_true(counts)), _f(t.share_true(counts, allowed=True))])
    return "\n".join(["confidence bands: discovered links by verdict; share true = true / judged "
                      "(unjudged left out), +allow = (true + allowed) / judged"] + align(rows, (0,)))


def render_checks(results: list[ProjectResult], limit: int = 15) -> str:
    lines = ["`dbt-schema-link link --check --profiles-dir .`:"]
    for r in results:
        step = r.run.steps.get("check")
        if step is None:
            lines.append(f"  {r.name}: not run")
            continue
        state = {True: "green", False: "RED"}.get(r.run.check_green, "ERROR")
        lines.append(f"  {r.name}: {state} (exit {step.rc})")
        for line in r.run.check_lines[:limit]:
            lines.append(f"      {line}")
        if len(r.run.check_lines) > limit:
            lines.append(f"      ... {len(r.run.check_lines) - limit} more line(s) in the JSON / {step.log}")
        for line in r.run.check_summary:
            lines.append(f"      {line}")
    return "\n".join(lines)


def problems(r: ProjectResult) -> list[str]:
    """What looks like a product problem on this project (each one line)."""
    out = [f"traceback in {tb}" for tb in r.run.tracebacks] + list(r.run.complaints)
    if r.run.error:
        out.append(f"failed at {r.run.failed_step}: {r.run.error}")
    out += [f"write {line}" for line in r.run.write_refused]
    if r.run.check_green is False:
        out.append(f"link --check red: {len(r.run.check_lines)} line(s)")
    if r.tmp_links:
        out.append(f"{r.tmp_links} join link(s) on _tmp views: " + "; ".join(r.tmp_link_names[:5]))
    tests = r.run.tests
    if tests and tests.on_tmp:
        out.append(f"{len(tests.on_tmp)} written test(s) on _tmp views: " + "; ".join(tests.on_tmp[:5]))
    if tests:
        out += [f"written test {line}" for line in tests.not_passing if line.startswith("error")]
    return out


def render_problems(results: list[ProjectResult]) -> str:
    lines = ["product problems seen (tracebacks, failed steps, tool steps exiting non-zero, refused writes, red "
             "checks, _tmp links/tests, tests in error):"]
    for r in results:
        for p in problems(r):
            lines.append(f"  {r.name}: {p}")
    if len(lines) == 1:
        lines.append("  none")
    return "\n".join(lines)
