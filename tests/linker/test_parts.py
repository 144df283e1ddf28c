"""Pure parts of the linker on records built in code: text, BM25, value index, join graph,
token estimate, gold-column extraction."""

from __future__ import annotations

import numpy as np
import pytest

from dbt_schema_link.linker import values as values_mod
from dbt_schema_link.linker.documents import ColumnDoc, EdgeDoc
from dbt_schema_link.evaluation.gold import gold_columns
from dbt_schema_link.linker.graph import JoinGraph
from dbt_schema_link.linker.lexical import LexicalIndex
from dbt_schema_link.linker.text import literals, split_identifier, stem, terms
from dbt_schema_link.linker.tokens import count_line, count_tokens
from dbt_schema_link.linker.values import ValueIndex


def test_identifiers_split_on_case_and_separators():
    assert split_identifier("customerID") == ["customer", "id"]
    assert split_identifier("dim_customers") == ["dim", "customers"]
    assert split_identifier("HTTPStatus-code") == ["http", "status", "code"]


def test_stemmer_maps_plurals_to_the_singular():
    assert [stem(w) for w in ("orders", "categories", "heroes", "boxes", "status", "class")] == \
        ["order", "category", "hero", "box", "status", "class"]
    assert terms("How many orders per customer?") == ["order", "per", "customer"]


def test_literals_quoted_capitalised_numbers_and_ngrams():
    lits = literals('Orders shipped to "New York" by Acme Corp in 2023')
    assert lits[0] == "New York"
    assert "2023" in lits and "Acme Corp" in lits and "shipped" in lits


def test_bm25_ranks_documents_with_rarer_terms_higher():
    docs = [[("order", 1.0), ("id", 1.0)], [("customer", 1.0), ("id", 1.0)], [("customer", 1.0), ("name", 1.0)]]
    lex = LexicalIndex.build(docs, 3)
    scores = lex.score(["customer", "name"])
    assert scores.argmax() == 2 and scores[0] == 0.0
    assert lex.max_score(["customer", "name"]) >= scores.max() - 1e-6
    again = LexicalIndex.from_arrays(lex.vocab_list(), lex.arrays("x_"), "x_")
    assert np.allclose(again.score(["customer"]), lex.score(["customer"]))


def test_value_index_exact_and_fuzzy():
    idx = ValueIndex.build([["Paris", "Berlin"], ["shipped", "pending"], ["New York", "Paris"]])
    hits = {h.column: h for h in idx.match("Which orders were shipped to Paris?")}
    assert set(hits) == {0, 1, 2}
    assert hits[1].value == "shipped" and hits[0].literal == "Paris"
    fuzzy = {h.column: h for h in idx.match("Customers from Berlim")}
    assert 0 in fuzzy and fuzzy[0].value == "berlin" and fuzzy[0].strength < 1.0


def test_value_index_uses_lsh_for_large_value_sets(monkeypatch):
    monkeypatch.setattr(values_mod, "FUZZY_SCAN_LIMIT", 50)
    column_values = [[f"Customer {i:04d} Ltd" for i in range(200)], ["Springfield Power Plant", "Shelbyville"]]
    idx = ValueIndex.build(column_values)
    assert idx.lsh_keys is not None  # the LSH path is the one used
    hits = {h.column: h for h in idx.match("Who works at Springfeld Power Plant?")}
    assert 1 in hits and hits[1].value == "springfield power plant"
    exact = {h.column for h in idx.match("Orders of Customer 0042 Ltd")}
    assert 0 in exact


def test_minhash_signatures_agree_for_similar_strings():
    sig = values_mod.minhash_signatures(["springfield", "springfeld", "zzzzqqqq"])
    same = (sig[0] == sig[1]).mean()
    other = (sig[0] == sig[2]).mean()
    assert same > 0.3 and other < 0.1


def _cols(spec: list[tuple[int, str]]) -> list[ColumnDoc]:
    return [ColumnDoc(relation=r, name=n, data_type="", description="", tags=[], values=[], is_pk=False) for r, n in spec]


def test_steiner_tree_adds_the_bridge_relation():
    # relations: 0 customers, 1 orders, 2 order_items, 3 products, 4 unrelated
    cols = _cols([(0, "customer_id"), (1, "order_id"), (1, "customer_id"), (2, "order_id"), (2, "product_id"),
                  (3, "product_id"), (4, "x")])
    edges = [EdgeDoc(2, 0, "declared", 1.0), EdgeDoc(3, 1, "declared", 1.0), EdgeDoc(4, 5, "declared", 1.0)]
    g = JoinGraph(edges, cols, 5)
    tree, unjoined = g.steiner_tree([0, 3])
    assert sorted(tree) == [0, 1, 2]
    assert unjoined == []
    tree, unjoined = g.steiner_tree([0, 4])
    assert tree == [] and set(unjoined) == {0, 4}


def test_steiner_tree_prefers_confident_and_relevant_paths():
    # 0 — 1 — 3 (declared) versus 0 — 2 — 3 (weak inferred)
    cols = _cols([(0, "a"), (1, "a"), (1, "b"), (2, "a"), (2, "b"), (3, "b")])
    edges = [EdgeDoc(1, 0, "declared", 1.0), EdgeDoc(2, 5, "declared", 1.0),
             EdgeDoc(3, 0, "inferred", 0.3), EdgeDoc(4, 5, "inferred", 0.3)]
    g = JoinGraph(edges, cols, 4)
    tree, _ = g.steiner_tree([0, 3])
    assert sorted(tree) == [0, 1]
    # a strong preference for relation 2 (cheap to enter) flips it
    tree, _ = g.steiner_tree([0, 3], node_cost={1: 1.0, 2: 0.0, 3: 0.0})
    assert sorted(tree) in ([0, 1], [2, 3])


def test_token_estimate_is_additive_over_lines():
    a, b = "TABLE orders -- One row per order", "  order_id INTEGER PK"
    assert count_tokens(a + "\n" + b) == count_line(a) + count_line(b) + 1
    assert count_tokens("") == 0


@pytest.mark.parametrize("sql, tables, columns", [
    ("SELECT count(*) FROM singer", {"singer"}, set()),
    ("SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id WHERE T2.year = 2014",
     {"singer", "concert"}, {("singer", "name"), ("singer", "singer_id"), ("concert", "singer_id"), ("concert", "year")}),
    ('SELECT name FROM singer WHERE country = "France"', {"singer"}, {("singer", "name"), ("singer", "country")}),
    ("SELECT name FROM singer WHERE singer_id NOT IN (SELECT singer_id FROM concert)",
     {"singer", "concert"}, {("singer", "name"), ("singer", "singer_id"), ("concert", "singer_id")}),
    ("WITH c AS (SELECT singer_id, count(*) AS n FROM concert GROUP BY singer_id) "
     "SELECT s.name FROM singer s JOIN c ON s.singer_id = c.singer_id ORDER BY c.n DESC",
     {"singer", "concert"}, {("singer", "name"), ("singer", "singer_id"), ("concert", "singer_id")}),
    ("SELECT * FROM singer", {"singer"}, set()),
])
def test_gold_columns_from_sql(sql, tables, columns):
    schema = {"singer": {"singer_id": "number", "name": "text", "country": "text"},
              "concert": {"concert_id": "number", "singer_id": "number", "year": "number"}}
    gold = gold_columns(sql, schema)
    assert gold.ok and not gold.unresolved
    assert gold.tables == tables
    assert gold.columns == columns


def test_gold_columns_reports_what_it_cannot_resolve():
    gold = gold_columns("SELECT nosuch FROM singer", {"singer": {"name": "text"}})
    assert gold.unresolved == ["nosuch"] and gold.columns == set()
    assert not gold_columns("SELEC oops", {}).ok


def test_lineage_copies_are_not_joins_and_upstream_layers_are_superseded():
    """raw.id → stg.customer_id is a pass-through copy: no join edge between them, raw is
    superseded, and the join orders.customer_id → raw.id holds for the stg copy discovery carried
    it to (the record's collapsed pairs): one edge per pair."""
    from dbt_schema_link.artifacts.records import Column, ColumnRef, Project, Relation, ResourceType
    from dbt_schema_link.linker.documents import ProjectInput, build_corpus
    from dbt_schema_link.links import Cardinality, Link, Provenance

    def rel(uid, cols):
        return Relation(uid, ResourceType.MODEL, uid.split(".")[-1], "p", "db", "s", uid.split(".")[-1],
                        None, columns={c: Column(c, "INTEGER", index=i) for i, c in enumerate(cols)})

    relations = {r.unique_id: r for r in [rel("model.p.raw", ["id", "name"]), rel("model.p.stg", ["customer_id", "name"]),
                                          rel("model.p.orders", ["order_id", "customer_id"])]}
    project = Project("p", "1.11", "duckdb", relations)
    ref = ColumnRef
    def link(child, parent, provenance, confidence, collapsed=()):
        return Link(child, parent, provenance, confidence, Cardinality.MANY_TO_ONE, collapsed=collapsed)

    links = [
        link(ref("model.p.stg", "customer_id"), ref("model.p.raw", "id"), Provenance.LINEAGE, 1.0),
        link(ref("model.p.stg", "name"), ref("model.p.raw", "name"), Provenance.LINEAGE, 1.0),
        link(ref("model.p.orders", "customer_id"), ref("model.p.raw", "id"), Provenance.INFERRED, 0.9,
             collapsed=((ref("model.p.orders", "customer_id"), ref("model.p.stg", "customer_id")),)),
    ]
    corpus = build_corpus([ProjectInput(project=project, profiles=None, links=links)])
    names = {i: r.short_name for i, r in enumerate(corpus.relations)}
    col = lambda c: (names[corpus.columns[c].relation], corpus.columns[c].name)  # noqa: E731
    edges = {(col(e.child), col(e.parent)) for e in corpus.edges}
    assert edges == {(("orders", "customer_id"), ("raw", "id")), (("orders", "customer_id"), ("stg", "customer_id"))}
    assert [r.short_name for r in corpus.relations if r.superseded] == ["raw"]


def test_a_columns_values_describe_it_only_when_they_are_few_categories():
    from dbt_schema_link.linker.documents import DESCRIBING_VALUES, RelationDoc

    rel = RelationDoc(unique_id="source.p.s.airports", project="p", name="s.airports", short_name="airports",
                      identifier="airports", relation_name='"s"."airports"', resource_type="source", database="d",
                      schema="s", description="", tags=[], primary_key=[])
    few = ColumnDoc(relation=0, name="country", data_type="text", description="", tags=[],
                    values=["Peru", "Chad"], is_pk=False)
    cities = [f"City {i:03d}" for i in range(DESCRIBING_VALUES + 10)] + ["Aberdeen"]
    many = ColumnDoc(relation=0, name="city", data_type="text", description="", tags=[], values=cities, is_pk=False)
    assert "(e.g. Peru, Chad)" in few.embed_text(rel)
    assert "e.g." not in many.embed_text(rel)  # an alphabetical cut of many names is no description
    # ... while every value still grounds a question's literal
    hits = ValueIndex.build([few.values, many.values]).match("How many flights depart from Aberdeen?")
    assert [(h.column, h.value) for h in hits if h.strength == 1.0] == [(1, "aberdeen")], hits
