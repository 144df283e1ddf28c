"""Read dbt's manifest.json (schema v12, dbt 1.8–1.12) and catalog.json into `Project` records.

Parsing is tolerant: unknown fields are ignored, missing optional fields get defaults, and only
the fields we rely on are validated. Anything unusable is an `ArtifactError` naming the file and
the dbt command that regenerates it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from dbt_schema_link.artifacts.records import (
    Column,
    ColumnRef,
    DeclaredLink,
    LinkOrigin,
    Project,
    Relation,
    ResourceType,
)
from dbt_schema_link.collector import collector_paused
from dbt_schema_link.errors import ArtifactError

#: manifest schema versions we have checked; newer ones are read tolerantly with a warning.
KNOWN_MANIFEST_VERSIONS = frozenset({"v10", "v11", "v12"})
_REF_RE = re.compile(r"""^\s*ref\(\s*(?:['"]([^'"]+)['"]\s*,\s*)?['"]([^'"]+)['"]\s*(?:,\s*v(?:ersion)?\s*=\s*[^)]*)?\)\s*$""")
_SOURCE_RE = re.compile(r"""^\s*source\(\s*['"]([^'"]+)['"]\s*,\s*['"]([^'"]+)['"]\s*\)\s*$""")
_RELATIONSHIP_TESTS = {
    "relationships": LinkOrigin.RELATIONSHIPS_TEST,
    "relationships_where": LinkOrigin.RELATIONSHIPS_WHERE_TEST,
}


def load_json(path: Path, regenerate: str) -> dict[str, Any]:
    """Load one artifact; a missing/malformed file is a one-line ArtifactError."""
    if not path.exists():
        raise ArtifactError(f"{path} not found: run `{regenerate}` in the dbt project first")
    try:
        raw = path.read_bytes()
        with collector_paused():  # a warehouse's manifest and catalog are millions of objects
            data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ArtifactError(f"{path} is not UTF-8 text: re-create it with `{regenerate}`") from None
    except json.JSONDecodeError as exc:
        raise ArtifactError(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}): re-create it with `{regenerate}`"
        ) from None
    except OSError as exc:
        raise ArtifactError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, RecursionError) as exc:  # e.g. a 5,000-digit number, absurd nesting
        reason = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:120]
        raise ArtifactError(f"{path} cannot be read as JSON ({reason}): re-create it with `{regenerate}`") from None
    if not isinstance(data, dict):
        raise ArtifactError(f"{path} is not a dbt artifact (top level is not an object): run `{regenerate}`")
    return data


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _str(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def manifest_version(manifest: dict[str, Any]) -> str:
    schema = _str(_dict(manifest.get("metadata")).get("dbt_schema_version"))
    match = re.search(r"/(v\d+)\.json$", schema)
    return match.group(1) if match else ""


def _columns(raw: Any) -> dict[str, Column]:
    out: dict[str, Column] = {}
    for index, (key, col) in enumerate(_dict(raw).items()):
        col = _dict(col)
        name = _str(col.get("name"), str(key))
        cfg_meta = _dict(_dict(col.get("config")).get("meta"))
        out[name.lower()] = Column(
            name=name,
            data_type=_opt_str(col.get("data_type")),
            description=_str(col.get("description")),
            meta={**_dict(col.get("meta")), **cfg_meta},
            tags=tuple(t for t in _list(col.get("tags")) if isinstance(t, str)),
            index=index,
        )
    return out


def _primary_key(node: dict) -> tuple[str, ...]:
    pk = [c for c in _list(node.get("primary_key")) if isinstance(c, str)]
    if pk:
        return tuple(pk)
    for constraint in _list(node.get("constraints")):
        constraint = _dict(constraint)
        if constraint.get("type") == "primary_key":
            cols = [c for c in _list(constraint.get("columns")) if isinstance(c, str)]
            if cols:
                return tuple(cols)
    for col in _dict(node.get("columns")).values():
        col = _dict(col)
        if any(_dict(c).get("type") == "primary_key" for c in _list(col.get("constraints"))):
            return (_str(col.get("name")),)
    return ()


def _relation_from_node(node: dict, resource_type: ResourceType) -> Relation | None:
    unique_id = _opt_str(node.get("unique_id"))
    if not unique_id:
        return None
    config = _dict(node.get("config"))
    if resource_type is ResourceType.MODEL and config.get("materialized") == "ephemeral":
        return None
    columns = _columns(node.get("columns"))
    if resource_type is ResourceType.SOURCE:
        name = f"{_str(node.get('source_name'))}.{_str(node.get('name'))}"
        identifier = _str(node.get("identifier")) or _str(node.get("name"))
    else:
        name = _str(node.get("name"))
        identifier = _str(node.get("alias")) or name
    checksum = _dict(node.get("checksum")).get("checksum")
    return Relation(
        unique_id=unique_id,
        resource_type=resource_type,
        name=name,
        package_name=_str(node.get("package_name")),
        database=_opt_str(node.get("database")),
        schema=_opt_str(node.get("schema")),
        identifier=identifier,
        relation_name=_opt_str(node.get("relation_name")),
        description=_str(node.get("description")),
        columns=columns,
        tags=tuple(t for t in _list(node.get("tags")) if isinstance(t, str)),
        meta={**_dict(node.get("meta")), **_dict(config.get("meta"))},
        patch_path=_opt_str(node.get("patch_path")),
        original_file_path=_opt_str(node.get("original_file_path")),
        primary_key=_primary_key(node),
        compiled_sql=_opt_str(node.get("compiled_code")) or _opt_str(node.get("compiled_sql")),
        raw_sql=_opt_str(node.get("raw_code")) or _opt_str(node.get("raw_sql")),
        depends_on=tuple(n for n in _list(_dict(node.get("depends_on")).get("nodes")) if isinstance(n, str)),
        materialized=_opt_str(config.get("materialized")),
        checksum=checksum if isinstance(checksum, str) else None,
        enabled=config.get("enabled", True) is not False,
    )


def resolve_target(expr: str, relations: dict[str, Relation], package: str) -> str | None:
    """Map a test's ``to:`` expression (``ref('x')`` / ``source('s','t')``) to a unique_id."""
    if not isinstance(expr, str):
        return None
    match = _REF_RE.match(expr)
    if match:
        pkg, name = match.group(1), match.group(2)
        candidates = [
            r for r in relations.values()
            if r.resource_type is not ResourceType.SOURCE and r.name == name
        ]
        preferred = [r for r in candidates if r.package_name == (pkg or package)]
        chosen = preferred or candidates
        return chosen[0].unique_id if chosen else None
    match = _SOURCE_RE.match(expr)
    if match:
        wanted = f"{match.group(1)}.{match.group(2)}"
        for rel in relations.values():
            if rel.resource_type is ResourceType.SOURCE and rel.name == wanted:
                return rel.unique_id
    return None


def _column_ref(relations: dict[str, Relation], unique_id: Any, column: Any) -> ColumnRef | None:
    if not isinstance(unique_id, str) or not unique_id or not isinstance(column, str) or not column:
        return None
    rel = relations.get(unique_id)
    if rel is None:
        return None
    col = rel.column(column)
    return ColumnRef(unique_id, col.name if col else column)


_MODEL_ARG_RE = re.compile(r"""(ref\([^)]*\)|source\([^)]*\))""")


def _test_child(node: dict, relations: dict[str, Relation], parent_id: str | None = None) -> str | None:
    """The relation a generic test is attached to. dbt leaves ``attached_node`` empty for tests on
    sources, so fall back to the test's ``model`` argument (``get_where_subquery(source(...))``),
    then to a dependency that is not the test's ``to:`` target."""
    attached = _opt_str(node.get("attached_node"))
    if attached in relations:
        return attached
    kwargs = _dict(_dict(node.get("test_metadata")).get("kwargs"))
    match = _MODEL_ARG_RE.search(_str(kwargs.get("model")))
    if match:
        resolved = resolve_target(match.group(1), relations, _str(node.get("package_name")))
        if resolved:
            return resolved
    deps = [n for n in _list(_dict(node.get("depends_on")).get("nodes")) if isinstance(n, str) and n in relations and n != parent_id]
    return deps[0] if len(deps) == 1 else None


def _declared_from_tests(manifest: dict, relations: dict[str, Relation]) -> list[DeclaredLink]:
    links: list[DeclaredLink] = []
    for node in _dict(manifest.get("nodes")).values():
        node = _dict(node)
        if node.get("resource_type") != "test":
            continue
        meta = _dict(node.get("test_metadata"))
        if _str(meta.get("name")) == COMPOSITE_TEST:
            composite = _declared_composite(node, relations)
            if composite is not None:
                links.append(composite)
            continue
        origin = _RELATIONSHIP_TESTS.get(_str(meta.get("name")))
        if origin is None:
            written = _written_data_test(node, relations)
            if written is not None:
                links.append(written)
            continue
        kwargs = _dict(meta.get("kwargs"))
        parent_id = resolve_target(kwargs.get("to"), relations, _str(node.get("package_name")))
        child_id = _test_child(node, relations, parent_id)
        child_col = kwargs.get("column_name") or node.get("column_name")
        parent_col = kwargs.get("field")
        child = _column_ref(relations, child_id, child_col)
        parent = _column_ref(relations, parent_id, parent_col)
        if child and parent:
            written = _generated(node)
            links.append(DeclaredLink(child, parent, origin, _opt_str(node.get("unique_id")), written is not None,
                                      _written_confidence(written)))
    return links


#: The package's composite relationships test (macros/schema_link_composite_relationship.sql).
COMPOSITE_TEST = "schema_link_composite_relationship"


def _declared_composite(node: dict, relations: dict[str, Relation]) -> DeclaredLink | None:
    """A composite relationships test as one link: its first column pair, then ``extra_pairs``."""
    kwargs = _dict(_dict(node.get("test_metadata")).get("kwargs"))
    parent_id = resolve_target(kwargs.get("to"), relations, _str(node.get("package_name")))
    child_id = _test_child(node, relations, parent_id)
    columns = _list(kwargs.get("columns")) or [kwargs.get("column_name") or node.get("column_name")]
    fields = _list(kwargs.get("fields"))
    if not columns or len(columns) != len(fields):
        return None
    pairs = [(_column_ref(relations, child_id, _unquoted(c)), _column_ref(relations, parent_id, _unquoted(f)))
             for c, f in zip(columns, fields)]
    if any(c is None or p is None for c, p in pairs):
        return None
    written = _generated(node)
    (child, parent), *extra = pairs
    return DeclaredLink(child, parent, LinkOrigin.RELATIONSHIPS_TEST, _opt_str(node.get("unique_id")),
                        written is not None, _written_confidence(written), tuple(extra))


def _unquoted(name: Any) -> Any:
    """A column name as a test's SQL may quote it (``"Floor"``, backticks), unquoted."""
    if isinstance(name, str) and len(name) >= 2 and name[0] == name[-1] and name[0] in "\"`":
        return name[1:-1]
    return name


#: The meta key `dbt-schema-link write` puts on every test it generates.
WRITTEN_META_KEY = "schema_link"


def _generated(node: dict) -> dict | None:
    """The ``meta.schema_link`` of a test that `dbt-schema-link write` generated (under config, or
    top-level before 1.10); None for a test a person wrote."""
    for meta in (_dict(_dict(node.get("config")).get("meta")), _dict(node.get("meta"))):
        if WRITTEN_META_KEY in meta:
            return _dict(meta[WRITTEN_META_KEY])
    return None


def _written_confidence(written: dict | None) -> float | None:
    """The confidence `write` recorded on the test (None when absent or not a number in [0, 1])."""
    value = (written or {}).get("confidence")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        return None
    return float(value)


def _written_data_test(node: dict, relations: dict[str, Relation]) -> DeclaredLink | None:
    """A singular data test `write` generated for a link on a package's relation
    (writers/package_tests.py): its meta names the pair."""
    config_meta = _dict(_dict(node.get("config")).get("meta"))
    pair = _dict(config_meta.get(WRITTEN_META_KEY) or _dict(node.get("meta")).get(WRITTEN_META_KEY))
    child = _column_ref(relations, pair.get("child"), pair.get("child_column"))
    parent = _column_ref(relations, pair.get("parent"), pair.get("parent_column"))
    if child is None or parent is None:
        return None
    return DeclaredLink(child, parent, LinkOrigin.RELATIONSHIPS_TEST, _opt_str(node.get("unique_id")), True,
                        _written_confidence(pair))


def _declared_from_constraints(relations: dict[str, Relation], raw_nodes: dict) -> list[DeclaredLink]:
    links: list[DeclaredLink] = []
    for unique_id, rel in relations.items():
        node = _dict(raw_nodes.get(unique_id))
        groups: list[tuple[list[str], dict]] = []
        for constraint in _list(node.get("constraints")):
            constraint = _dict(constraint)
            groups.append(([c for c in _list(constraint.get("columns")) if isinstance(c, str)], constraint))
        for col in _dict(node.get("columns")).values():
            col = _dict(col)
            for constraint in _list(col.get("constraints")):
                groups.append(([_str(col.get("name"))], _dict(constraint)))
        for columns, constraint in groups:
            if constraint.get("type") != "foreign_key":
                continue
            parent_id = resolve_target(_str(constraint.get("to")), relations, rel.package_name)
            to_columns = [c for c in _list(constraint.get("to_columns")) if isinstance(c, str)]
            for child_col, parent_col in zip(columns, to_columns):
                child = _column_ref(relations, unique_id, child_col)
                parent = _column_ref(relations, parent_id, parent_col)
                if child and parent:
                    links.append(DeclaredLink(child, parent, LinkOrigin.FK_CONSTRAINT, unique_id))
    return links


def _declared_from_entities(manifest: dict, relations: dict[str, Relation]) -> list[DeclaredLink]:
    """Foreign entities join primary/unique entities of the same name across semantic models."""
    primaries: dict[str, ColumnRef] = {}
    foreigns: list[tuple[str, ColumnRef, str]] = []
    for sm in _dict(manifest.get("semantic_models")).values():
        sm = _dict(sm)
        model_id = next(iter(_list(_dict(sm.get("depends_on")).get("nodes"))), None)
        for entity in _list(sm.get("entities")):
            entity = _dict(entity)
            name, kind = _str(entity.get("name")), _str(entity.get("type"))
            column = _str(entity.get("expr")) or name
            ref = _column_ref(relations, model_id, column)
            if not ref:
                continue
            if kind in ("primary", "unique", "natural"):
                primaries.setdefault(name, ref)
            elif kind == "foreign":
                foreigns.append((name, ref, _str(sm.get("unique_id"))))
    return [
        DeclaredLink(child, primaries[name], LinkOrigin.SEMANTIC_ENTITY, sm_id)
        for name, child, sm_id in foreigns
        if name in primaries and primaries[name].relation != child.relation
    ]


def _column_tests(manifest: dict, relations: dict[str, Relation]) -> dict[str, dict[str, set[str]]]:
    """relation -> lower-case column -> which of `unique` / `not_null` its tests declare."""
    seen: dict[str, dict[str, set[str]]] = {}
    for node in _dict(manifest.get("nodes")).values():
        node = _dict(node)
        if node.get("resource_type") != "test":
            continue
        name = _str(_dict(node.get("test_metadata")).get("name"))
        if name not in ("unique", "not_null"):
            continue
        attached = _test_child(node, relations)
        column = _dict(_dict(node.get("test_metadata")).get("kwargs")).get("column_name") or node.get("column_name")
        if attached in relations and isinstance(column, str):
            seen.setdefault(attached, {}).setdefault(_unquoted(column).lower(), set()).add(name)
    return seen


def _unique_constraints(node: dict) -> set[str]:
    """Lower-case columns a `unique` (or `primary_key`) constraint of one column declares."""
    out: set[str] = set()
    for col in _dict(node.get("columns")).values():
        col = _dict(col)
        if any(_dict(c).get("type") in ("unique", "primary_key") for c in _list(col.get("constraints"))):
            out.add(_str(col.get("name")).lower())
    for constraint in _list(node.get("constraints")):
        cols = [c for c in _list(_dict(constraint).get("columns")) if isinstance(c, str)]
        if _dict(constraint).get("type") in ("unique", "primary_key") and len(cols) == 1:
            out.add(cols[0].lower())
    return out


def _apply_declared_keys(manifest: dict, relations: dict[str, Relation], raw_nodes: dict) -> None:
    """Columns with both `unique` and `not_null` tests are the primary key where it is one and
    none is declared; every column declared unique is an alternate key (``unique_columns``)."""
    tests = _column_tests(manifest, relations)
    for uid, rel in relations.items():
        by_column = tests.get(uid, {})
        keys = [c for c, names in by_column.items() if names == {"unique", "not_null"}]
        if not rel.primary_key and len(keys) == 1 and rel.column(keys[0]):
            rel.primary_key = (rel.column(keys[0]).name,)
        unique = {c for c, names in by_column.items() if "unique" in names}
        unique |= _unique_constraints(_dict(raw_nodes.get(uid)))
        rel.unique_columns = tuple(sorted(rel.column(c).name for c in unique if rel.column(c)))


def apply_catalog(relations: dict[str, Relation], catalog: dict[str, Any]) -> None:
    """Fill warehouse types (and columns the YAML never mentions) from catalog.json."""
    entries = {**_dict(catalog.get("nodes")), **_dict(catalog.get("sources"))}
    for unique_id, entry in entries.items():
        rel = relations.get(unique_id)
        if rel is None:
            continue
        cat_cols = sorted(
            (_dict(c) for c in _dict(_dict(entry).get("columns")).values()),
            key=lambda c: c.get("index") if isinstance(c.get("index"), int) else 0,
        )
        merged: dict[str, Column] = {}
        for index, cat in enumerate(cat_cols):
            name = _str(cat.get("name"))
            if not name:
                continue
            declared = rel.columns.get(name.lower())
            merged[name.lower()] = Column(
                name=name,
                data_type=_opt_str(cat.get("type")) or (declared.data_type if declared else None),
                description=declared.description if declared else "",
                meta=declared.meta if declared else {},
                tags=declared.tags if declared else (),
                index=index,
            )
        # Columns documented in YAML but absent from the warehouse are dropped: they cannot join.
        if merged:
            rel.columns = merged


def node_file_checksums(manifest: dict[str, Any]) -> dict[str, str]:
    """``original_file_path`` -> the sha256 dbt recorded for each of the root project's node files
    (models, seeds, snapshots, analyses, singular tests): what the manifest was built from."""
    project = _str(_dict(manifest.get("metadata")).get("project_name"))
    out: dict[str, str] = {}
    for node in _dict(manifest.get("nodes")).values():
        node = _dict(node)
        checksum = _dict(node.get("checksum"))
        path = _opt_str(node.get("original_file_path"))
        if path and checksum.get("name") == "sha256" and isinstance(checksum.get("checksum"), str) \
                and (not project or node.get("package_name") == project):
            out[path] = checksum["checksum"]
    return out


#: Where dbt keeps the SQL of the last compile/run under the target directory, best first
#: (``run/`` wraps it in the materialization's DDL, which the SQL reader unwraps).
_COMPILED_DIRS = ("compiled", "run")


def fill_compiled_sql(relations: dict[str, Relation], target_dir: Path, project_dir: Path | None) -> None:
    """`dbt test` and `dbt parse` rewrite manifest.json without the models' compiled SQL, but the
    files of the last compile stay in ``target/compiled/<package>/<original_file_path>``: read them
    there for the relations the manifest leaves without. A model file changed after that compile
    (newer than the compiled file) keeps its raw SQL, which is then the truer text."""
    for rel in relations.values():
        if rel.compiled_sql or not rel.original_file_path or rel.resource_type not in (
                ResourceType.MODEL, ResourceType.SNAPSHOT):
            continue
        source = project_dir / rel.original_file_path if project_dir else None
        for folder in _COMPILED_DIRS:
            path = target_dir / folder / rel.package_name / rel.original_file_path
            try:
                if source is not None and source.exists() and source.stat().st_mtime_ns > path.stat().st_mtime_ns:
                    continue
                rel.compiled_sql = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            break


@collector_paused()  # records built from millions of JSON objects (dbt_schema_link.collector)
def read_project(target_dir: Path, require_catalog: bool = True, project_dir: Path | None = None) -> Project:
    """Read target/manifest.json (+ catalog.json) into a Project."""
    manifest = load_json(target_dir / "manifest.json", "dbt parse")
    metadata = _dict(manifest.get("metadata"))
    dbt_version = _str(metadata.get("dbt_version"))
    if not dbt_version or "nodes" not in manifest:
        raise ArtifactError(
            f"{target_dir / 'manifest.json'} does not look like a dbt manifest (no metadata.dbt_version/nodes): run `dbt parse`"
        )
    version = manifest_version(manifest)
    if version and version not in KNOWN_MANIFEST_VERSIONS:
        major = int(version[1:]) if version[1:].isdigit() else 0
        if major < 10:
            raise ArtifactError(
                f"{target_dir / 'manifest.json'} is manifest {version} (dbt {dbt_version}); dbt-schema-link needs dbt >= 1.8: upgrade dbt and run `dbt parse`"
            )
    raw_nodes = _dict(manifest.get("nodes"))
    project_name = _str(metadata.get("project_name"))
    relations: dict[str, Relation] = {}
    for node in raw_nodes.values():
        node = _dict(node)
        try:
            resource_type = ResourceType(node.get("resource_type"))
        except ValueError:
            continue
        rel = _relation_from_node(node, resource_type)
        if rel is not None and rel.enabled:
            relations[rel.unique_id] = rel
    for node in _dict(manifest.get("sources")).values():
        rel = _relation_from_node(_dict(node), ResourceType.SOURCE)
        if rel is not None and rel.enabled:
            relations[rel.unique_id] = rel
    fill_compiled_sql(relations, target_dir, Path(project_dir) if project_dir else None)
    if not project_name:
        names = {r.package_name for r in relations.values()}
        project_name = next(iter(names)) if len(names) == 1 else ""

    has_catalog = False
    catalog_path = target_dir / "catalog.json"
    if catalog_path.exists() or require_catalog:
        catalog = load_json(catalog_path, "dbt docs generate")
        apply_catalog(relations, catalog)
        has_catalog = True

    _apply_declared_keys(manifest, relations, raw_nodes)

    declared = (
        _declared_from_tests(manifest, relations)
        + _declared_from_constraints(relations, raw_nodes)
        + _declared_from_entities(manifest, relations)
    )
    return Project(
        project_name=project_name,
        dbt_version=dbt_version,
        adapter_type=_str(metadata.get("adapter_type")),
        relations=relations,
        declared_links=sorted(set(declared), key=lambda d: (d.child, d.parent, d.origin.value)),
        parent_map={k: list(v) for k, v in _dict(manifest.get("parent_map")).items() if isinstance(v, list)},
        child_map={k: list(v) for k, v in _dict(manifest.get("child_map")).items() if isinstance(v, list)},
        has_catalog=has_catalog,
        project_dir=str(project_dir) if project_dir else None,
    )
