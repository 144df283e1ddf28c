"""The links the question index joins on: links.json's records (read by the one reader,
:func:`dbt_schema_link.links.read_links_file`) restricted to the project's columns, plus the
project's own person-declared links when links.json lacks them.

A test ``write`` generated is never taken from the manifest as a declaration: it is the WRITTEN
link links.json holds (re-inferred from the data on every ``link``), used for joins only while
its confidence now is at least the write bar.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from dbt_schema_link.artifacts.records import Project
from dbt_schema_link.discovery.records import Rejection, Trap
from dbt_schema_link.links import (
    Cardinality, Evidence, Link, LinkSetFormatError, Provenance, Signal, load_links_json, read_links_file,
)


def declared_links(project: Project) -> list[Link]:
    """The project's person-declared links (relationships tests, FK constraints, entities) as
    link records; tests `write` generated are left out (links.json says what they are now)."""
    return [Link(d.child, d.parent, Provenance.DECLARED, 1.0, Cardinality.MANY_TO_ONE,
                 (Evidence(Signal.DECLARED_TEST, 1.0, f"declared by {d.origin.value} {d.source_id or ''}".strip()),),
                 origins=(d.origin,))
            for d in project.declared_links if not d.written and d.child.relation != d.parent.relation]


def project_links(path: Path, project: Project, written_min_confidence: float) -> list[Link]:
    """links.json's links whose columns the project has (declared links of the manifest first,
    so a declaration newer than links.json still joins). Raises LinkSetFormatError for a file of
    another format version; no file: declared links only."""
    stored = read_links_file(path) or []
    out = declared_links(project)
    for link in stored:
        if link.provenance is Provenance.WRITTEN and link.confidence < written_min_confidence:
            continue  # the data no longer supports what was written: reported by `link`, never joined on
        pairs = tuple((c, p) for c, p in link.pairs()
                      if project.column_ref(c.relation, c.column) and project.column_ref(p.relation, p.column))
        if not pairs:
            continue
        first, rest = pairs[0], pairs[1:]
        out.append(replace(link, child=first[0], parent=first[1], collapsed=rest if link.is_join else ()))
    return out


#: The rejections whose names (or SQL) say the pair joins and whose values alone kept it out.
_SHORT_OF_VALUES = (Trap.CONTRADICTED, Trap.CONTAINMENT_FAILED)


def contradicted_pairs(path: Path, project: Project) -> list[Rejection]:
    """links.json's pairs the names (or the project's SQL) join and the data refutes or does not
    bear out ("named, contradicted by data", "values fall short": sample data, a half-loaded
    source, orphans), whose columns the project has. Not links: join completion falls back on
    them only when nothing else connects two relations, and says so."""
    try:
        text = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    except OSError as err:
        raise LinkSetFormatError(f"cannot read {path} ({err.strerror}): run `dbt-schema-link link` again") from None
    document = load_links_json(text, str(path))
    try:
        rejected = [Rejection.from_json(x) for x in document.get("rejected", ())]
    except (KeyError, TypeError, ValueError) as err:
        raise LinkSetFormatError(f"{path} is malformed ({err!r}): run `dbt-schema-link link` again") from None
    return [r for r in rejected if r.trap in _SHORT_OF_VALUES
            and project.column_ref(r.child.relation, r.child.column) and project.column_ref(r.parent.relation, r.parent.column)]
