"""Run `schema-linker` 0.0.5's own CLI entry point and record the pairwise links it renders.

Executed by the peer's Python (its own virtual environment), never imported by the benchmark:
    python peer_runner.py --database FILE.sqlite --output DIR --links-json OUT.json
The CLI runs exactly as `schema-linker --db-type sqlite --database FILE --output DIR` would (it
writes DIR/main_schema_links.md); `schema_linker.core.infer_links` is wrapped only to keep a copy
of the `InferredLink` list it returns before rendering.
"""

import argparse
import json
import time

import schema_linker.core as core
from schema_linker import cli


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--links-json", required=True)
    args = parser.parse_args()

    recorded = []
    infer_links = core.infer_links

    def recording_infer_links(*a, **kw):
        links = infer_links(*a, **kw)
        recorded.extend(links)
        return links

    core.infer_links = recording_infer_links
    start = time.perf_counter()
    rc = cli.main(["--db-type", "sqlite", "--database", args.database, "--output", args.output])
    seconds = time.perf_counter() - start
    links = [{"source": [l.source.table, l.source.column], "target": [l.target.table, l.target.column],
              "containment": l.containment, "evidence": list(l.evidence)} for l in recorded]
    with open(args.links_json, "w", encoding="utf-8") as fh:
        json.dump({"seconds": seconds, "links": links}, fh, indent=1)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
