"""Render a :class:`LinkSet` as Markdown (``links.md``): inferred links (child -> parent,
confidence, cardinality, evidence summary), declared links, lineage, value domains, and the
candidates rejected as traps. Deterministic output (the LinkSet is sorted first)."""

from __future__ import annotations

from collections.abc import Callable

from dbt_schema_link.artifacts.records import ColumnRef, Project
from dbt_schema_link.confidence import confidence_text
from dbt_schema_link.discovery.records import Link, LinkSet, Trap
from dbt_schema_link.discovery.scoring import breakdown


#: Rejections that are not traps: pairs names or SQL join, kept out by their values only.
_SHORTFALL_SECTIONS = (
    (Trap.CONTRADICTED, "Named, contradicted by data"),
    (Trap.CONTAINMENT_FAILED, "Named or joined, values fall short"),
)
_SHORTFALL_TRAPS = frozenset(trap for trap, _ in _SHORTFALL_SECTIONS)


def render_markdown(links: LinkSet, project: Project | None = None, title: str | None = None) -> str:
    """``links.md``. With ``project``, relations are shown by their dbt names (``stg_orders``)
    instead of unique ids."""
    links.sort()
    _ref = _namer(project)
    name = title or (f"Joins in {links.project_name}" if links.project_name else "Joins")
    out: list[str] = [f"# {name}", ""]
    counts = links.counts
    out.append(
        f"{len(links.inferred)} inferred, {len(links.declared)} declared and {len(links.lineage)} "
        f"lineage links over {counts.get('relations', 0)} relations and {counts.get('columns', 0)} "
        f"columns; {len(links.domains)} value domains. Inferred links need confidence >= "
        f"{links.settings.min_confidence:g}."
    )
    out.append("")
    for note in links.notes:
        out.append(f"> {_cell(note)}")
    if links.notes:
        out.append("")

    out += ["## Inferred links", ""]
    inferred = sorted(links.inferred, key=lambda l: (-l.confidence, l.sort_key()))
    if inferred:
        out.append("| child | parent | confidence | provenance | cardinality | evidence |")
        out.append("|---|---|---:|---|---|---|")
        for link in inferred:
            child, parent = _ends(link, _ref)
            out.append(
                f"| `{child}` | `{parent}` | {confidence_text(link.confidence)} | "
                f"{_cell(link.provenance_text())} | {link.cardinality.value} | {_cell(_evidence_summary(link))} |"
            )
        out.append("")
        out += ["### Why", ""]
        for link in inferred:
            child, parent = _ends(link, _ref)
            out.append(f"- `{child}` -> `{parent}` ({confidence_text(link.confidence)}): "
                       f"{_cell(breakdown(link.evidence, measured=not link.names_only))}")
            if link.is_composite:
                out.append(f"  - composite key of {len(link.column_pairs())} columns: the child's tuple references "
                           "the parent's unique tuple (written as a schema_link_composite_relationship test)")
            for e in link.evidence:
                out.append(f"  - {e.signal.value} ({e.strength:+.2f}): {_cell(e.detail)}")
            if link.orphans is not None:
                rows = f" in {link.orphans.rows} child rows" if link.orphans.rows is not None else ""
                out.append(f"  - partial link: {link.orphans.values} of {link.orphans.of_values} child values "
                           f"({link.orphans.share:.1%}) are orphans{rows}; a written test tolerates today's count")
            if link.collapsed:
                copies = ", ".join(f"`{_ref(c)}` -> `{_ref(p)}`" for c, p in link.collapsed[:5])
                more = f" and {len(link.collapsed) - 5} more" if len(link.collapsed) > 5 else ""
                out.append(f"  - also holds for lineage copies: {copies}{more}")
        out.append("")
    else:
        out += ["None.", ""]

    out += ["## Declared links", ""]
    if links.declared:
        out.append("| child | parent | declared by | cardinality |")
        out.append("|---|---|---|---|")
        for link in links.declared:
            origins = ", ".join(o.value for o in link.origins)
            out.append(f"| `{_ref(link.child)}` | `{_ref(link.parent)}` | {origins} | {link.cardinality.value} |")
        out.append("")
    else:
        out += ["None.", ""]

    out += ["## Lineage (copies, not joins)", ""]
    if links.lineage:
        out.append("| column | copied from |")
        out.append("|---|---|")
        for link in links.lineage:
            out.append(f"| `{_ref(link.child)}` | `{_ref(link.parent)}` |")
        out.append("")
    else:
        out += ["None.", ""]

    out += ["## Value domains", ""]
    if links.domains:
        for d in links.domains:
            members = ", ".join(f"`{_ref(m)}`" for m in d.members if m != d.anchor)
            out.append(f"- **`{_ref(d.anchor)}`**: {members}")
        out.append("")
    else:
        out += ["None.", ""]

    # the schema says these join; never a link, never a written test
    for trap, title in _SHORTFALL_SECTIONS:
        shown = [r for r in links.rejected if r.trap is trap]
        if shown:
            out += [f"## {title}", ""]
            out.append("| child | parent | names alone would score | what the data says |")
            out.append("|---|---|---:|---|")
            for r in shown:
                out.append(f"| `{_ref(r.child)}` | `{_ref(r.parent)}` | {confidence_text(r.would_be_confidence)} | "
                           f"{_cell(r.detail)} |")
            out.append("")
    traps = [r for r in links.rejected if r.trap not in _SHORTFALL_TRAPS]
    out += ["## Rejected (traps)", ""]
    if traps:
        out.append("| child | parent | trap | would have scored | why |")
        out.append("|---|---|---|---:|---|")
        for r in traps:
            out.append(f"| `{_ref(r.child)}` | `{_ref(r.parent)}` | {r.trap.value} | "
                       f"{confidence_text(r.would_be_confidence)} | {_cell(r.detail)} |")
        out.append("")
    else:
        out += ["None.", ""]
    return "\n".join(out).rstrip() + "\n"


def _namer(project: Project | None) -> Callable[[ColumnRef], str]:
    names: dict[str, str] = {}
    if project is not None:
        short = {}
        for uid, rel in project.relations.items():
            short.setdefault(rel.short_name, []).append(uid)
        for name, uids in short.items():
            for uid in uids:  # fall back to the node name / unique id where short names clash
                names[uid] = name if len(uids) == 1 else project.relations[uid].name
    return lambda ref: f"{names.get(ref.relation, ref.relation)}.{ref.column}"


def _ends(link: Link, ref: Callable[[ColumnRef], str]) -> tuple[str, str]:
    """``rooms.floor`` / ``bins.floor``; a composite key as ``rooms(floor, code)`` / ``bins(floor, code)``."""
    if not link.is_composite:
        return ref(link.child), ref(link.parent)
    pairs = link.column_pairs()

    def side(cols: list[ColumnRef]) -> str:
        relation = ref(cols[0]).rsplit(".", 1)[0]
        return f"{relation}({', '.join(c.column for c in cols)})"

    return side([c for c, _ in pairs]), side([p for _, p in pairs])


def _evidence_summary(link: Link) -> str:
    items = sorted(link.evidence, key=lambda e: -abs(e.contribution))
    return ", ".join(f"{e.signal.value} {e.contribution:+.1f}" for e in items if e.contribution)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
