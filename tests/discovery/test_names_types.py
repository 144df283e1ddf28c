import pytest

from dbt_schema_link.discovery.names import (
    Role, affix_similarity, analyse_column, analyse_relation, singular, tokens,
)
from dbt_schema_link.discovery.types import Compat, TypeFamily, compatibility, family_of

PREFIXES = ("stg_", "dim_", "fct_", "raw_", "int_")


@pytest.mark.parametrize("word, expected", [
    ("customers", "customer"), ("categories", "category"), ("addresses", "address"),
    ("boxes", "box"), ("statuses", "status"), ("status", "status"), ("people", "person"),
    ("series", "series"), ("id", "id"), ("ids", "id"),
])
def test_singular(word, expected):
    assert singular(word) == expected


@pytest.mark.parametrize("name, expected", [
    ("customer_id", ("customer", "id")),
    ("CustomerId", ("customer", "id")),
    ("CUSTOMER_ID", ("customer", "id")),
    ("StuID", ("stu", "id")),
    ("eyeColourIDs", ("eye", "colour", "id")),
    ("Order Details", ("order", "detail")),
])
def test_tokens_split_snake_camel_and_acronyms(name, expected):
    assert tokens(name) == expected


def test_key_suffixes_prefixes_and_generic_keys():
    p = analyse_column("customer_id")
    assert p.key_suffix == "id" and p.head == ("customer",) and p.keyness == 1.0 and not p.generic
    assert analyse_column("fk_customer").head == ("customer",)
    assert analyse_column("fk_customer").keyness == 1.0
    assert analyse_column("country_code").key_suffix == "code"
    assert analyse_column("id").generic and analyse_column("uid").generic
    assert analyse_column("order_no").key_suffix == "no"
    assert analyse_column("amount").keyness == 0.0


@pytest.mark.parametrize("name, role", [
    ("created_by", Role.PERSON), ("opened_by", Role.PERSON), ("assigned_to", Role.PERSON),
    ("owner_id", Role.PERSON), ("support_rep_id", Role.PERSON),
    ("manager_id", Role.HIERARCHY), ("parent_id", Role.HIERARCHY), ("ReportsTo", Role.HIERARCHY),
    ("parent_category_id", Role.HIERARCHY),
    ("manager_name", None), ("customer_id", None), ("caused_by_ship_id", None),
])
def test_role_names(name, role):
    assert analyse_column(name).role is role


def test_measure_and_flag_names():
    assert analyse_column("height_cm").measure
    assert analyse_column("order_count").measure
    # an aggregate in a mart whose values happen to fall inside an id range (example project, scale 1)
    assert analyse_column("units_sold").measure
    assert not analyse_column("unit_id").measure
    assert not analyse_column("size_code").measure  # key-like wins
    assert analyse_column("is_active").flag_name and analyse_column("deleted_flag").flag_name


def test_head_ngrams_weigh_the_head_noun():
    grams = analyse_column("eye_colour_id").head_ngrams()
    assert grams["eyecolour"] == 1.0 and grams["colour"] > grams["eye"]
    assert analyse_column("ship_via").head_ngrams()["ship"] == 0.85  # noun before a preposition
    assert analyse_column("student_enrolment_id").head_ngrams()["student"] < 0.5


def test_relation_keys_strip_prefixes_plural_and_generic_words():
    names = analyse_relation(["stg_customers"], PREFIXES)
    assert names.keys["customer"] == 1.0
    assert analyse_relation(["stg_shop__orders"], PREFIXES).keys["order"] == 1.0
    assert analyse_relation(["model_list"], PREFIXES).keys["model"] >= 0.9
    assert analyse_relation(["tv_channel"], PREFIXES).keys["channel"] < 1.0
    assert analyse_relation(["employees"], PREFIXES).people == 1.0
    assert analyse_relation(["orders"], PREFIXES).people == 0.0
    assert analyse_relation(["continents"], PREFIXES).abbreviates("cont")


def test_affix_similarity():
    assert affix_similarity("hero", "superhero") > 0.6
    assert affix_similarity("ship", "shipper") > affix_similarity("hero", "superhero")
    assert affix_similarity("order", "customer") == 0.0
    assert affix_similarity("ab", "abc") == 0.0


@pytest.mark.parametrize("text, family", [
    ("INTEGER", TypeFamily.INTEGER), ("bigint", TypeFamily.INTEGER), ("NUMBER(38,0)", TypeFamily.INTEGER),
    ("numeric(10, 0)", TypeFamily.INTEGER), ("INT64", TypeFamily.INTEGER), ("UBIGINT", TypeFamily.INTEGER),
    ("DECIMAL(10,2)", TypeFamily.DECIMAL), ("double precision", TypeFamily.DECIMAL), ("FLOAT64", TypeFamily.DECIMAL),
    ("NUMERIC", TypeFamily.DECIMAL), ("character varying(20)", TypeFamily.TEXT), ("VARCHAR", TypeFamily.TEXT),
    ("STRING", TypeFamily.TEXT), ("NVARCHAR(120)", TypeFamily.TEXT), ("char(3)", TypeFamily.TEXT),
    ("timestamp with time zone", TypeFamily.TEMPORAL), ("DATE", TypeFamily.TEMPORAL),
    ("TIMESTAMP_NTZ", TypeFamily.TEMPORAL), ("boolean", TypeFamily.BOOLEAN), ("uuid", TypeFamily.UUID),
    ("JSON", TypeFamily.OTHER), ("INTEGER[]", TypeFamily.OTHER), ("STRUCT(a INT)", TypeFamily.OTHER),
    (None, TypeFamily.UNKNOWN), ("", TypeFamily.UNKNOWN),
])
def test_type_families(text, family):
    assert family_of(text) is family


def test_compatibility():
    I, D, T, B, U, X = (TypeFamily.INTEGER, TypeFamily.DECIMAL, TypeFamily.TEXT, TypeFamily.BOOLEAN,
                        TypeFamily.UUID, TypeFamily.OTHER)
    assert compatibility(I, I) is Compat.SAME
    assert compatibility(I, D) is Compat.COMPATIBLE
    assert compatibility(U, T) is Compat.COMPATIBLE
    assert compatibility(T, I) is Compat.NEEDS_VALUES and compatibility(I, T) is Compat.NEEDS_VALUES
    assert compatibility(B, I) is Compat.NO
    assert compatibility(X, X) is Compat.NO
    assert compatibility(TypeFamily.TEMPORAL, I) is Compat.NO
