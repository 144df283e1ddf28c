"""Documentation write-back, the pure parts: profile drafts, the lineage walk to the nearest
person-written description, the generated-text marker, and docs planning on the tinyshop YAML
(no dbt: records built in code)."""

from __future__ import annotations

import pytest
from ruamel.yaml.comments import CommentedMap

from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.errors import SchemaLinkError
from dbt_schema_link.profiling.records import ColumnProfile, ProfileSet, RelationProfile
from dbt_schema_link.writers import WriteOptions, apply, plan_writes
from dbt_schema_link.writers.doc_coverage import docs_coverage, to_json, to_markdown
from dbt_schema_link.writers.doc_drafts import column_draft, grain, relation_draft, words
from dbt_schema_link.writers.doc_lineage import Ambiguous, Ancestor, LineageGraph
from dbt_schema_link.writers.doc_marker import Marker, marker_value, origin, text_hash
from dbt_schema_link.writers.doc_records import DocOrigin, DocsInput, DocsMode, Generated, LineageCopy
from tests.writers.tinyshop import link, synthetic_project, write_project


def _col(name, data_type="VARCHAR", non_null=100, distinct=3, top=None, min_len=None, max_len=None,
         approx=False, flag=False, **extra):
    return ColumnProfile(name=name, data_type=data_type, non_null=non_null, distinct=distinct,
                         distinct_approx=approx, min_len=min_len, max_len=max_len, minhash=None,
                         top_values=top, flag_words=flag, **extra)


def _rel(uid, rows, *cols, sampled=False):
    return RelationProfile(unique_id=uid, relation=uid, row_count=rows, sampled=sampled, sample_percent=None,
                           columns={c.name.lower(): c for c in cols})


# -- drafts ------------------------------------------------------------------------------------

def test_column_drafts_say_what_the_profile_measured():
    prof = _rel("model.x.orders", 100,
                _col("status", top=("open", "shipped", "closed"), min_len=4, max_len=7),
                _col("order_id", "INTEGER", distinct=100),
                _col("delivered_at", "TIMESTAMP", non_null=97, distinct=95, approx=True),
                _col("country_code", "VARCHAR(2)", distinct=40, min_len=2, max_len=2, top=tuple("abcdefghij")),
                _col("is_gift", "BOOLEAN", distinct=2, flag=True, top=("true", "false")),
                _col("note", non_null=0, distinct=0))
    assert column_draft("status", prof, 6) == "Status (text); one of open, shipped, closed; never null."
    assert column_draft("order_id", prof, 6) == "Order id (integer); unique; never null."
    assert column_draft("delivered_at", prof, 6) == "Delivered at (timestamp); about 95 distinct values; 3% null."
    assert column_draft("country_code", prof, 6) == ("Country code (text); 40 distinct values; always 2 characters; "
                                                     "never null.")
    assert column_draft("is_gift", prof, 6) == "Is gift (true/false); never null."
    assert column_draft("note", prof, 6) == "Note (text); always null."
    # three values but a limit of two: counted, not listed
    assert column_draft("status", prof, 2) == "Status (text); 3 distinct values; 4-7 characters; never null."
    assert column_draft("missing", prof, 6) is None and column_draft("status", None, 6) is None


def test_numeric_range_and_samples_are_stated():
    prof = _rel("model.x.reviews", 1000, _col("rating", "INTEGER", non_null=1000, distinct=5,
                                               top=("5", "4", "3", "2", "1"), min_value=1.0, max_value=5.0),
                _col("amount", "DECIMAL(10,2)", non_null=990, distinct=700, min_value=0.5, max_value=1250.0),
                sampled=True)
    assert column_draft("rating", prof, 4) == ("Rating (integer); 5 distinct values; from 1 to 5; never null "
                                               "(measured on a sample).")
    assert column_draft("amount", prof, 6) == ("Amount (decimal); 700 distinct values; from 0.5 to 1250; "
                                               "1% null (measured on a sample).")


def test_words_and_grain():
    assert words("first_shipped_at") == "First shipped at"
    assert words("FirstShippedAt") == "First shipped at"
    assert words("SKU_code") == "SKU code"
    project = synthetic_project("/nonexistent")
    orders = project.relations["model.tinyshop.orders"]
    assert grain(orders, None) == ("order_id",)  # declared primary key
    stores = project.relations["model.tinyshop.stores"]
    text_first = _rel(stores.unique_id, 2, _col("name", "VARCHAR", 2, 2), _col("store_id", "INTEGER", 2, 2))
    assert grain(stores, text_first) == ("store_id",)  # both unique: the integer one
    two_ints = _rel(stores.unique_id, 2, _col("owner_id", "INTEGER", 2, 2), _col("store_id", "INTEGER", 2, 2))
    assert grain(stores, two_ints) == ("store_id",)  # both unique integers: the first in column order
    with_nulls = _rel(stores.unique_id, 2, _col("store_id", "INTEGER", 1, 1))
    assert grain(stores, with_nulls) == ()
    joins = [link("orders.customer_id", "customers.customer_id"), link("orders.store_id", "stores.store_id")]
    assert relation_draft(orders, None, joins, project.relations) == (
        "One row per order_id; joins to customers on customer_id, stores on store_id.")
    renamed = [link("stores.owner_id", "customers.customer_id")]
    assert relation_draft(stores, None, renamed, project.relations) == (
        "Joins to customers on owner_id = customer_id.")
    assert relation_draft(stores, None, [], project.relations) is None


# -- lineage walk ------------------------------------------------------------------------------

def _ref(rel, col):
    return ColumnRef(f"model.x.{rel}", col)


def test_nearest_person_description_through_renames_and_undocumented_layers():
    graph = LineageGraph([
        LineageCopy(_ref("stg", "account_id"), _ref("raw", "id")),
        LineageCopy(_ref("int", "acct_key"), _ref("stg", "account_id")),
        LineageCopy(_ref("mart", "account_id"), _ref("int", "acct_key")),
        LineageCopy(_ref("mart", "holder"), _ref("int", "holder")),
        LineageCopy(_ref("int", "holder"), _ref("stg", "holder")),
    ])
    texts = {_ref("raw", "id"): "Account number.", _ref("int", "holder"): "Name on invoices.",
             _ref("stg", "holder"): "Holder."}
    found = graph.nearest_documented(_ref("mart", "account_id"), texts.get)
    assert isinstance(found, Ancestor) and found.ref == _ref("raw", "id") and found.hops == 3
    nearer = graph.nearest_documented(_ref("mart", "holder"), texts.get)
    assert nearer.ref == _ref("int", "holder") and nearer.text == "Name on invoices."
    assert graph.nearest_documented(_ref("raw", "id"), texts.get) is None


def test_differently_documented_inputs_are_ambiguous_and_cycles_end():
    graph = LineageGraph([
        LineageCopy(_ref("u", "id"), _ref("a", "id")),
        LineageCopy(_ref("u", "id"), _ref("b", "id")),
        LineageCopy(_ref("p", "x"), _ref("q", "x")),
        LineageCopy(_ref("q", "x"), _ref("p", "x")),
    ])
    differ = {_ref("a", "id"): "A key.", _ref("b", "id"): "B key."}
    assert isinstance(graph.nearest_documented(_ref("u", "id"), differ.get), Ambiguous)
    same = {_ref("a", "id"): "Key.", _ref("b", "id"): "Key."}
    assert graph.nearest_documented(_ref("u", "id"), same.get).text == "Key."
    assert graph.nearest_documented(_ref("p", "x"), {}.get) is None


# -- marker ------------------------------------------------------------------------------------

def test_origin_tells_generated_text_from_a_persons():
    text = "Account number."
    ours = CommentedMap(name="id", description=text,
                        config=CommentedMap(meta=CommentedMap(schema_link=marker_value(Generated.INHERITED, text, "raw.id"))))
    assert origin(ours) is DocOrigin.INHERITED and Marker.of(ours).inherited_from == "raw.id"
    ours["description"] = "Account number, as printed on invoices."  # edited by a person: theirs now
    assert origin(ours) is DocOrigin.PERSON
    legacy = CommentedMap(name="x", description="X.", meta={"schema_link": {"generated": "draft", "doc_hash": text_hash("X.")}})
    assert origin(legacy) is DocOrigin.DRAFTED
    joins = CommentedMap(name="c", description="Joins to `customers.customer_id` (many-to-one).",
                         config={"meta": {"schema_link": {"parent": "customers.customer_id",
                                                          "relationship_type": "many-to-one"}}})
    assert origin(joins) is DocOrigin.DRAFTED
    assert origin(CommentedMap(name="y", description="  ")) is DocOrigin.NONE
    assert origin(None) is DocOrigin.NONE


def test_settings_are_validated():
    assert WriteOptions(docs=["draft", "inherit"]).docs == (DocsMode.INHERIT, DocsMode.DRAFT)
    assert WriteOptions(docs="inherit,draft").docs == (DocsMode.INHERIT, DocsMode.DRAFT)
    with pytest.raises(SchemaLinkError, match="unknown docs mode 'guess'"):
        WriteOptions(docs=["guess"])
    with pytest.raises(SchemaLinkError, match="draft_max_values"):
        WriteOptions(draft_max_values=-1)


# -- planning on real YAML (tinyshop's hand-written schema.yml) ---------------------------------

def _tiny_profiles(project) -> ProfileSet:
    rows = {"model.tinyshop.orders": 4, "model.tinyshop.customers": 3, "model.tinyshop.stores": 2,
            "model.tinyshop.payments": 3, "source.tinyshop.raw.payments": 3}
    out = ProfileSet(adapter="duckdb", k=0, package_version="")
    for uid, rel in project.relations.items():
        # each relation's first column is its only unique one (stores has no declared key)
        cols = [_col(c.name, "INTEGER", rows[uid], rows[uid] if i == 0 else 1) for i, c in enumerate(rel.columns.values())]
        out.relations[uid] = _rel(uid, rows[uid], *cols)
    return out


def test_docs_planned_into_hand_written_yaml(tmp_path):
    root = write_project(tmp_path / "tinyshop")
    project = synthetic_project(root)
    lineage = (LineageCopy(ColumnRef("model.tinyshop.payments", "order_id"), ColumnRef("model.tinyshop.orders", "order_id")),
               LineageCopy(ColumnRef("model.tinyshop.orders", "store_id"), ColumnRef("model.tinyshop.stores", "store_id")),
               LineageCopy(ColumnRef("model.tinyshop.stores", "name"), ColumnRef("model.tinyshop.customers", "name")))
    docs = DocsInput(lineage=lineage, profiles=_tiny_profiles(project))
    before = (root / "models" / "schema.yml").read_text()
    options = WriteOptions(docs=(DocsMode.INHERIT, DocsMode.DRAFT), tests=False)
    plan = plan_writes(project, [link("orders.customer_id", "customers.customer_id", 0.95)], options, docs)
    assert not plan.refusals, plan.refusals
    apply(plan)
    after = (root / "models" / "schema.yml").read_text()
    # every hand-written line is still there, in order: only lines were added
    old_lines, new_lines = before.splitlines(), iter(after.splitlines())
    assert all(any(line == new for new in new_lines) for line in old_lines)
    assert 'description: "Human-written: the store"' in after  # orders.store_id: a person's, untouched
    report = {r.name: r for r in docs_coverage(project, root).relations}
    cov = {c.name: c.origin for c in report["orders"].columns}
    assert cov["store_id"] is DocOrigin.PERSON and cov["customer_id"] is DocOrigin.DRAFTED  # "Joins to ..."
    assert cov["order_id"] is DocOrigin.DRAFTED and cov["status"] is DocOrigin.DRAFTED
    # nothing documented upstream of payments.order_id (orders.order_id has no description): drafted
    assert {c.origin for c in report["payments"].columns} == {DocOrigin.DRAFTED}
    assert report["stores"].description is DocOrigin.DRAFTED  # new entry, relation draft
    assert "description: One row per store_id." in (root / "models" / "_stores__schema_link.yml").read_text()
    assert "One row per customer_id" not in after  # customers has a description by a person
    # a second plan on the written files changes nothing
    again = plan_writes(project, [link("orders.customer_id", "customers.customer_id", 0.95)], options, docs)
    assert not again.changes, [c.display for c in again.changes]
    md, js = to_markdown(docs_coverage(project, root)), to_json(docs_coverage(project, root))
    assert "| orders | model | person |" in md and '"share": 1.0' in js


# -- optional LLM wording (a real HTTP round trip to the local fake endpoint) -------------------

def test_llm_wording_is_kept_only_when_it_keeps_every_fact(tmp_path):
    from dbt_schema_link.llm.options import WRITE_STAGES, llm_options
    from dbt_schema_link.llm.wording import DraftWording
    from tests.llm.fakeserver import Reply, ScriptedLLM, closed_port_url, completion, prompt_text

    def handler(body):
        prompt = prompt_text(body)
        if "Object: orders.status" in prompt:  # the draft says 2 distinct values; this says 4
            return Reply(body=completion("Status code of the order, 4 distinct values, never empty"))
        if "Object: orders.order_id" in prompt:  # a draft with no number or name to keep
            return Reply(body=completion("The order's own number; every value unique and present"))
        if "Object: stores" in prompt and "Object: stores." not in prompt:  # keeps store_id
            return Reply(body=completion("Each row is one store, identified by store_id."))
        if "Object: payments.amount" in prompt:  # a refused request (not retried)
            return Reply(400, {"error": {"message": "bad request"}})
        return Reply(body=completion("Something vague"))  # drops the facts

    root = write_project(tmp_path / "tinyshop")
    project = synthetic_project(root)
    profiles = _tiny_profiles(project)
    profiles.relations["model.tinyshop.orders"].columns["status"] = _col("status", "INTEGER", 4, 2)
    options = WriteOptions(docs=(DocsMode.DRAFT,), tests=False, column_docs=False, draft_max_values=0)
    with ScriptedLLM(handler) as server:
        llm = llm_options("wording", base_url=server.base_url, model="test-model", allowed=WRITE_STAGES)
        wording = DraftWording(llm)
        plan = plan_writes(project, [], options, DocsInput(profiles=profiles, wording=wording))
        prompts = [prompt_text(body) for _, _, body in server.requests]
    new = {c.display: c.new.decode() for c in plan.changes}
    schema, stores = new["models/schema.yml"], new["models/_stores__schema_link.yml"]
    assert "Status code of the order" not in schema and "Status (integer); 2 distinct values; never null." in schema
    assert "description: The order's own number; every value unique and present." in schema
    assert "description: Each row is one store, identified by store_id." in stores
    assert any("Keep verbatim: 2" in p for p in prompts)  # the facts travel with the request
    assert any("kept as measured" in n for n in plan.notes)
    assert len(wording.warnings) == 1 and "payments.amount" in wording.warnings[0]
    # an endpoint that is down: one warning, every draft as measured, no further attempts
    down = DraftWording(llm_options("wording", base_url=closed_port_url(), model="m", allowed=WRITE_STAGES))
    plan = plan_writes(project, [], options, DocsInput(profiles=profiles, wording=down))
    assert len(down.warnings) == 1 and "wording off" in down.warnings[0]
    assert "Status (integer); 2 distinct values; never null." in {c.display: c.new.decode() for c in plan.changes}["models/schema.yml"]
