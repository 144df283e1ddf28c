"""Rules of issues #61 and #62 on small warehouses built in code: a key looked up through a join
is a reference, not a copy; what the data cannot confirm (an all-NULL child, a parent of a few
rows) stands on a name that designates the parent's key alone and is never written; periods and
flags are never keys; an unchecked or partial pair stays under the write bar."""

import random

from dbt_schema_link.artifacts.records import ResourceType

from dbt_schema_link.discovery import DiscoverySettings, Trap, discover
from dbt_schema_link.discovery.policy import CAPS
from dbt_schema_link.links import CONFIDENCE_BARS
from tests.discovery.builders import Warehouse, pairs

INT, TEXT, TS = "INTEGER", "VARCHAR", "TIMESTAMP"


def ids(n, start=1):
    return list(range(start, start + n))


def run(w, **settings):
    return discover(w.project(), w.profiles(), DiscoverySettings(**settings), verify=w.verifier())


def star_schema() -> Warehouse:
    """staging -> dimensions with surrogate keys -> a fact that looks its keys up by code."""
    rng = random.Random(61)
    w = Warehouse()
    codes = [f"C{i:03d}" for i in range(122)]
    agents = [f"A{i:02d}" for i in range(23)]
    sale_clients = [rng.choice(codes) for _ in range(600)]
    sale_agents = [rng.choice(agents) for _ in range(600)]
    stg_client = w.model("stg_client", {"client_code": (TEXT, codes), "client_name": (TEXT, [f"n{c}" for c in codes])},
                         sql='select client_code, client_name from "db"."raw"."clients"')
    stg_agent = w.model("stg_agent", {"agent_code": (TEXT, agents), "agent_name": (TEXT, [f"m{a}" for a in agents])},
                        sql='select agent_code, agent_name from "db"."raw"."agents"')
    stg_sales = w.model("stg_sales", {"sale_id": (INT, ids(600, 5000)), "client_code": (TEXT, sale_clients),
                                      "agent_code": (TEXT, sale_agents)},
                        sql='select sale_id, client_code, agent_code from "db"."raw"."sales"')
    dim_client = w.model("dim_client", {"client_key": (INT, ids(122)), "client_code": (TEXT, codes),
                                        "client_name": (TEXT, [f"n{c}" for c in codes])}, depends_on=[stg_client],
                         sql='select row_number() over (order by client_code) as client_key, client_code, client_name '
                             'from "db"."main"."stg_client"')
    dim_agent = w.model("dim_agent", {"agent_key": (INT, ids(23)), "agent_code": (TEXT, agents)}, depends_on=[stg_agent],
                        sql='select row_number() over (order by agent_code) as agent_key, agent_code '
                            'from "db"."main"."stg_agent"')
    client_key = {c: i + 1 for i, c in enumerate(codes)}
    agent_key = {a: i + 1 for i, a in enumerate(agents)}
    w.model("fct_sales", {"sale_id": (INT, ids(600, 5000)),
                          "client_key": (INT, [client_key[c] for c in sale_clients]),
                          "agent_key": (INT, [agent_key[a] for a in sale_agents])},
            depends_on=[stg_sales, dim_client, dim_agent], sql='''
            select s.sale_id, c.client_key, a.agent_key
            from "db"."main"."stg_sales" s
            left join "db"."main"."dim_client" c on c.client_code = s.client_code
            left join "db"."main"."dim_agent" a on a.agent_code = s.agent_code''')
    return w


def test_a_key_looked_up_from_a_dimension_is_a_reference_not_a_copy():
    links = run(star_schema())
    found = pairs(links.inferred)
    assert ("fct_sales.client_key", "dim_client.client_key") in found
    assert ("fct_sales.agent_key", "dim_agent.agent_key") in found
    # the dense agent keys 1..23 sit inside the client keys 1..122: never the client's
    assert not any(c == "fct_sales.agent_key" and p.startswith("dim_client") for c, p in found)
    assert not any(c == "fct_sales.client_key" for c, _ in pairs(links.lineage))
    link = next(k for k in links.inferred if k.child.column == "client_key")
    assert "lookup" in " ".join(e.detail for e in link.evidence)
    # the fact's grain differs from the dimension's: many-to-one
    assert link.cardinality.value == "many_to_one"


def test_a_pass_through_copy_of_a_key_stays_lineage():
    w = star_schema()
    w.model("dim_client_copy", {"client_key": (INT, ids(122))}, depends_on=[next(
        uid for uid in w.relations if uid.endswith("dim_client"))],
        sql='select client_key from "db"."main"."dim_client"')
    links = run(w)
    assert ("dim_client_copy.client_key", "dim_client.client_key") in pairs(links.lineage)
    assert not any(c == "dim_client_copy.client_key" for c, _ in pairs(links.inferred))


def _saas_like() -> Warehouse:
    """A help desk's sample rows: most tables have two rows, many columns hold only NULLs."""
    w = Warehouse()
    w.table("user", {"id": (INT, [1, 2]), "name": (TEXT, ["a", "b"]), "email": (TEXT, ["a@x", "b@x"])})
    w.table("user_email", {"user_id": (INT, [1, 2]), "email": (TEXT, ["a@x", "b@x"])})
    w.table("job_post", {"id": (INT, [10, 11]), "title": (TEXT, ["t1", "t2"]),
                         "location_name": (TEXT, ["here", "there"])})
    w.table("office", {"id": (INT, [7, 8]), "location_name": (TEXT, [None, None]),
                       "primary_contact_user_id": (INT, [None, None])})
    w.table("activity", {"id": (INT, ids(40, 100)), "user_id": (INT, [None] * 40),
                         "memo": (TEXT, [None] * 40)})
    w.table("candidate", {"id": (INT, ids(30, 500)), "title": (TEXT, [None] * 30)})
    return w


def test_an_all_null_child_links_only_where_its_name_designates_the_parents_key():
    links = run(_saas_like())
    found = pairs(links.inferred)
    # free text and attributes sharing a name with a tiny table's unique column: refused
    assert not any(c in ("office.location_name", "candidate.title", "activity.memo") for c, _ in found)
    # the entity, not the bridge that carries its key
    assert ("activity.user_id", "user_email.user_id") not in found
    assert ("activity.user_id", "user.id") in found
    traps = {(r.child.column, r.parent.relation.rsplit(".", 1)[-1]): r.trap for r in links.rejected}
    assert traps.get(("location_name", "job_post")) in (Trap.EMPTY_CHILD, Trap.TINY_PARENT)
    # named, no data to check: kept for ask and MCP, under the write bar
    for link in links.inferred:
        if link.child.column in ("user_id", "primary_contact_user_id"):
            assert link.confidence <= CAPS.unconfirmed < CONFIDENCE_BARS.write_test
            assert "no data to check" in " ".join(e.detail for e in link.evidence)


def test_a_tiny_parent_is_no_evidence_of_a_key():
    """Every column of a one-row table is unique and holds the one value it has: a timestamp
    or a code equal by chance there is no reference."""
    w = Warehouse()
    w.table("company", {"sys_id": (TEXT, ["k1"]), "sys_created_on": (TS, ["2020-01-01 00:00:00"]),
                        "close_code": (TEXT, ["done"])})
    w.table("incident", {"sys_id": (TEXT, [f"i{i}" for i in range(20)]),
                         "sys_created_on": (TS, ["2020-01-01 00:00:00"] * 20),
                         "close_code": (TEXT, ["done"] * 20)})
    found = pairs(run(w).inferred)
    assert not any(c.startswith("incident.") for c, _ in found)


def test_timestamps_are_never_keys_whatever_their_names():
    rng = random.Random(3)
    w = Warehouse()
    days = [f"2021-01-{d:02d} 10:00:00" for d in range(1, 29)]
    w.table("batches", {"batch_id": (INT, ids(28)), "loaded_at": (TS, days)})
    w.table("rows", {"row_id": (INT, ids(200, 900)), "loaded_at": (TS, [rng.choice(days) for _ in range(200)])})
    links = run(w, min_confidence=0.05)
    assert not any(c == "rows.loaded_at" for c, _ in pairs(links.inferred))
    assert any(r.trap is Trap.NOT_A_KEY for r in links.rejected if r.child.column == "loaded_at")


def test_a_partial_link_stays_under_the_join_bar():
    """A named child whose values the parent holds only in part: a real join of a sampled parent,
    kept under the bar at which `ask` joins a second schema (write gives it thresholds)."""
    rng = random.Random(5)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(80)), "name": (TEXT, [f"c{i}" for i in range(80)])})
    w.table("orders", {"order_id": (INT, ids(400, 1000)),
                       "customer_id": (INT, [rng.choice(ids(90)) for _ in range(400)])})
    (link,) = [k for k in run(w).inferred if k.child.column == "customer_id"]
    assert CONFIDENCE_BARS.keep_link <= link.confidence <= CAPS.partial < CONFIDENCE_BARS.span_units


def test_a_join_is_reported_on_the_staging_models_not_their_pass_through_views():
    """A package's `_tmp` views are `select *` of each source table; its staging models rename
    inside CTEs and close on `select * from final`, which is no pass-through.
    The join is one link, kept on the staging pair, with the views' pair among its copies."""
    rng = random.Random(7)
    w = Warehouse()
    deals = ids(60, 300)
    note_deals = [rng.choice(deals) for _ in range(200)]
    deal = w.table("deal", {"id": (INT, deals), "name": (TEXT, [f"d{i}" for i in deals])})
    note = w.table("note", {"id": (INT, ids(200, 9000)), "deal_id": (INT, note_deals)})
    deal_tmp = w.model("stg_crm__deal_tmp", {"id": (INT, deals), "name": (TEXT, [f"d{i}" for i in deals])},
                       depends_on=[deal], sql='select * from "db"."raw"."deal"')
    note_tmp = w.model("stg_crm__note_tmp", {"id": (INT, ids(200, 9000)), "deal_id": (INT, note_deals)},
                       depends_on=[note], sql='select * from "db"."raw"."note"')
    w.model("stg_crm__deal", {"deal_id": (INT, deals), "deal_name": (TEXT, [f"d{i}" for i in deals])},
            depends_on=[deal_tmp], sql='select id as deal_id, name as deal_name from "db"."main"."stg_crm__deal_tmp"')
    w.model("stg_crm__note", {"note_id": (INT, ids(200, 9000)), "deal_id": (INT, note_deals)},
            depends_on=[note_tmp], sql='with final as (select id as note_id, deal_id from "db"."main"."stg_crm__note_tmp") '
                'select * from final')  # dbt style: a staging model closes on `select * from final`
    links = run(w)
    deal_links = [k for k in links.inferred if k.child.column == "deal_id"]
    assert [(k.child.relation.rsplit(".", 1)[-1], k.parent.relation.rsplit(".", 1)[-1]) for k in deal_links] == [
        ("stg_crm__note", "stg_crm__deal")]
    copies = {(c.relation.rsplit(".", 1)[-1], p.relation.rsplit(".", 1)[-1]) for c, p in deal_links[0].collapsed}
    assert ("stg_crm__note_tmp", "stg_crm__deal_tmp") in copies


def test_a_declared_relation_the_warehouse_lacks_is_never_verified():
    """Profiling skips a source whose relation does not exist; the exact check must never be
    asked about it (the warehouse would fail the whole call), and the run goes on."""
    rng = random.Random(9)
    w = Warehouse()
    w.table("customers", {"customer_id": (INT, ids(50)), "name": (TEXT, [f"c{i}" for i in range(50)])})
    w.table("orders", {"order_id": (INT, ids(300, 1000)), "customer_id": (INT, [rng.choice(ids(50)) for _ in range(300)])})
    missing = w.table("refunds", {"refund_id": (INT, ids(10)), "customer_id": (INT, ids(10))}, profiled=False)
    inner = w.verifier()
    asked = []

    def verify(pairs):
        asked.extend(pairs)
        if any(missing in (c.relation, p.relation) for c, p in pairs):
            raise RuntimeError(f"{missing} does not exist in the warehouse")
        return inner(pairs)

    links = discover(w.project(), w.profiles(), DiscoverySettings(), verify=verify)
    assert ("orders.customer_id", "customers.customer_id") in pairs(links.inferred)
    assert asked and not any(missing in (c.relation, p.relation) for c, p in asked)


def test_a_minhash_estimate_never_claims_what_its_own_figures_deny():
    """One child value in a large parent: no minimum lands in the child, so the estimate's
    containment (no witness against) says nothing; the line must not read as containment 1.00."""
    from dbt_schema_link.discovery.values import ContainmentEstimate
    untold = ContainmentEstimate(1.0, 0.0, 0.0, 0.01, 0).describe(1, 500)
    assert "containment≈1.00" not in untold and "only the exact check can say" in untold
    told = ContainmentEstimate(1.0, 0.5, 0.9, 0.9, 0).describe(50, 60)
    assert told.startswith("containment≈1.00")


def test_a_tiny_parent_sample_neither_confirms_nor_contradicts_a_designating_name():
    """Sample rows: the two candidates hold other ids than the applications name. The name
    `candidate_id` designates the candidate's key, so the pair is kept, judged on the name alone,
    under the write bar, and says what the exact check found."""
    w = Warehouse()
    w.table("candidate", {"id": (INT, [11, 12]), "name": (TEXT, ["a", "b"])})
    w.table("application", {"id": (INT, ids(30, 100)), "candidate_id": (INT, ids(30, 900))})
    (link,) = [k for k in run(w).inferred if k.child.column == "candidate_id"]
    assert link.parent.relation.endswith(".candidate") and link.parent.column == "id"
    assert link.confidence == CAPS.unconfirmed < CONFIDENCE_BARS.write_test
    detail = " ".join(e.detail for e in link.evidence)
    assert "found 0 of 30 child values in the parent, which is not weighed" in detail
    assert "no data to check" in detail


def test_a_tiny_parents_fixed_width_keys_refuse_values_of_another_shape():
    """One user row keyed by a 32-character id: names of people in `sys_created_by` are no
    such keys, however the role reads."""
    w = Warehouse()
    w.table("sys_user", {"sys_id": (TEXT, ["b0f31e5673500010c2e7660c4cf6a711"]), "name": (TEXT, ["admin"])})
    w.table("task", {"sys_id": (TEXT, [f"{i:032x}" for i in range(20)]),
                     "sys_created_by": (TEXT, ["admin", "first.last", "bob"] * 6 + ["x", "y"])})
    links = run(w, min_confidence=0.0)
    assert not any(c == "task.sys_created_by" for c, _ in pairs(links.inferred))
    # one key name on every table's own key is the naming habit, not a reference
    assert not any(c == "task.sys_id" for c, _ in pairs(links.inferred))
    (r,) = [r for r in links.rejected if r.child.column == "sys_created_by"]
    assert r.trap is Trap.TINY_PARENT and "32 characters long" in r.detail


def test_the_entity_beats_a_relation_that_carries_its_key_whatever_the_evidence():
    """`organization_id` is named for `organization`, which has a key: a bridge that carries
    every organization id (the values fit it fully) is a sibling, never its parent; the header
    a line table is named for stays the line's parent."""
    rng = random.Random(11)
    w = Warehouse()
    orgs = ids(40, 700)
    w.table("organization", {"id": (INT, orgs), "name": (TEXT, [f"o{i}" for i in orgs])})
    w.table("organization_job_family", {"organization_id": (INT, orgs), "job_family_id": (INT, ids(40, 50))})
    w.table("organization_role", {"id": (INT, ids(200, 5000)),
                                  "organization_id": (INT, [rng.choice(orgs[:30]) for _ in range(200)])})
    journals = ids(50, 3000)
    w.table("journal", {"journal_id": (INT, ids(50, 8000)), "number": (INT, ids(50))})
    w.table("journal_cash", {"journal_id": (INT, journals), "number": (INT, ids(50))})
    w.table("journal_cash_line", {"journal_line_id": (INT, ids(150, 20000)),
                                  "journal_id": (INT, [rng.choice(journals) for _ in range(150)])})
    links = run(w)
    found = pairs(links.inferred)
    assert ("organization_role.organization_id", "organization.id") in found
    assert not any(p.startswith("organization_job_family.") for _, p in found)
    assert ("journal_cash_line.journal_id", "journal_cash.journal_id") in found


def test_a_shared_attribute_name_with_orphans_is_no_partial_link():
    """Two line tables' `index` (a position inside their order) overlap in part: the name is an
    attribute both have, not a reference, so orphans make no partial link of it."""
    rng = random.Random(13)
    w = Warehouse()
    w.table("product_tag", {"index": (INT, ids(12, 0)), "product_id": (INT, [1] * 12), "value": (TEXT, list("abcdefghijkl"))})
    w.table("order_shipping_tax_line", {"id": (INT, ids(60, 400)), "index": (INT, [rng.choice(ids(30, 0)) for _ in range(60)])})
    links = run(w)
    assert not any(c == "order_shipping_tax_line.index" for c, _ in pairs(links.inferred))


def test_a_list_of_contacts_is_not_the_contact_relation():
    """`contact_list` drops its generic word to `contact`, but the project has a `contact`:
    that relation is the one `contact_id` names. Sample rows: the contacts hold other ids than
    the tickets name, the lists' ids happen to hold them; the list is still no parent."""
    rng = random.Random(17)
    w = Warehouse()
    w.table("contact", {"id": (INT, ids(40, 1000)), "email": (TEXT, [f"c{i}@x" for i in range(40)])})
    w.table("contact_list", {"id": (INT, ids(60, 1)), "name": (TEXT, [f"l{i}" for i in range(60)])})
    w.table("ticket_contact", {"ticket_id": (INT, ids(90, 500)),
                               "contact_id": (INT, [rng.choice(ids(40, 1)) for _ in range(90)])})
    links = run(w)
    assert not any(p.startswith("contact_list.") for _, p in pairs(links.inferred))
    (r,) = [r for r in links.rejected if r.child.column == "contact_id"]
    assert r.trap is Trap.NAMED_ELSEWHERE and "contact_list merely carries it" in r.detail


def test_a_report_grouped_by_a_key_or_period_is_no_parent():
    """`int_cost_by_shop` groups costs by shop and the reports group by month: each grouping
    column is unique by construction and holds every value the expenses have. The shop entity
    is the expenses' parent; a report is none."""
    rng = random.Random(19)
    w = Warehouse()
    shops = ids(30, 100)
    months = [f"{y}-{m:02d}" for y in (2023, 2024) for m in range(1, 13)]
    w.model("stg_shops", {"shop_id": (INT, shops), "name": (TEXT, [f"s{i}" for i in shops])},
            sql='select shop_id, name from "db"."raw"."shops"')
    w.model("fct_expenses", {"expense_id": (INT, ids(300, 5000)),
                             "shop_id": (INT, [rng.choice(shops[:25]) for _ in range(300)]),
                             "sale_month": (TEXT, [rng.choice(months[:20]) for _ in range(300)])},
            sql='select expense_id, shop_id, sale_month from "db"."raw"."expenses"')
    w.model("int_cost_by_shop", {"shop_id": (INT, shops[:28]), "cost": (INT, ids(28, 7))},
            sql='with c as (select shop_id, sum(amount) as cost from "db"."raw"."costs" group by shop_id) '
                'select * from c')
    w.model("rpt_sales", {"sale_month": (TEXT, months), "revenue": (INT, ids(24, 1000))},
            sql='select sale_month, sum(amount) as revenue from "db"."raw"."sales" group by sale_month')
    found = pairs(run(w).inferred)
    assert ("fct_expenses.shop_id", "stg_shops.shop_id") in found
    everything = run(w, min_confidence=0.0)
    for _, parent in found | pairs(everything.inferred):
        assert not parent.startswith(("int_cost_by_shop.", "rpt_sales.")), parent
    assert {r.trap for r in everything.rejected if r.child.column == "sale_month"} == {Trap.REPORT_PARENT}


def test_a_shared_attribute_onto_a_column_that_is_no_key_is_no_link():
    """`location.address_1` holds addresses the intermediate model also holds, unique there by
    chance: an attribute both relations have, not a reference (the location's key is its id)."""
    rng = random.Random(23)
    w = Warehouse()
    streets = [f"{n} Main St" for n in range(80)]
    w.table("int_location", {"location_id": (INT, ids(80)), "address_1": (TEXT, streets),
                             "city": (TEXT, [rng.choice(["A", "B", "C"]) for _ in range(80)])})
    w.table("location", {"location_id": (INT, ids(60, 500)), "address_1": (TEXT, streets[:60])})
    links = run(w, min_confidence=0.0)
    assert not any(c == "location.address_1" for c, _ in pairs(links.inferred))
    assert any(r.trap is Trap.NOT_A_KEY for r in links.rejected if r.child.column == "address_1")


def test_a_shared_name_onto_a_column_declared_unique_is_a_reference():
    """The project declares `product.sku` unique (an alternate key beside the product's id): the
    order line's `sku` of the same name references it; the undeclared `colour` both have does not."""
    rng = random.Random(29)
    w = Warehouse()
    skus = [f"SKU-{i:04d}" for i in range(60)]
    w.table("product", {"product_id": (INT, ids(60)), "sku": (TEXT, skus), "colour": (TEXT, [f"c{i}" for i in range(60)])},
            unique=["sku"])
    w.table("order_line", {"order_line_id": (INT, ids(300, 900)), "sku": (TEXT, [rng.choice(skus) for _ in range(300)]),
                           "colour": (TEXT, [f"c{rng.randrange(60)}" for _ in range(300)])})
    found = pairs(run(w).inferred)
    assert ("order_line.sku", "product.sku") in found
    assert not any(c == "order_line.colour" for c, _ in found)


def test_a_reference_named_for_an_entity_may_point_at_the_layer_its_key_comes_from():
    """`stg_repository.repository_id` is the seed's `id` renamed (a lineage copy): the seed is
    the entity `repository` too, so a `repository_id` of another seed may reference it."""
    repos = ids(12, 100)
    w = Warehouse()
    raw = w.table("repository_data", {"id": (INT, repos), "name": (TEXT, [f"r{i}" for i in repos])},
                  kind=ResourceType.SEED)
    w.model("stg_repository", {"repository_id": (INT, repos), "name": (TEXT, [f"r{i}" for i in repos])},
            depends_on=[raw], sql='select id as repository_id, name from "db"."main"."repository_data"')
    w.table("team_repositories", {"team_id": (INT, [1, 1, 2, 2, 3, 3, 4]),
                                  "repository_id": (INT, [100, 101, 100, 102, 103, 104, 101])}, kind=ResourceType.SEED)
    links = run(w, collapse_lineage=False)
    found = pairs(links.inferred)
    assert ("team_repositories.repository_id", "repository_data.id") in found
    assert ("team_repositories.repository_id", "stg_repository.repository_id") in found
