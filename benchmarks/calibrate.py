#!/usr/bin/env python
"""Fit the evidence weights of join discovery on labelled databases; print a reliability table.

What
    Every candidate pair that discovery scores (usable: not blocked, not a trap) becomes one row:
    the strength of each evidence signal (``Evidence.strength``, in [-1, 1]) and a label — whether
    the pair is a declared foreign key of the database (either orientation). A logistic regression
    with non-negative weights (a signal may only speak the way it is meant to) and a small L2
    penalty is fitted on
    the **tuning half** of the convention benchmark (``convbench.split.TUNING``, every prepared
    convention), and written as the table the package ships:
    ``dbt_schema_link/discovery/calibration.py`` (``--write``). The reliability table — for bins
    of confidence, the share of *accepted* links that are declared FKs (strict, and lenient as in
    fkbench) — is printed for both halves, with the weights in force, and within each bin per
    basis: names and values, values alone (no name, SQL join or calendar says the pair joins),
    names only (scored without values).

Input
    Projects prepared by ``benchmarks/conventions.py`` (``<workdir>/<convention>/<db>/`` with
    ``project/target`` holding manifest, catalog and the profile cache of one ``link`` run, plus
    ``warehouse.duckdb`` and ``renamed.sqlite`` with the renamed FKs). Discovery runs in this
    process on the cached profiles; exact containment is measured on the DuckDB file directly
    (read-only), as the package's verifier would through dbt.

Usage
    python benchmarks/calibrate.py [--workdir benchmarks/out/conventions] [--conventions ...]
        [--dirt-workdir benchmarks/out/dirt] [--write] [--json OUT]

    With ``--dirt-workdir``, the variants ``benchmarks/dirt.py`` prepared there join the corpus
    (their ``dirty.sqlite`` holds the truth; the same halves): orphans, sample rows and the rest
    are what a fit on clean renamings alone never sees.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import duckdb
import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from convbench.split import HELD_BACK, TUNING
from fkbench import databases, scoring
from fkbench.product import found_pairs

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(REPO_ROOT))

from dbt_schema_link.artifacts.manifest import read_project  # noqa: E402
from dbt_schema_link.discovery import DiscoverySettings, calibration, discover  # noqa: E402
from dbt_schema_link.discovery.evidence import has_name_signal  # noqa: E402
from dbt_schema_link.discovery.policy import PRIOR_L2, PRIOR_WEIGHTS  # noqa: E402
from dbt_schema_link.discovery.records import Signal  # noqa: E402
from dbt_schema_link.links import Link, LinkKind  # noqa: E402
from dbt_schema_link.discovery.scoring import FITTED_SIGNALS, VALUE_SIGNALS  # noqa: E402
from dbt_schema_link.profiling.records import ContainmentResult  # noqa: E402
from dbt_schema_link.profiling.stored import stored_profiles  # noqa: E402

CALIBRATION_PY = REPO_ROOT / "dbt_schema_link" / "discovery" / "calibration.py"
#: L2 penalty of the fit towards the prior weights, and the prior: declared in the policy.
L2 = PRIOR_L2
PRIOR: dict[Signal, float] = PRIOR_WEIGHTS
BINS = ((0.9, 1.01), (0.7, 0.9), (0.5, 0.7))
#: The two tables the package ships (see ``scoring.VALUE_SIGNALS``).
MEASURED, NAMES = "MEASURED", "NAMES_ONLY"


@dataclass
class Row:
    x: np.ndarray  # strength per FITTED_SIGNALS
    y: int
    confidence: float


def table_of(uid: str) -> str:
    return uid.split(".", 3)[3] if uid.startswith("source.") else uid.rsplit(".", 1)[-1]


def duckdb_verifier(project, path: Path):
    con = duckdb.connect(str(path), read_only=True)

    def name(uid: str) -> str:
        rel = project.relations[uid]
        return '"{}"."{}"'.format(rel.schema.replace('"', '""'), rel.identifier.replace('"', '""'))

    def col(c: str) -> str:
        return '"{}"'.format(c.replace('"', '""'))

    def verify(pairs):
        out = {}
        for child, parent in pairs:
            sql = (f"with c as (select distinct trim(cast({col(child.column)} as varchar)) v from {name(child.relation)} "
                   f"where {col(child.column)} is not null), p as (select distinct trim(cast({col(parent.column)} as varchar)) v "
                   f"from {name(parent.relation)}) select count(*), count(p.v) from c left join p on c.v = p.v")
            n, m = con.execute(sql).fetchone()
            out[(child, parent)] = ContainmentResult(child.relation, child.column, parent.relation, parent.column, n, m)
        return out

    return verify, con


#: Dirt variants this script's check measures as the package does. Composite keys (tuples) and
#: drifted types (1.0 against 1, '007' against 7: the package compares canonical text) need the
#: package's own verifier, so their rows here would label failed checks the package passes.
FAITHFUL_DIRT = ("orphans", "sampled_rows", "dense_surrogates", "tiny_dimensions", "calendar_keys")
#: The copy whose declared FKs are the truth: a convention's renamed copy, a dirt variant's dirty one.
TRUTH_FILES = ("renamed.sqlite", "dirty.sqlite")


def run_database(folder: Path) -> tuple | None:
    """(rows, score, accepted links (confidence, strict, lenient), missed FKs, wrong links)."""
    project_dir = folder / "project"
    truth_file = next((folder / n for n in TRUTH_FILES if (folder / n).exists()), folder / TRUTH_FILES[0])
    profiles_json = project_dir / "target" / "schema_link" / "profiles.json"
    if not (profiles_json.exists() and truth_file.exists() and (folder / "warehouse.duckdb").exists()):
        return None
    truth = databases.ground_truth(truth_file)
    project = read_project(project_dir / "target", require_catalog=True, project_dir=project_dir)
    profiles = stored_profiles(profiles_json, project)
    verify, con = duckdb_verifier(project, folder / "warehouse.duckdb")
    rows: dict[str, list[Row]] = {MEASURED: [], NAMES: []}
    index = {s: i for i, s in enumerate(FITTED_SIGNALS)}

    def inspect(scored) -> None:
        for s in scored:
            if s.block is not None or s.trap is not None:
                continue
            which = MEASURED if s.measured else NAMES
            x = np.zeros(len(FITTED_SIGNALS))
            exact = any(e.signal is Signal.EXACT_CONTAINMENT for e in s.evidence)
            for e in s.evidence:
                if e.signal in index and not (exact and e.signal is Signal.VALUE_CONTAINMENT_ESTIMATE):
                    x[index[e.signal]] = max(-1.0, min(1.0, e.strength))
            p = databases.pair((table_of(s.cand.child.ref.relation), s.cand.child.ref.column),
                               (table_of(s.cand.parent.ref.relation), s.cand.parent.ref.column))
            rows[which].append(Row(x, int(p in truth.pairs), s.confidence))

    try:
        links = discover(project, profiles, DiscoverySettings(), verify, inspect=inspect)
        discover(project, profiles, DiscoverySettings(), None, inspect=inspect)  # estimates only (no warehouse)
        discover(project, None, DiscoverySettings(), None, inspect=inspect)  # the names-only path
    finally:
        con.close()
    data = json.loads(links.to_json())
    found = found_pairs(data)
    sc = scoring.score(found, truth)
    parents = truth.parents_of()
    accepted = []
    for link in links.links:
        if link.kind is not LinkKind.INFERRED:
            continue
        p = databases.pair((table_of(link.child.relation), link.child.column),
                           (table_of(link.parent.relation), link.parent.column))
        strict = p in truth.pairs
        accepted.append((link.confidence, strict, strict or scoring.is_lenient_match(p, truth, parents), basis(link)))
    misses = sorted(tuple(sorted(p)) for p in truth.pairs - found)
    extras = sorted(tuple(sorted(p)) for p in found - truth.pairs if not scoring.is_lenient_match(p, truth, parents))
    return rows, sc, accepted, misses, extras


def fit(rows: list[Row], l2: float = L2, prior: np.ndarray | None = None,
        fixed: tuple[float, np.ndarray, int] | None = None) -> tuple[float, np.ndarray]:
    """Logistic regression with weights >= 0 (L-BFGS-B with bounds). The L2 penalty pulls each
    weight towards ``prior`` (default 0): a signal the corpus barely shows (SQL joins in a
    sources-only corpus, roles) keeps its prior instead of falling to 0. ``fixed`` (bias,
    weights, i): only weight ``i`` is fitted, the bias and every other weight held at the given
    table's (a new signal fitted without moving the decisions the shipped table makes)."""
    X = np.array([r.x for r in rows])
    y = np.array([r.y for r in rows], dtype=float)
    n, d = X.shape
    A = np.hstack([np.ones((n, 1)), X])
    centre = np.zeros(d + 1)
    if prior is not None:
        centre[1:] = prior
    reg = np.full(d + 1, l2)
    reg[0] = 0.0

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = A @ w
        # log(1 + e^z) - y z, computed stably
        value = np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(reg * (w - centre) ** 2)
        grad = A.T @ (expit(z) - y) + reg * (w - centre)
        return float(value), grad

    start = centre.copy()
    start[0] = -3.0
    bounds = [(None, None)] + [(0.0, None)] * d
    if fixed is not None:
        bias, weights, free = fixed
        start = np.concatenate([[bias], weights])
        bounds = [(v, v) for v in start]
        bounds[1 + free] = (0.0, None)
    result = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=bounds,
                      options={"maxiter": 1000})
    return float(result.x[0]), result.x[1:]


def write_table(fits: dict[str, tuple[float, np.ndarray, int, int]], source: str) -> None:
    """Write ``calibration.py``: the ``Table`` record and one fitted table per name in ``fits``
    ((bias, weights, rows, positives))."""
    lines = [
        '"""Evidence weights of join discovery, fitted by ``benchmarks/calibrate.py`` — do not edit by',
        "hand; rerun the script (``--write``) after changing what a signal measures.",
        "",
        f"Fitted on {source}. Logistic regression with non-negative weights and an L2 penalty towards",
        "the hand-set prior (signals the corpus barely shows keep it), one table for pairs whose",
        "values were measured and one for pairs judged on names alone; the script prints the",
        'reliability table of the held-back half."""',
        "",
        "from __future__ import annotations",
        "",
        "from dataclasses import dataclass, field",
        "",
        "from dbt_schema_link.discovery.records import Signal",
        "",
        "",
        "@dataclass(frozen=True)",
        "class Table:",
        '    """One fitted logistic model: prior log-odds, log-odds per unit of each signal\'s strength,',
        '    and the most log-odds name signals may add together (``None``: no cap)."""',
        "",
        "    bias: float",
        "    weights: dict[Signal, float] = field(default_factory=dict)",
        "    name_cap: float | None = None",
    ]
    for name, (bias, weights, n, positives) in fits.items():
        lines += ["", "", f"#: {n} scored candidate pairs, {positives} of them declared foreign keys.",
                  f"{name} = Table(bias={bias:.3f}, weights={{"]
        lines += [f"    Signal.{sig.name}: {wt:.3f}," for sig, wt in zip(FITTED_SIGNALS, weights)]
        lines.append("})")
    CALIBRATION_PY.write_text("\n".join(lines) + "\n")


class Basis(str, Enum):
    """What a link's confidence rests on, for the reliability table's rows within a bin: each
    basis fills the bins differently (value-only links stop at ``CAPS.value_fit_only``)."""

    NAMES_AND_VALUES = "names and values"
    VALUES_ALONE = "values alone"
    NAMES_ONLY = "names only"


def basis(link: Link) -> Basis:
    """Scored without values (``names_only``); with no name, SQL join or calendar saying the pair
    joins (values alone); or names (or SQL) and values together."""
    if link.names_only:
        return Basis.NAMES_ONLY
    spoken = has_name_signal(link.evidence) or any(
        e.signal in (Signal.SQL_JOIN, Signal.CALENDAR_KEY) for e in link.evidence)
    return Basis.NAMES_AND_VALUES if spoken else Basis.VALUES_ALONE


def reliability(accepted: list[tuple[float, bool, bool, Basis]]) -> list[str]:
    """Per confidence bin, the share of accepted links that are declared FKs (and lenient), then
    the same per basis (:func:`basis`)."""
    out = []
    for lo, hi in BINS:
        inside = [a for a in accepted if lo <= a[0] < hi]
        if not inside:
            out.append(f"  [{lo:.1f}, {min(hi, 1.0):.1f}]  n=0")
            continue
        strict = sum(a[1] for a in inside) / len(inside)
        lenient = sum(a[2] for a in inside) / len(inside)
        out.append(f"  [{lo:.1f}, {min(hi, 1.0):.1f}]  n={len(inside):4d}  declared FK {strict:.3f}  lenient {lenient:.3f}")
        for kind in Basis:
            part = [a for a in inside if a[3] is kind]
            if part:
                out.append(f"      {kind.value:18s} n={len(part):4d}  declared FK {sum(a[1] for a in part) / len(part):.3f}"
                           f"  lenient {sum(a[2] for a in part) / len(part):.3f}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, default=BENCH_DIR / "out" / "conventions")
    ap.add_argument("--conventions", nargs="+", help="convention folders (default: every prepared one)")
    ap.add_argument("--dirt-workdir", type=Path, help="also the dirt variants prepared by benchmarks/dirt.py "
                    "here (the same tuning and held-back halves)")
    ap.add_argument("--dirt-variants", nargs="+", default=list(FAITHFUL_DIRT),
                    help=f"those variants (default: {' '.join(FAITHFUL_DIRT)})")
    ap.add_argument("--write", action="store_true", help=f"write the fitted table to {CALIBRATION_PY}")
    ap.add_argument("--json", type=Path, help="write figures here")
    ap.add_argument("--misses", action="store_true", help="list missed and wrong links per database (stderr)")
    ap.add_argument("--only", metavar="SIGNAL", help="fit this signal's weight alone, the bias and every other "
                    "weight held at the shipped table's (a new signal, fitted without a joint refit)")
    args = ap.parse_args(argv)
    if not args.workdir.is_dir():
        print(f"error: {args.workdir} not found: run benchmarks/conventions.py --prepare-only first", file=sys.stderr)
        return 2
    conventions = args.conventions or sorted(p.name for p in args.workdir.iterdir() if p.is_dir() and p.name != "engines")
    folders = {conv: args.workdir / conv for conv in conventions}
    if args.dirt_workdir is not None:
        folders.update({f"dirt:{name}": args.dirt_workdir / name for name in args.dirt_variants
                        if (args.dirt_workdir / name).is_dir()})
    conventions = list(folders)
    halves = {"tuning": {n.lower() for n in TUNING}, "held_back": {n.lower() for n in HELD_BACK}}
    rows: dict[tuple[str, str], list[Row]] = defaultdict(list)  # (half, table)
    accepted: dict[str, list] = defaultdict(list)
    scores: dict[tuple[str, str], list[scoring.Score]] = defaultdict(list)
    for conv in conventions:
        for folder in sorted(folders[conv].iterdir()):
            half = next((h for h, names in halves.items() if folder.name.lower() in names), None)
            if half is None or not folder.is_dir():
                continue
            got = run_database(folder)
            if got is None:
                print(f"skip {conv}/{folder.name}: not prepared", file=sys.stderr)
                continue
            r, sc, acc, misses, extras = got
            for table, table_rows in r.items():
                rows[(half, table)] += table_rows
            accepted[half] += acc
            scores[(conv, half)].append(sc)
            print(f"{conv:15s} {folder.name:28s} rows {sum(len(v) for v in r.values()):5d} TP {sc.tp} "
                  f"found {sc.found} gold {sc.gold}", file=sys.stderr)
            if args.misses:
                for m in misses:
                    print(f"    missed {m}", file=sys.stderr)
                for e in extras:
                    print(f"    wrong  {e}", file=sys.stderr)
    print("\nrecall / precision / lenient precision with the weights in force (in-process, exact containment on DuckDB):")
    for conv in conventions:
        cells = []
        for half in halves:
            t = scoring.total(scores.get((conv, half), []))
            cells.append(f"{half} R {t.recall or 0:.3f} P {t.precision or 0:.3f} lenP {t.lenient_precision or 0:.3f}")
        print(f"  {conv:15s} " + " | ".join(cells))
    for half in halves:
        print(f"\nreliability, {half} half (accepted inferred links, all conventions above):")
        print("\n".join(reliability(accepted[half])))
    figures = {"conventions": conventions}
    prior = np.array([PRIOR[sig] for sig in FITTED_SIGNALS])
    fits: dict[str, tuple[float, np.ndarray, int, int]] = {}
    for table in (MEASURED, NAMES):
        train = rows.get(("tuning", table), [])
        if not train:
            continue
        if args.only:
            shipped = calibration.MEASURED if table == MEASURED else calibration.NAMES_ONLY
            free = FITTED_SIGNALS.index(Signal(args.only))
            bias, weights = fit(train, prior=prior, fixed=(
                shipped.bias, np.array([shipped.weights.get(s, PRIOR[s]) for s in FITTED_SIGNALS]), free))
        else:
            bias, weights = fit(train, prior=prior)
        if table == NAMES:  # nothing measured: those signals never occur there, keep the prior
            weights = np.where([sig in VALUE_SIGNALS for sig in FITTED_SIGNALS], prior, weights)
        positives = sum(r.y for r in train)
        fits[table] = (bias, weights, len(train), positives)
        print(f"\nfitted {table} on the tuning half ({len(train)} rows, {positives} FKs): bias {bias:.3f}")
        for sig, wt in zip(FITTED_SIGNALS, weights):
            print(f"  {sig.value:28s} {wt:.3f}")
        figures.setdefault("fit", {})[table] = {
            "bias": bias, "rows": len(train), "weights": {s.value: float(w) for s, w in zip(FITTED_SIGNALS, weights)}}
    if args.write and len(fits) == 2:
        alone = f" ({args.only} fitted alone, the bias and every other weight held)" if args.only else ""
        write_table(fits, f"the tuning half of {', '.join(conventions)}{alone}")
        print(f"wrote {CALIBRATION_PY}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
