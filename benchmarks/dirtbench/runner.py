"""One (variant, database) task: write the dirty copy, prepare the dbt project once, run `link`.

Layout under the work dir: `<workdir>/<variant>/<db>/`
    dirty.sqlite     the dirty copy (names and declared FKs unchanged: the truth)
    injected.json    the stamp it was made under and what was injected
    warehouse.duckdb, project/, logs/   fkbench's load and dbt project (sources only, no FKs)
    prepared.json    written once `dbt deps` + `dbt docs generate` succeeded on this stamp
    links.json       a copy of project/target/schema_link/links.json from the last link run

Reuse as in convbench.runner: the dirty copy only when its stamp changes, the DuckDB file and
the project only when the dirty copy changed; otherwise a run is one `dbt-schema-link link`.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from convbench.runner import RunOptions, _read_json, _write_json, point_package_at
from convbench.split import Half, half_of
from fkbench import product
from fkbench.databases import BenchDatabase, GroundTruth, Pair, ground_truth

from .data_says import DataSays, classify
from .inject import Variant, generate

#: Bump a variant's entry when its dirty file changes for the same seed: its stamps differ then.
GENERATOR_VERSION = {Variant.ORPHANS: 2, Variant.DRIFTED_TYPES: 1, Variant.TINY_DIMENSIONS: 1,
                     Variant.DENSE_SURROGATES: 1, Variant.COMPOSITE_KEYS: 2,
                     Variant.CALENDAR_KEYS: 1, Variant.SAMPLED_ROWS: 1}


@dataclass
class DirtResult:
    db: str
    collection: str
    variant: Variant
    half: Half | None
    truth: GroundTruth | None = None
    data_says: dict[Pair, DataSays] = field(default_factory=dict)
    run: product.ProductRun | None = None
    notes: list[str] = field(default_factory=list)
    prepared: bool = False
    error: str | None = None
    links_json: Path | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.run is not None and self.run.error is None and self.links_json is not None


def run_task(db: BenchDatabase, variant: Variant, opts: RunOptions) -> DirtResult:
    result = DirtResult(db.name, db.collection, variant, half_of(db.name))
    folder = opts.workdir / variant.value / db.name
    folder.mkdir(parents=True, exist_ok=True)
    dirty = folder / "dirty.sqlite"
    stat = db.path.stat()
    stamp = {"generator": GENERATOR_VERSION[variant], "variant": variant.value, "seed": opts.seed,
             "source": str(db.path.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    previous = _read_json(folder / "injected.json") or {}
    fresh = opts.rebuild or previous.get("stamp") != stamp or not dirty.exists()
    if fresh and opts.score_only:
        result.error = f"{dirty} is missing or stale: run without --score-only first"
        return result
    if fresh:
        (folder / "prepared.json").unlink(missing_ok=True)
        result.notes = generate(db.path, db.name, variant, dirty, opts.seed).notes
        _write_json(folder / "injected.json", {"stamp": stamp, "notes": result.notes})
    else:
        result.notes = previous.get("notes", [])
    result.truth = ground_truth(dirty)
    result.data_says = classify(dirty, result.truth)
    source = ground_truth(db.path).pairs
    # composite keys add a partition column pair to the FKs they change, calendar keys add date
    # keys; no variant drops one
    adds = variant in (Variant.COMPOSITE_KEYS, Variant.CALENDAR_KEYS)
    if result.truth.pairs != source and not (adds and source <= result.truth.pairs):
        raise AssertionError(f"{dirty}: declared FKs differ from the source's")

    if opts.score_only:
        kept = folder / "links.json"
        if not kept.exists():
            result.error = f"{kept} is missing: run without --score-only first"
            return result
        result.run = product.ProductRun(links_path=str(kept))
        result.run.pairs = product.found_pairs(json.loads(kept.read_text(encoding="utf-8")))
        result.links_json = kept
        return result

    project_dir = folder / "project"
    target = project_dir / "target"
    reusable = (not fresh and _read_json(folder / "prepared.json") == {"dirty": stamp}
                and (folder / "warehouse.duckdb").exists()
                and (target / "manifest.json").exists() and (target / "catalog.json").exists())
    run = product.ProductRun()
    if reusable:
        error = point_package_at(project_dir, opts.repo_root, folder / "logs", opts.timeout_s, run)
        if error:
            run.error, run.failed_phase = error, "deps"
    else:
        run = product.run_product(BenchDatabase(db.name, dirty, db.collection), folder, opts.repo_root,
                                  timeout_s=opts.timeout_s, run_link=False)
        result.prepared = True
        if not run.error:
            _write_json(folder / "prepared.json", {"dirty": stamp})
    result.run = run
    if run.error:
        return result
    (folder / "links.json").unlink(missing_ok=True)
    product.link_project(project_dir, folder / "logs", opts.timeout_s, opts.link_args, run=run)
    if run.error is None and run.links_path:
        shutil.copyfile(run.links_path, folder / "links.json")
        result.links_json = folder / "links.json"
    return result
