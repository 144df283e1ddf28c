"""Run `schema-linker` 0.0.5's own CLI entry point and record the pairwise links it renders.

Executed by the peer's Python (its own virtual environment), never imported by the benchmarks:
    python peer_runner.py --links-json OUT.json -- <schema-linker arguments>
e.g. `-- --db-type sqlite --database FILE --output DIR` (fk_recovery.py) or `-- --db-type postgres
--host ... --database bench --output DIR` (scale.py). The CLI runs exactly as `schema-linker <those
arguments>` would (it writes DIR/main_schema_links.md); `schema_linker.core.infer_links` is
wrapped only to keep a copy of the `InferredLink` list it returns before rendering.
"""

import json
import sys
import time

import schema_linker.core as core
from schema_linker import cli


def main() -> int:
    args = sys.argv[1:]
    if "--" not in args or "--links-json" not in args[:args.index("--")]:
        print("usage: peer_runner.py --links-json OUT.json -- <schema-linker arguments>", file=sys.stderr)
        return 2
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
    links = [{"source": [l.source.table, l.source.column], "target": [l.target.table, l.target.column],
              "containment": l.containment, "evidence": list(l.evidence)} for l in recorded]
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"seconds": seconds, "links": links}, fh, indent=1)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
