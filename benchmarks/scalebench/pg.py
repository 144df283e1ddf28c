"""The side-by-side: size S loaded into a throwaway local PostgreSQL, then `schema-linker` 0.0.5
and this product (through dbt-postgres) run against the same database, one after the other,
each timed with its peak memory (whole process tree) and scored against the planted joins.

The peer sees the source schemas only (it runs before dbt builds the staging views); the
product sees sources and models, and its links on model columns are scored through lineage.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import duck, measure
from .spec import Warehouse
from .truth import links_pairs, score_pairs

REPO = Path(__file__).resolve().parents[2]


def _psql(server, args: list[str], dbname: str = "bench") -> None:
    cmd = ["psql", "-h", server.host, "-p", str(server.port), "-U", server.user, "-d", dbname,
           "-v", "ON_ERROR_STOP=1", "-q", *args]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"psql failed: {res.stderr.strip()[-1000:]}")


def load(server, w: Warehouse, duckdb_path: Path, work: Path) -> float:
    start = time.perf_counter()
    server.create_database("bench")
    ddl = work / "schema.sql"
    ddl.write_text(duck.pg_ddl(w), encoding="utf-8")
    _psql(server, ["-f", str(ddl)])
    files = duck.export_csv(w, duckdb_path, work / "csv")
    script = work / "copy.sql"
    script.write_text("".join(
        f"\\copy {w.rel(name).schema}.{name} FROM '{path}' WITH (FORMAT csv)\n" for name, path in files.items())
        + "ANALYZE;\n", encoding="utf-8")
    _psql(server, ["-f", str(script)])
    shutil.rmtree(work / "csv", ignore_errors=True)
    return time.perf_counter() - start


def peer_labels(markdown: str) -> set[frozenset]:
    """Pairs from the peer's Markdown report (all pairs inside each group, its own reading),
    with `schema.table.column` labels reduced to (table, column)."""
    from fkbench.peer import report_groups  # noqa: PLC0415 (benchmarks/ is on sys.path)

    out = set()
    for group in report_groups(markdown):
        cols = []
        for t, c in group:
            if "." in c:  # schema.table.column
                t, c = c.split(".", 1)
            cols.append((t.lower(), c.lower()))
        for i, a in enumerate(cols):
            for b in cols[i + 1:]:
                if a != b:
                    out.add(frozenset((a, b)))
    return out


def run_peer(server, w: Warehouse, work: Path, peer_venv: Path, timeout: float, log) -> dict:
    from fkbench.peer import RUNNER, ensure_peer  # noqa: PLC0415

    python = ensure_peer(peer_venv, log)
    out_dir = work / "peer"
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    links_json = out_dir / "inferred_links.json"
    cmd = [str(python), str(RUNNER), "--links-json", str(links_json), "--",
           "--db-type", "postgres", "--host", server.host, "--port", str(server.port),
           "--user", server.user, "--password", "unused", "--database", "bench", "--output", str(out_dir)]
    log("side-by-side: schema-linker 0.0.5 on PostgreSQL ...")
    m = measure.run(cmd, log=work / "peer.log", timeout=timeout, limit_mib=8000)
    result = {"peer_seconds": round(m.seconds, 2), "peer_peak_mib": m.peak_mib, "peer_returncode": m.returncode,
              "peer_timed_out": m.timed_out}
    reports = sorted(out_dir.glob("*.md"))
    if m.returncode != 0 or not reports:
        result["peer_error"] = (work / "peer.log").read_text(errors="replace")[-1500:]
        return result
    found = set()
    for report in reports:
        found |= peer_labels(report.read_text(encoding="utf-8"))
    score = score_pairs(w, found)
    result.update({"peer_recall": score.recall, "peer_precision": score.precision,
                   "peer_lenient_precision": score.lenient_precision, "peer_score": score.to_dict(10),
                   "peer_report": [str(r) for r in reports]})
    # it reads one schema at a time: its recall on the joins inside one schema, for fairness
    same = [p for p in w.planted if w.rel(p.child[0]).schema == w.rel(p.parent[0]).schema]
    inside = score_pairs(Warehouse(w.size, w.seed, w.relations, same, w.copies), found)
    result["peer_recall_within_schema"] = inside.recall
    result["planted_within_schema"] = len(same)
    if links_json.exists():  # the second reading: its pairwise links, not every pair of a group
        data = json.loads(links_json.read_text(encoding="utf-8"))
        edges = {frozenset(((_table(l["source"][0]), l["source"][1].lower()),
                            (_table(l["target"][0]), l["target"][1].lower()))) for l in data["links"]}
        edge_score = score_pairs(w, edges)
        result.update({"peer_edges_recall": edge_score.recall, "peer_edges_precision": edge_score.precision,
                       "peer_edges_found": edge_score.found, "peer_inner_seconds": round(data["seconds"], 2)})
    return result


def _table(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower()


def run_product(server, w: Warehouse, duck_project: Path, work: Path, timeout: float, log) -> dict:
    project = work / "project_pg"
    shutil.rmtree(project, ignore_errors=True)
    shutil.copytree(duck_project, project, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update({"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1",
                "SCALEBENCH_PG_HOST": server.host, "SCALEBENCH_PG_PORT": str(server.port),
                "SCALEBENCH_PG_USER": server.user, "SCALEBENCH_PG_DBNAME": "bench"})
    dbt = str(Path(sys.executable).with_name("dbt"))
    common = ["--project-dir", str(project), "--profiles-dir", str(project), "--target", "postgres"]
    log("side-by-side: dbt deps / run / docs generate on PostgreSQL (preparation, not timed) ...")
    for step in (["deps"], ["run"], ["docs", "generate"]):
        res = subprocess.run([dbt, *step, *common], cwd=project, env=env, capture_output=True, text=True)
        if res.returncode != 0:
            return {"product_error": f"dbt {' '.join(step)}: {res.stdout[-1500:]}"}
    log("side-by-side: dbt-schema-link link on PostgreSQL ...")
    exe = str(Path(sys.executable).with_name("dbt-schema-link"))
    m = measure.run([exe, "link", *common, "--format", "json", "--quiet"], cwd=project, env=env,
                    log=work / "product_pg.log", timeout=timeout, limit_mib=8000)
    result = {"product_seconds": round(m.seconds, 2), "product_peak_mib": m.peak_mib,
              "product_returncode": m.returncode, "product_timed_out": m.timed_out}
    links = project / "target" / "schema_link" / "links.json"
    if not links.exists():
        result["product_error"] = (work / "product_pg.log").read_text(errors="replace")[-1500:]
        return result
    score = score_pairs(w, links_pairs(json.loads(links.read_text(encoding="utf-8"))))
    result.update({"product_recall": score.recall, "product_precision": score.precision,
                   "product_lenient_precision": score.lenient_precision, "product_score": score.to_dict(10)})
    return result


def side_by_side(w: Warehouse, duckdb_path: Path, duck_project: Path, work: Path, peer_venv: Path,
                 timeout: float, log) -> dict:
    sys.path.insert(0, str(REPO))
    from tests.support.pgserver import PostgresUnavailable, postgres_server  # noqa: PLC0415

    work.mkdir(parents=True, exist_ok=True)
    try:
        with postgres_server() as server:
            log(f"side-by-side: PostgreSQL on port {server.port}; loading S ...")
            out = {"pg_load_seconds": round(load(server, w, duckdb_path, work), 2)}
            out.update(run_peer(server, w, work, peer_venv, timeout, log))
            out.update(run_product(server, w, duck_project, work, timeout, log))
            return out
    except PostgresUnavailable as exc:
        return {"side_by_side_error": f"PostgreSQL not available: {exc}"}
