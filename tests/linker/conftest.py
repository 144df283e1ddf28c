"""Fixtures for the question-time linker: a real dbt-duckdb project with two schemas (built with
`dbt docs generate`), a second project for localization across projects, profiles written through
the product's own profile cache, and the real embedding model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dbt_schema_link.linker.embedder import DEFAULT_MODEL, load_embedder
from dbt_schema_link.evaluation.convert import DatabaseSpec, TableSpec, write_project
from dbt_schema_link.evaluation.harness import dbt_version, run_dbt
from dbt_schema_link.profiling.cache import ProfileCache
from dbt_schema_link.profiling.records import ColumnProfile, ProfileSet, RelationProfile
from dbt_schema_link.project_config import locate

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _t(name: str, cols: list[tuple[str, str, str]], pk: str | None = None, description: str = "") -> TableSpec:
    """cols: (name, spider type, description)."""
    t = TableSpec(name=name, nl_name=name, columns=[(c, c, ty) for c, ty, _ in cols], primary_key=[pk] if pk else [],
                  description=description)
    t.descriptions = {c.lower(): d for c, _, d in cols if d}
    return t


SHOP = DatabaseSpec("shop", [
    _t("customers", [("customer_id", "number", ""), ("full_name", "text", "Full name of the customer"),
                     ("city", "text", "City the customer lives in"), ("signup_date", "time", "Day the account was created")],
       "customer_id", "One row per customer"),
    _t("orders", [("order_id", "number", ""), ("customer_id", "number", ""), ("order_date", "time", "Day the order was placed"),
                  ("amount", "number", "Order total in dollars"), ("status", "text", "Fulfilment status of the order")],
       "order_id", "One row per order"),
    _t("order_items", [("order_item_id", "number", ""), ("order_id", "number", ""), ("product_id", "number", ""),
                       ("quantity", "number", "Units of the product in the order")], "order_item_id", "Order lines"),
    _t("products", [("product_id", "number", ""), ("product_name", "text", "Name of the product"),
                    ("category", "text", "Product category"), ("unit_price", "number", "Price of one unit in dollars")],
       "product_id", "Products for sale"),
], [("orders", "customer_id", "customers", "customer_id"), ("order_items", "order_id", "orders", "order_id"),
    ("order_items", "product_id", "products", "product_id")])

SCHOOL = DatabaseSpec("school", [
    _t("students", [("student_id", "number", ""), ("first_name", "text", ""), ("last_name", "text", ""),
                    ("grade_level", "number", "School year of the student")], "student_id", "Enrolled pupils"),
    _t("courses", [("course_id", "number", ""), ("title", "text", "Course title"), ("department", "text", "Teaching department"),
                   ("credits", "number", "Credit points")], "course_id", "Courses offered"),
    _t("enrollments", [("enrollment_id", "number", ""), ("student_id", "number", ""), ("course_id", "number", ""),
                       ("semester", "text", ""), ("final_grade", "number", "Final mark of the student in the course")],
       "enrollment_id", "Which student takes which course"),
], [("enrollments", "student_id", "students", "student_id"), ("enrollments", "course_id", "courses", "course_id")])

HOSPITAL = DatabaseSpec("hospital", [
    _t("patients", [("patient_id", "number", ""), ("patient_name", "text", ""), ("birth_date", "time", "")],
       "patient_id", "Patients of the hospital"),
    _t("visits", [("visit_id", "number", ""), ("patient_id", "number", ""), ("ward", "text", "Hospital ward"),
                  ("diagnosis", "text", "Diagnosis made by the doctor")], "visit_id", "Patient visits"),
], [("visits", "patient_id", "patients", "patient_id")])

#: Frequent values as the profiler would report them (written through ProfileCache).
VALUES = {
    ("shop", "orders", "status"): ("shipped", "pending", "cancelled"),
    ("shop", "customers", "city"): ("Paris", "Berlin", "Lisbon"),
    ("shop", "products", "category"): ("Garden", "Kitchen", "Toys"),
    ("school", "courses", "department"): ("Mathematics", "History", "Biology"),
    ("school", "enrollments", "semester"): ("Fall 2023", "Spring 2024"),
}


def write_profiles(project_dir: Path) -> None:
    """A profiles.json in the product's cache format holding frequent values for some columns."""
    from dbt_schema_link.artifacts.manifest import read_project

    paths = locate(project_dir)
    project = read_project(paths.target_dir, require_catalog=True)
    cache = ProfileCache(paths.profiles_json)
    for uid, rel in project.relations.items():
        cols = {}
        for col in rel.columns.values():
            schema = rel.schema or ""
            top = VALUES.get((schema, rel.identifier, col.name))
            cols[col.name.lower()] = ColumnProfile(col.name, col.data_type, 10, len(top) if top else 10, False, 1, 10,
                                                   None, tuple(top) if top else None, False)
        cache.put(RelationProfile(uid, rel.identifier, 10, False, None, cols), "test")
    cache.save(ProfileSet(adapter="duckdb", k=16, package_version="test"))


def build_dbt_project(dest: Path, name: str, specs: list[DatabaseSpec]) -> Path:
    write_project(specs, dest, project_name=name, dbt_version=dbt_version(), load_data=True)
    run_dbt(dest, "docs", "generate")
    return dest


@pytest.fixture(scope="session")
def embedder():
    status = load_embedder(DEFAULT_MODEL)
    if status.embedder is None:
        if IN_CI:
            pytest.fail(f"the embeddings extra is required in CI: {status.notice}")
        pytest.skip(status.notice or "no embedding model")
    return status.embedder


@pytest.fixture(scope="session")
def two_schema_project(tmp_path_factory) -> Path:
    """One dbt project, schemas `shop` and `school`, with profiles.json (values)."""
    dest = tmp_path_factory.mktemp("linker") / "twoschema"
    build_dbt_project(dest, "twoschema", [SHOP, SCHOOL])
    write_profiles(dest)
    return dest


@pytest.fixture(scope="session")
def hospital_project(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("linker") / "hospital"
    return build_dbt_project(dest, "hospital", [HOSPITAL])
