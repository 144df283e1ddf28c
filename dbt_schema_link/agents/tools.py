"""The four agent tools over one opened index: each checks its arguments, answers with readable
text plus a JSON record (the shapes in schemas.py), and raises `ToolError` with one line naming
the fix for anything the caller got wrong (an unknown relation names the closest ones). No
protocol here: mcp_server.py turns results and errors into MCP tool results."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from dbt_schema_link.agents.evidence import pair_key
from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.agents.schemas import TOOL_SPECS, ToolName, ToolSpec
from dbt_schema_link.agents.session import AgentSession, Loaded
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.linker.answer import JoinPick
from dbt_schema_link.linker.graph import edge_weight
from dbt_schema_link.links import CONFIDENCE_BARS, Evidence, Provenance

#: join_path searches chains up to this cost (a hop costs 1 - ln(confidence) plus 1 for the
#: relation it enters: 2 for a certain link), so about a dozen hops at most.
JOIN_PATH_MAX_COST = 40.0
#: Frequent values shown per column by describe_relation.
FREQUENT_VALUES = 10
#: Evidence items named per link in readable text (all of them are in the JSON).
TEXT_SIGNALS = 3
_DECLARED_EVIDENCE = {"signal": "declared", "strength": 1.0, "contribution": 0.0,
                      "detail": "declared in the project (a relationships test, constraint or semantic entity)"}


class ToolError(SchemaLinkError):
    """The caller's arguments cannot be answered; the message says what to pass instead."""


@dataclass
class ToolResult:
    text: str  # what a person (or the model) reads
    data: dict[str, Any]  # the structured result, matching the tool's output schema


# --- arguments ---------------------------------------------------------------------------------


def _check_arguments(spec: ToolSpec, args: Mapping[str, Any]) -> None:
    known = spec.input_schema["properties"]
    unknown = sorted(set(args) - set(known))
    if unknown:
        raise ToolError(f"{spec.name.value} has no argument {', '.join(map(repr, unknown))}: "
                        f"it takes {', '.join(known)}")
    for key in spec.input_schema.get("required", []):
        if args.get(key) is None:
            raise ToolError(f"{spec.name.value} needs `{key}`: {known[key]['description']}")


def _text(args: Mapping[str, Any], key: str) -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"`{key}` must be non-empty text, not {value!r}")
    return value.strip()


def _integer(args: Mapping[str, Any], key: str, minimum: int) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or int(value) != value or value < minimum:
        raise ToolError(f"`{key}` must be a whole number of at least {minimum}, not {value!r}")
    return int(value)


def _fraction(args: Mapping[str, Any], key: str) -> float | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ToolError(f"`{key}` must be a number from 0 to 1, not {value!r}")
    return float(value)


def _flag(args: Mapping[str, Any], key: str) -> bool:
    value = args.get(key, False)
    if not isinstance(value, bool):
        raise ToolError(f"`{key}` must be true or false, not {value!r}")
    return value


# --- the tools ---------------------------------------------------------------------------------


class AgentTools:
    """Answers tool calls from one `AgentSession`; `default_budget` is the find_schema token budget
    when a call gives none (None: the session's)."""

    specs = TOOL_SPECS

    def __init__(self, session: AgentSession, default_budget: int | None = None):
        self.session = session
        self.default_budget = default_budget
        self._handlers: dict[ToolName, Callable[[Loaded, Mapping[str, Any]], ToolResult]] = {
            ToolName.FIND_SCHEMA: self.find_schema,
            ToolName.JOIN_PATH: self.join_path,
            ToolName.DESCRIBE_RELATION: self.describe_relation,
            ToolName.LIST_LINKS: self.list_links,
        }

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolResult:
        try:
            tool = ToolName(name)
        except ValueError:
            raise ToolError(f"no tool named {name!r}: the tools are {', '.join(t.value for t in ToolName)}") from None
        spec = next(s for s in self.specs if s.name is tool)
        args = dict(arguments or {})
        _check_arguments(spec, args)
        return self._handlers[tool](self.session.current(), args)

    # find_schema -------------------------------------------------------------------------------

    def find_schema(self, loaded: Loaded, args: Mapping[str, Any]) -> ToolResult:
        question, hint, database = _text(args, "question"), _text(args, "hint"), _text(args, "database")
        budget = _integer(args, "budget", 1) or self.default_budget
        link = loaded.link if budget is None else replace(loaded.link, budget=budget)
        if database is not None and not link.index.group_index(database):
            groups = ", ".join(g.key for g in link.index.corpus.groups[:8])
            raise ToolError(f"no indexed database, schema or project is named {database!r}: use one of {groups}")
        answer = link.ask(question, hint, database)
        text = answer.context
        note = answer.choices_note("`database`")
        if note:
            text += f"\n\nnote: {note}"
        return ToolResult(text, answer.to_dict())

    # join_path ---------------------------------------------------------------------------------

    def _relation(self, loaded: Loaded, name: str, argument: str) -> int:
        found = loaded.names.find(name)
        if len(found.matches) == 1:
            return found.matches[0]
        rels = loaded.link.index.corpus.relations
        if found.matches:
            uids = ", ".join(rels[i].unique_id for i in found.matches[:5])
            raise ToolError(f"`{argument}` {name!r} names several relations ({uids}): pass one unique_id")
        closest = ", ".join(found.closest) or "none (the index is empty)"
        raise ToolError(f"no relation named {name!r} (`{argument}`): the closest are {closest}")

    def _link(self, loaded: Loaded, edge_id: int) -> dict[str, Any]:
        corpus = loaded.link.index.corpus
        edge = loaded.link.index.graph.edges[edge_id]
        cc, pc = corpus.columns[edge.child], corpus.columns[edge.parent]
        cr, pr = corpus.relations[cc.relation], corpus.relations[pc.relation]
        out = JoinPick.of(edge_id, edge, corpus).to_dict()
        record = loaded.evidence.for_pair(pair_key(cr.unique_id, cc.name, pr.unique_id, pc.name))
        out["cardinality"] = record.cardinality.value if record else None
        out["evidence"] = [e.to_json() for e in record.evidence] if record else (
            [dict(_DECLARED_EVIDENCE)] if edge.provenance is Provenance.DECLARED else [])
        return out

    def join_path(self, loaded: Loaded, args: Mapping[str, Any]) -> ToolResult:
        start, end = self._relation(loaded, args["from"], "from"), self._relation(loaded, args["to"], "to")
        rels = loaded.link.index.corpus.relations
        data: dict[str, Any] = {"from": _relation_ref(rels[start]), "to": _relation_ref(rels[end]),
                                "found": True, "hops": [], "cost": 0.0}
        a, b = rels[start].identifier, rels[end].identifier
        if start == end:
            return ToolResult(f"{a} and {b} are the same relation: no join needed", data)
        graph = loaded.link.index.graph
        # the graph keeps paths inside one layer (graph.CROSS_LAYER_COST): marts join through staging
        tree, unconnected = graph.steiner_tree([start, end], max_hops_cost=JOIN_PATH_MAX_COST)
        if unconnected or not tree:
            data.update(found=False, cost=None)
            return ToolResult(f"no chain of declared or inferred links joins {a} to {b}", data)
        node, hops = start, []
        remaining = set(tree)
        while node != end and remaining:  # the pruned two-terminal tree is one path: walk it
            e = next(e for e in remaining if node in graph.endpoints(e))
            remaining.discard(e)
            child, parent = graph.endpoints(e)
            nxt = parent if child == node else child
            hops.append({"from": rels[node].identifier, "to": rels[nxt].identifier, **self._link(loaded, e)})
            node = nxt
        data.update(hops=hops, cost=round(sum(edge_weight(h["confidence"]) for h in hops), 4))
        lines = [f"{a} -> {b}: {len(hops)} join{'s' if len(hops) != 1 else ''}"]
        lines += [f"  JOIN {h['to']} ON {h['on']}  -- {_link_note(h)}" for h in hops]
        return ToolResult("\n".join(lines), data)

    # describe_relation -------------------------------------------------------------------------

    def describe_relation(self, loaded: Loaded, args: Mapping[str, Any]) -> ToolResult:
        r = self._relation(loaded, args["name"], "name")
        index = loaded.link.index
        rd = index.corpus.relations[r]
        links_out, links_in = [], []
        for e in sorted({adj.edge for adj in index.graph.neighbours(r)}):
            link = self._link(loaded, e)
            (links_out if index.corpus.columns[index.graph.edges[e].child].relation == r else links_in).append(link)
        references: dict[str, list[str]] = {}
        for link in links_out:
            references.setdefault(link["child"]["column"].lower(), []).append(
                f"{link['parent']['name']}.{link['parent']['column']}")
        columns = [{"name": c.name, "data_type": c.data_type or None, "description": c.description,
                    "primary_key": c.is_pk, "references": references.get(c.name.lower(), []),
                    "frequent_values": c.values[:FREQUENT_VALUES]}
                   for c in index.corpus.columns[rd.col_start:rd.col_end]]
        data = {"unique_id": rd.unique_id, "name": rd.identifier, "model": rd.name, "relation_name": rd.relation_name,
                "resource_type": rd.resource_type, "project": rd.project, "database": rd.database, "schema": rd.schema,
                "description": rd.description, "tags": rd.tags, "primary_key": rd.primary_key, "columns": columns,
                "links_out": links_out, "links_in": links_in}
        head = f"TABLE {rd.relation_name} -- {rd.resource_type} {rd.name}" + (f": {rd.description}" if rd.description else "")
        lines = [head]
        for c in columns:
            line = f"  {c['name']} {c['data_type'] or ''}".rstrip()
            line += " PK" if c["primary_key"] else ""
            line += "".join(f" FK -> {ref}" for ref in c["references"])
            notes = [c["description"]] if c["description"] else []
            if c["frequent_values"]:
                notes.append("e.g. " + ", ".join(repr(v) for v in c["frequent_values"][:3]))
            lines.append(line + (f" -- {'; '.join(notes)}" if notes else ""))
        for title, links in (("links out", links_out), ("links in", links_in)):
            if links:
                lines.append(f"{title}:")
                lines += [f"  {link['on']}  -- {_link_note(link)}" for link in links]
        return ToolResult("\n".join(lines), data)

    # list_links --------------------------------------------------------------------------------

    def list_links(self, loaded: Loaded, args: Mapping[str, Any]) -> ToolResult:
        relation = _text(args, "relation")
        minimum = _fraction(args, "min_confidence") or CONFIDENCE_BARS.list_links
        lineage = _flag(args, "include_lineage")
        records = loaded.evidence.links
        if relation is not None:
            uid = loaded.link.index.corpus.relations[self._relation(loaded, relation, "relation")].unique_id
            records = loaded.evidence.touching(uid)
        picked = [r for r in records if (lineage or r.is_join) and r.confidence >= minimum]
        picked.sort(key=lambda r: (-r.confidence, r.child.relation, r.child.column.lower()))
        if not loaded.evidence.links:
            text = "no links: run `dbt-schema-link link` to infer them (declared links still join in find_schema)"
        else:
            text = "\n".join(f"{_end(r.child)} -> {_end(r.parent)}  -- {r.provenance_text()}{_signals(r.evidence)}"
                             for r in picked) or "no link matches"
        return ToolResult(text, {"links": [r.to_json() for r in picked], "count": len(picked)})


# --- shapes ------------------------------------------------------------------------------------


def _relation_ref(rd) -> dict[str, str]:
    return {"unique_id": rd.unique_id, "name": rd.identifier, "model": rd.name}


def _end(ref: ColumnRef) -> str:
    return f"{ref.relation.rsplit('.', 1)[-1]}.{ref.column}"


def _signals(evidence: Sequence[Evidence]) -> str:
    items = sorted(evidence, key=lambda e: -e.contribution)[:TEXT_SIGNALS]
    return f" ({', '.join(e.signal.value for e in items)})" if items else ""


def _link_note(link: Mapping[str, Any]) -> str:
    signals = sorted(link["evidence"], key=lambda e: -e["contribution"])[:TEXT_SIGNALS]
    return link["note"] + (f" ({', '.join(e['signal'] for e in signals)})" if signals else "")
