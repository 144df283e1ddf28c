"""The DAG of a project's relations: each relation's parents and its depth (sources and seeds 0).

Discovery reads depths to prefer the layer a join is meaningful at; the question index reads them
to keep join completion inside one layer.
"""

from __future__ import annotations

from dbt_schema_link.artifacts.records import Project


def relation_depths(project: Project) -> dict[str, int]:
    """DAG depth of each relation (sources/seeds 0), iteratively (no recursion limit)."""
    parents = relation_parents(project)
    depth: dict[str, int] = {}
    for start in sorted(project.relations):
        if start in depth:
            continue
        stack = [(start, False)]
        on_path: set[str] = set()
        while stack:
            node, done = stack.pop()
            if done:
                on_path.discard(node)
                depth[node] = 1 + max((depth.get(p, 0) for p in parents[node]), default=-1)
                continue
            if node in depth or node in on_path:
                continue
            on_path.add(node)
            stack.append((node, True))
            for p in parents[node]:
                if p not in depth and p not in on_path:
                    stack.append((p, False))
    return depth


def relation_parents(project: Project) -> dict[str, list[str]]:
    parents: dict[str, list[str]] = {}
    for uid, rel in project.relations.items():
        ps = project.parent_map.get(uid) if project.parent_map else None
        parents[uid] = [p for p in (ps if ps is not None else rel.depends_on) if p in project.relations]
    return parents
