"""artifacts/identity.py (one node per database object) and artifacts/scope.py (which packages are
read), on records built in code."""

from __future__ import annotations

import pytest

from dbt_schema_link.artifacts.identity import object_key, one_node_per_object
from dbt_schema_link.artifacts.records import (
    Column,
    ColumnRef,
    DeclaredLink,
    LinkOrigin,
    Project,
    Relation,
    ResourceType,
)
from dbt_schema_link.artifacts.scope import PackageScope, ScopeMode, package_counts, scoped
from dbt_schema_link.errors import SchemaLinkError


def _rel(uid: str, kind: ResourceType, package: str, identifier: str, columns=("id",), depends_on=(),
         relation_name: str | None = "", descriptions: dict | None = None) -> Relation:
    name = ".".join(uid.split(".")[2:]) if kind is ResourceType.SOURCE else uid.split(".")[-1]
    descriptions = descriptions or {}
    return Relation(
        unique_id=uid, resource_type=kind, name=name, package_name=package, database="db", schema="main",
        identifier=identifier,
        relation_name=f'"db"."main"."{identifier}"' if relation_name == "" else relation_name,
        columns={c: Column(c, "integer", descriptions.get(c, ""), index=i) for i, c in enumerate(columns)},
        depends_on=tuple(depends_on),
    )


SEED = "seed.root.repo_data"
SOURCE = "source.pkg.github.repository"
STG = "model.pkg.stg_repository"
ISSUES = "model.pkg.stg_issue"


def _project() -> Project:
    relations = {
        SEED: _rel(SEED, ResourceType.SEED, "root", "repo_data", ("id", "name")),
        # the package's source over the root's seed; the name differs in case and quoting only
        SOURCE: _rel(SOURCE, ResourceType.SOURCE, "pkg", "REPO_DATA", ("id", "name"), relation_name='db.main."REPO_DATA"',
                     descriptions={"name": "Full name of the repository."}),
        STG: _rel(STG, ResourceType.MODEL, "pkg", "stg_repository", ("repository_id",), depends_on=[SOURCE]),
        ISSUES: _rel(ISSUES, ResourceType.MODEL, "pkg", "stg_issue", ("repository_id",), depends_on=[STG]),
    }
    declared = [DeclaredLink(ColumnRef(ISSUES, "repository_id"), ColumnRef(SOURCE, "id"), LinkOrigin.RELATIONSHIPS_TEST,
                             "test.pkg.rel")]
    return Project("root", "1.11.16", "duckdb", relations, declared,
                   parent_map={STG: [SOURCE], SOURCE: [], SEED: [], ISSUES: [STG]},
                   child_map={SOURCE: [STG], SEED: [], STG: [ISSUES], ISSUES: []})


def test_object_key_ignores_quotes_and_case():
    project = _project()
    assert object_key(project.relations[SEED]) == object_key(project.relations[SOURCE]) == "db.main.repo_data"
    no_name = _rel("seed.root.x", ResourceType.SEED, "root", "X", relation_name=None)
    assert object_key(no_name) == "db.main.x"


def test_a_source_over_a_seed_is_folded_into_the_seed():
    project = _project()
    folded = one_node_per_object(project)
    assert set(folded.relations) == {SEED, STG, ISSUES}
    assert folded.folded == {SOURCE: SEED}
    seed = folded.relations[SEED]
    assert seed.aliases == ("github.repository",)
    assert seed.column("name").description == "Full name of the repository."  # a person's words kept
    assert folded.relations[STG].depends_on == (SEED,)
    assert folded.parent_map[STG] == [SEED] and folded.child_map[SEED] == [STG]
    assert [(d.child, d.parent) for d in folded.declared_links] == [(ColumnRef(ISSUES, "repository_id"), ColumnRef(SEED, "id"))]
    # the old name still finds it, and a column of the folded node is the survivor's
    assert folded.by_name("github.repository") is seed and folded.by_name(SOURCE) is seed
    assert folded.column_ref(SOURCE, "ID") == ColumnRef(SEED, "id")
    assert set(project.relations) == {SEED, SOURCE, STG, ISSUES}  # the input is not changed


def test_distinct_objects_are_left_alone():
    project = _project()
    project.relations[SOURCE].relation_name = '"db"."landing"."repo_data"'
    assert one_node_per_object(project) is project


def test_between_two_sources_the_root_projects_is_kept():
    root_source = _rel("source.root.raw.repo", ResourceType.SOURCE, "root", "repo_data")
    pkg_source = _rel("source.pkg.github.repo", ResourceType.SOURCE, "pkg", "repo_data")
    project = Project("root", "1.11.16", "duckdb", {r.unique_id: r for r in (pkg_source, root_source)})
    assert set(one_node_per_object(project).relations) == {"source.root.raw.repo"}


def _scoped_project() -> Project:
    rels = [_rel("seed.root.a", ResourceType.SEED, "root", "a"),
            _rel("model.pkg.b", ResourceType.MODEL, "pkg", "b"),
            _rel("model.other.c", ResourceType.MODEL, "other", "c"),
            _rel("model.dbt_schema_link.d", ResourceType.MODEL, "dbt_schema_link", "d")]
    link = DeclaredLink(ColumnRef("model.pkg.b", "id"), ColumnRef("seed.root.a", "id"), LinkOrigin.RELATIONSHIPS_TEST)
    return Project("root", "1.11.16", "duckdb", {r.unique_id: r for r in rels}, [link])


@pytest.mark.parametrize("setting, kept", [
    (None, {"seed.root.a", "model.pkg.b", "model.other.c"}),
    ("all", {"seed.root.a", "model.pkg.b", "model.other.c"}),
    ("root", {"seed.root.a"}),
    (["other"], {"seed.root.a", "model.other.c"}),
])
def test_package_scope(setting, kept):
    project = scoped(_scoped_project(), PackageScope.from_setting(setting))
    assert set(project.relations) == kept
    assert bool(project.declared_links) == ("model.pkg.b" in kept)


def test_the_tool_package_is_read_when_it_is_the_root():
    project = _scoped_project()
    project.project_name = "dbt_schema_link"
    assert "model.dbt_schema_link.d" in scoped(project, PackageScope(ScopeMode.ROOT)).relations


@pytest.mark.parametrize("bad", ["some", 3, [], [""], {"a": 1}])
def test_a_bad_setting_is_one_clear_error(bad):
    with pytest.raises(SchemaLinkError, match=r"must be `all`, `root` or a list of package names"):
        PackageScope.from_setting(bad)


def test_a_package_that_is_not_installed_names_the_installed_ones():
    with pytest.raises(SchemaLinkError, match=r"no installed package 'github'.*\(installed: other, pkg\)"):
        scoped(_scoped_project(), PackageScope.from_setting(["github"]))


def test_package_counts_leave_the_root_out():
    assert package_counts(list(_scoped_project().relations.values()), "root") == {"dbt_schema_link": 1, "other": 1,
                                                                                   "pkg": 1}
