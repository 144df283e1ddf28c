"""The haystack project: Spider dev's 20 databases and BIRD superhero (the databases the
questions are asked of) and every database of `../shared/data/warehouse_large` (distractors) as
one dbt-duckdb project, one schema (and one dbt source) per database, sources only (no tests):
what a team has before `dbt-schema-link link`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from dbt_schema_link.evaluation.convert import write_project
from dbt_schema_link.evaluation.harness import Benchmark, bird_benchmark, dbt_version, spider_benchmark
from whbench.load import Table, load_duckdb, read_warehouse, write_sources

PROJECT = "haystack"
#: Bump when the project's layout changes, so a kept work dir is rebuilt.
LAYOUT_VERSION = 1


@dataclass(frozen=True)
class Haystack:
    project: Path
    benches: tuple[Benchmark, ...]  # the question sets (their databases are in the project)
    distractors: tuple[Table, ...]  # the warehouse_large tables beside them

    def sizes(self) -> dict:
        question_cols = sum(len(t.columns) for b in self.benches for s in b.specs for t in s.tables)
        return {"question_databases": sum(len(b.specs) for b in self.benches),
                "distractor_databases": len({t.database for t in self.distractors}),
                "distractor_tables": len(self.distractors),
                "distractor_columns": sum(len(t.columns) for t in self.distractors),
                "question_columns": question_cols}


def read_haystack(data: Path, project: Path, limit_databases: int | None) -> Haystack:
    benches = (spider_benchmark(data), bird_benchmark(data, hints=True))
    distractors = tuple(read_warehouse(data / "warehouse_large", limit_databases))
    asked = {s.db_id.lower() for b in benches for s in b.specs}
    clash = asked & {t.database for t in distractors}
    if clash:  # one schema per database: a shared name would merge two databases
        raise SystemExit(f"haystack: database names in both sets: {sorted(clash)}")
    return Haystack(project, benches, distractors)


def marker(hay: Haystack) -> str:
    return json.dumps({"v": LAYOUT_VERSION, **hay.sizes()}, sort_keys=True)


def write_haystack(hay: Haystack, repo: Path) -> None:
    """The dbt project and its DuckDB file (question databases first, then the distractors)."""
    specs = [s for b in hay.benches for s in b.specs]
    write_project(specs, hay.project, project_name=PROJECT, dbt_version=dbt_version(), package_dir=repo,
                  declared_tests=False)
    load_duckdb(list(hay.distractors), hay.project / "warehouse.duckdb", fresh=False)
    write_sources(list(hay.distractors), hay.project / "models" / "distractors")
