"""Where the inferred (user-path) condition differs from the declared one.

Links: the benchmark's declared FKs against what `dbt-schema-link link` wrote to links.json
(unordered column pairs; a link across schemas is a link between two databases, always wrong
on these benchmarks). Questions: every question strict under one condition and not the other,
put in one miss category.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

Col = tuple[str, str, str]  # (schema, table, column), lower case


def _col(ref: dict) -> Col:
    # source unique_id: source.<project>.<source = schema>.<table>
    parts = ref["relation"].split(".", 3)
    return (parts[2].lower(), parts[3].lower(), ref["column"].lower())


@dataclass
class LinkDiff:
    declared: int
    inferred: int
    found: int  # declared FKs the inferred links contain (either direction)
    missing: list[tuple[Col, Col]] = field(default_factory=list)
    extra: list[tuple[Col, Col, float]] = field(default_factory=list)  # within a schema, not declared
    cross: list[tuple[Col, Col, float]] = field(default_factory=list)  # between two schemas

    def lines(self) -> list[str]:
        out = [f"links: declared {self.declared}, inferred {self.inferred}, declared found {self.found} "
               f"({self.found / max(1, self.declared):.3f}), missing {len(self.missing)}, extra within a schema "
               f"{len(self.extra)}, across schemas {len(self.cross)}"]
        for a, b, c in self.cross:
            out.append(f"  across: {'.'.join(a)} -> {'.'.join(b)} ({c:.3f})")
        return out


def link_diff(specs, links_json: Path) -> LinkDiff:
    declared = set()
    for spec in specs:
        s = spec.db_id.lower()
        for ct, cc, pt, pc in spec.foreign_keys:
            declared.add(frozenset({(s, ct.lower(), cc.lower()), (s, pt.lower(), pc.lower())}))
    links = json.loads(Path(links_json).read_text(encoding="utf-8")).get("links", [])
    inferred: dict[frozenset, tuple[Col, Col, float]] = {}
    for link in links:
        if link.get("kind") == "lineage":
            continue
        a, b = _col(link["child"]), _col(link["parent"])
        inferred[frozenset({a, b})] = (a, b, float(link.get("confidence", 0.0)))
    diff = LinkDiff(len(declared), len(inferred), len(declared & set(inferred)))
    diff.missing = sorted(tuple(sorted(p)) for p in declared - set(inferred))
    for key, (a, b, conf) in sorted(inferred.items(), key=lambda kv: sorted(kv[0])):
        if key in declared:
            continue
        (diff.cross if a[0] != b[0] else diff.extra).append((a, b, conf))
    return diff


def miss_category(r) -> str:
    """One word for why a question is not strict."""
    if r.predicted_db is not None and r.predicted_db.lower() != r.db.lower():
        return "wrong unit"
    if not r.gold.tables <= r.predicted_tables:
        return "missing table"
    return "missing column"


def compare(declared: list, inferred: list) -> list[str]:
    """Questions strict in one condition only, by miss category of the failing one."""
    by_id = {r.id: r for r in declared}
    lost: Counter = Counter()
    gained: Counter = Counter()
    for r in inferred:
        d = by_id.get(r.id)
        if d is None:
            continue
        if d.strict and not r.strict:
            lost[miss_category(r)] += 1
        elif r.strict and not d.strict:
            gained[miss_category(d)] += 1
    fmt = lambda c: ", ".join(f"{k} {v}" for k, v in c.most_common()) or "none"  # noqa: E731
    return [f"strict under declared only: {sum(lost.values())} ({fmt(lost)})",
            f"strict under inferred only: {sum(gained.values())} ({fmt(gained)})"]


def categories(results: list) -> str:
    c = Counter(miss_category(r) for r in results if not r.strict)
    return ", ".join(f"{k} {v}" for k, v in c.most_common()) or "none"
