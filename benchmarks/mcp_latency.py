"""Tool latency of `dbt-schema-link mcp` beside the CLI's `ask`, on a built project.

An agent calls find_schema many times in one session: the server loads the index and the
embedding model once, so a call costs the linking alone plus a protocol round trip. The CLI pays
the interpreter, the imports and the model load on every question. This prints both:

- MCP: the official SDK's stdio client starts `dbt-schema-link mcp`, initializes (timed apart:
  start-up), then `--calls` find_schema calls, each timed from request to parsed result;
- CLI: `--cli-runs` runs of `dbt-schema-link ask "..." --no-refresh` as subprocesses, each
  timed end to end (what a tool that shells out per question pays).

Questions cycle through the example's questions. The index must not need a rebuild (run
`dbt-schema-link index` first; the MCP start-up would otherwise include it).

    make demo && .venv/bin/dbt-schema-link index --project-dir examples/shop
    .venv/bin/python benchmarks/mcp_latency.py --project-dir examples/shop
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXE = str(Path(sys.executable).parent / "dbt-schema-link")
QUESTIONS = [
    "How many support tickets did each customer open?",
    "How many orders did each store take last year?",
    "Which products have the best average review rating?",
    "Total revenue per product category",
    "Which support tickets are still open for orders that were cancelled?",
    "How many active customers are there per country?",
]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _summary(name: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (f"{name:<28} n={len(ms):>3}  p50 {statistics.median(ms):9.1f} ms  p90 {_percentile(ms, 0.9):9.1f} ms  "
            f"min {min(ms):9.1f} ms  max {max(ms):9.1f} ms")


def mcp_calls(project_args: list[str], calls: int, budget: int) -> tuple[float, list[float], list[float]]:
    """(start-up seconds, per-call round trips, the linker's own latency_ms per call / 1000)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=EXE, args=["mcp", "--quiet", *project_args])

    async def run():
        rounds, inner = [], []
        with open("/dev/null", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    t0 = time.perf_counter()
                    await session.initialize()
                    await session.list_tools()
                    startup = time.perf_counter() - t0
                    for i in range(calls):
                        question = QUESTIONS[i % len(QUESTIONS)]
                        t = time.perf_counter()
                        result = await session.call_tool("find_schema", {"question": question, "budget": budget})
                        rounds.append(time.perf_counter() - t)
                        if result.is_error:
                            raise SystemExit(f"find_schema failed: {result.content[0].text}")
                        inner.append(result.structured_content["latency_ms"] / 1000)
        return startup, rounds, inner

    return anyio.run(run)


def cli_runs(project_args: list[str], runs: int, budget: int) -> list[float]:
    out = []
    for i in range(runs):
        t = time.perf_counter()
        subprocess.run([EXE, "ask", QUESTIONS[i % len(QUESTIONS)], "--no-refresh", "--quiet", "--budget", str(budget),
                        *project_args], check=True, capture_output=True)
        out.append(time.perf_counter() - t)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--project-dir", default=str(REPO / "examples" / "shop"))
    p.add_argument("--profiles-dir", default=None, help="default: the project directory")
    p.add_argument("--target", default=None)
    p.add_argument("--calls", type=int, default=50, help="find_schema calls in one MCP session (default 50)")
    p.add_argument("--cli-runs", type=int, default=50, help="`ask` subprocess runs (default 50)")
    p.add_argument("--budget", type=int, default=2048)
    args = p.parse_args()
    project = Path(args.project_dir).resolve()
    if not (project / "target" / "schema_link" / "index" / "index.json").exists():
        print(f"no index under {project}/target/schema_link: run `dbt-schema-link index --project-dir {project}` first")
        return 1
    project_args = ["--project-dir", str(project), "--profiles-dir", str(Path(args.profiles_dir or project).resolve())]
    if args.target:
        project_args += ["--target", args.target]
    startup, rounds, inner = mcp_calls(project_args, args.calls, args.budget)
    cli = cli_runs(project_args, args.cli_runs, args.budget) if args.cli_runs else []
    print(f"find_schema over MCP stdio vs `dbt-schema-link ask` ({project.name}, budget {args.budget})")
    print(f"{'MCP server start-up':<28} {startup * 1000:9.1f} ms  (once per session: initialize + tools/list)")
    print(_summary("MCP find_schema round trip", rounds))
    print(_summary("  of which linking", inner))
    if cli:
        print(_summary("CLI ask (one process each)", cli))
        print(f"p50 ratio CLI / MCP: {statistics.median(cli) / statistics.median(rounds):.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
