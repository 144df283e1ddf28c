import pytest

from dbt_schema_link.discovery.names import (
    Role, Vocabulary, abbreviation_score, affix_similarity, analyse_column, analyse_relation, initialisms,
    is_glued, project_glued, singular, strip_table_prefix, table_column_prefix, tokens, with_compound_heads,
)
from dbt_schema_link.discovery.types import Compat, TypeFamily, column_family, compatibility, family_of

PREFIXES = ("stg_", "dim_", "fct_", "raw_", "int_")


@pytest.mark.parametrize("word, expected", [
    ("customers", "customer"), ("categories", "category"), ("addresses", "address"),
    ("boxes", "box"), ("statuses", "status"), ("status", "status"), ("people", "person"),
    ("series", "series"), ("id", "id"), ("ids", "id"),
    ("warehouses", "warehouse"), ("houses", "house"), ("causes", "cause"), ("buses", "bus"), ("bonuses", "bonus"),
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
    ("manager_id", Role.HIERARCHY), ("parent_id", Role.TREE), ("ReportsTo", Role.HIERARCHY),
    ("parent_category_id", Role.TREE),
    ("manager_name", None), ("customer_id", None), ("caused_by_ship_id", None),
    # role words abbreviated as their consonants are (first letter kept, most consonants kept)
    ("mgr_id", Role.HIERARCHY), ("rprt_to", Role.HIERARCHY), ("ownr_id", Role.PERSON), ("asgn_id", Role.PERSON),
    # ... but not words with their own vowels, truncations, or a few consonants shared by chance
    ("pet_id", None), ("age", None), ("sup_id", None), ("ssn", None), ("mgr_name", None),
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
    # a measure word abbreviated as its consonants, as role words are (museum_visit abbreviated)
    assert analyse_column("lvl_of_mem").measure and analyse_column("avg_rtg").measure
    assert not analyse_column("lvl_id").measure and not analyse_column("cont_nmbr").measure
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
    # a plural in -uses is read both ways: `warehouse_id` names `warehouses`, `status_id` `statuses`
    assert analyse_relation(["warehouses"], PREFIXES).keys["warehouse"] == 1.0
    assert analyse_relation(["order_statuses"], PREFIXES).keys["orderstatus"] == 1.0
    assert analyse_relation(["order_statuses"], PREFIXES).keys["status"] < 1.0


def test_a_glued_relation_name_is_read_for_its_head_noun_when_the_project_uses_the_word():
    vocabulary = Vocabulary(["heropower", "power", "superhero"], ["hero", "power", "superhero"])
    names = with_compound_heads(analyse_relation(["superhero"], PREFIXES), vocabulary.word)
    # `hero` names `superhero` as `channel` names `tv_channel`: its head noun, below the whole name
    assert names.keys["superhero"] == 1.0
    assert names.keys["hero"] == analyse_relation(["tv_channel"], PREFIXES).keys["channel"]
    assert names.key_words["hero"] == ("hero",)
    # only words the project's own relation names use cut a name: `address` stays whole
    address = analyse_relation(["addresses"], PREFIXES)
    assert with_compound_heads(address, vocabulary.word) is address
    assert "dress" in with_compound_heads(address, Vocabulary(["dress"], ["dress"]).word).keys
    # a snake-case name already has its words: nothing is added
    channel = analyse_relation(["tv_channel"], PREFIXES)
    assert with_compound_heads(channel, Vocabulary(["channel"], ["channel", "tv"]).word).keys == channel.keys
    # a head noun that names people makes the relation a table of people (roles point at it)
    assert with_compound_heads(analyse_relation(["salesperson"], PREFIXES),
                               Vocabulary(["person"], ["person"]).word).people > 0


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


@pytest.mark.parametrize("declared, profiled, family", [
    ("NUMBER", "NUMBER(38,0)", TypeFamily.INTEGER),  # Snowflake: catalog NUMBER, profile NUMBER(38,0)
    ("NUMBER", "NUMBER(10,2)", TypeFamily.DECIMAL),
    ("NUMBER", None, TypeFamily.DECIMAL),
    (None, "NUMBER(38,0)", TypeFamily.INTEGER),
    ("NUMBER", "FLOAT", TypeFamily.DECIMAL),  # another type: the catalog's wins
    ("TEXT", "VARCHAR(16777216)", TypeFamily.TEXT),
    ("numeric(10,2)", "NUMERIC(10,0)", TypeFamily.DECIMAL),  # the catalog already has a scale
])
def test_column_family_takes_the_profiles_precision_where_the_catalog_has_none(declared, profiled, family):
    assert column_family(declared, profiled) is family


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


# -- conventions that hide the words ---------------------------------------------------------

def test_glued_key_suffixes_split_only_into_known_words():
    known = Vocabulary(["customer", "order", "nation"])
    assert analyse_column("custkey", known).head == ("cust",)  # a truncation of a known word
    assert analyse_column("orderid", known).head == ("order",)
    assert analyse_column("orderid", known).keyness == 1.0
    assert analyse_column("valid", known).key_suffix is None  # "val" is no word of the project
    assert analyse_column("paid", known).key_suffix is None  # too short to split
    assert analyse_column("monkeyid", known).key_suffix is None
    assert analyse_column("monkey", known).key_suffix is None  # no relation name starts "mon"
    assert analyse_column("custkey").key_suffix is None  # no vocabulary, no split


def test_hungarian_type_tags_are_not_words():
    assert analyse_column("int_customer_id").head == ("customer",)
    assert analyse_column("str_name").tokens == ("name",)
    assert analyse_column("pk_customer").keyness == 1.0


@pytest.mark.parametrize("short, words_, expected", [
    ("cust", ("customer",), 0.9),               # truncation
    ("hdemo", ("household", "demographic"), 0.85),  # pieces of consecutive words
    ("cr", ("catalog", "return"), 0.85),        # initialism
    ("qty", ("quantity",), 0.75),               # subsequence keeping both ends
    ("mgr", ("manager",), 0.75),
    ("cu", ("customer",), 0.0),                 # two letters only as an initialism
    ("xyz", ("customer",), 0.0),
    ("cstmr", ("order",), 0.0),
    ("customer", ("customer",), 0.0),           # equal is not an abbreviation
    # over several words a subsequence must keep half the letters: `created` is spelt inside
    # central_department_record, ends and all (the scale benchmark's created_by columns)
    ("created", ("central", "department", "record"), 0.0),
    ("ordrln", ("order", "line"), 0.75),
])
def test_abbreviation_rules(short, words_, expected):
    assert abbreviation_score(short, words_) == expected


def test_initialisms_cover_the_piece_rule():
    shorts = initialisms(("household", "demographic"))
    assert {"hd", "hdemo", "housd"} <= shorts
    assert all(abbreviation_score(s, ("household", "demographic")) > 0 for s in shorts if len(s) >= 2)


@pytest.mark.parametrize("relation, columns, prefix", [
    (("order",), ["o_orderkey", "o_custkey", "o_totalprice", "o_comment"], "o"),
    (("partsupp",), ["ps_partkey", "ps_suppkey", "ps_supplycost"], "ps"),
    (("store", "sale"), ["ss_item_sk", "ss_customer_sk", "ss_quantity", "ss_net_paid"], "ss"),
    (("singer",), ["singer_id", "name", "country", "age"], None),  # a minority shares it
    (("order",), ["total_price", "total_tax", "order_id"], None),  # "total" is no abbreviation
    (("customercustomerdemo",), ["CustomerID", "CustomerTypeID"], None),  # an entity word, not a tag
    (("employee",), ["emp_id", "emp_name", "emp_age"], None),  # stripping would leave a bare "id"
])
def test_table_column_prefix(relation, columns, prefix):
    assert table_column_prefix([relation], columns) == prefix
    if prefix:
        assert strip_table_prefix(columns[0], prefix) != columns[0]


def test_strip_table_prefix_keeps_names_without_it():
    assert strip_table_prefix("o_custkey", "o") == "custkey"
    assert strip_table_prefix("PS_PARTKEY", "ps") == "PARTKEY"
    assert strip_table_prefix("order_id", "o") == "order_id"
    assert strip_table_prefix("o", "o") == "o"


def test_glued_names_are_cut_into_known_words():
    known = Vocabulary(["ship", "colour", "address", "shipper"], ["ship", "colour", "address"])
    assert analyse_column("causedbyshipid", known, glued=True).tokens == ("caused", "by", "ship", "id")
    assert analyse_column("eyecolourid", known, glued=True).head_ngrams()["colour"] == 0.85
    assert analyse_column("supportrepid", known, glued=True).role is Role.PERSON
    assert analyse_column("reportsto", known, glued=True).role is Role.HIERARCHY
    assert analyse_column("shipvia", known, glued=True).tokens == ("ship", "via")
    assert analyse_column("destination", known, glued=True).tokens == ("destination",)  # no "on"
    assert analyse_column("eyecolourid", known).tokens == ("eyecolourid",)  # not a glued relation


def test_a_closing_preposition_cuts_after_the_start_of_a_known_word():
    """`ship` is no relation's word, only the start of `shipper`'s: enough before `via`."""
    known = Vocabulary(["shipper", "order"], ["shipper", "order"])
    assert analyse_column("shipvia", known, glued=True).tokens == ("ship", "via")
    assert analyse_column("trivia", known, glued=True).tokens == ("trivia",)  # `tri` starts nothing known


def test_a_relation_is_glued_when_its_names_carry_no_separators():
    assert is_glued(["orderkey", "custkey", "totalprice", "comment"])
    assert not is_glued(["order_id", "customer_id", "status", "amount"])
    assert is_glued(["id", "name"]) is None  # too few to tell
    assert is_glued(["adrskey", "line1", "line2", "city", "country"])  # a number ending a word is no separator
    assert not is_glued(["address_id", "line_1", "line_2", "city"])


def test_a_relation_too_small_to_tell_is_read_as_most_of_its_project():
    assert project_glued([True, True, None, True])
    assert not project_glued([True, False, None])
    assert not project_glued([None, None])


def test_key_markers_name_no_entity_and_lead_head_first_names():
    assert analyse_column("pk_id").generic and analyse_column("fk_id").generic
    grams = analyse_column("id_color_eye").head_ngrams()
    assert grams["color"] == 0.85  # the entity word right after a leading id_
    assert analyse_column("eye_colour_id").head_ngrams()["eye"] < 0.5
