"""Run `schema-linker` 0.0.5's own CLI entry point on PostgreSQL and record the pairwise links it
renders (as `fkbench/peer_runner.py` does for SQLite). Executed by the peer's Python (its own
virtual environment), never imported by the benchmark:

    python peer_pg_runner.py --links-json OUT.json -- <schema-linker arguments>
"""

import json
import sys
import time

import schema_linker.core as core
from schema_linker import cli


def main() -> int:
    args = sys.argv[1:]
    split = args.index("--")
    out, cli_args = args[args.index("--links-json") + 1], args[split + 1:]
    recorded = []
    infer_links = core.infer_links

    def recording_infer_links(*a, **kw):
        links = infer_links(*a, **kw)
        recorded.extend(links)
        return links

    core.infer_links = recording_infer_links
    start = time.perf_counter()
    rc = cli.main(cli_args)
    seconds = time.perf_counter() - start
    links = [{"source": [l.source.table, l.source.column], "target": [l.target.table, l.target.column]}
             for l in recorded]
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"seconds": seconds, "links": links}, fh, indent=1)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
