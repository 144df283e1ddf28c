from dbt_schema_link.artifacts.records import ColumnRef
from dbt_schema_link.discovery.render import SqlPath, SqlRenderer, regex_render
from dbt_schema_link.discovery.sqlfacts import JoinClause, extract_sql_facts
from tests.discovery.builders import Warehouse


def shop() -> tuple[Warehouse, dict[str, str]]:
    w = Warehouse()
    ids = {
        "orders": w.table("orders", types={"id": "INTEGER", "user_id": "INTEGER", "status": "VARCHAR"}),
        "customers": w.table("customers", types={"id": "INTEGER", "name": "VARCHAR"}),
        "payments": w.table("payments", types={"payment_id": "INTEGER", "order_id": "INTEGER", "amount": "INTEGER"}),
        "items": w.table("items", types={"item_id": "INTEGER", "order_id": "INTEGER"}),
    }
    return w, ids


def ref(uid, col):
    return ColumnRef(uid, col)


def joins_of(facts):
    return {(str(j.left), str(j.right), j.clause) for j in facts.joins}


def test_join_through_ctes_and_aliases_resolves_to_physical_columns():
    w, ids = shop()
    model = w.model("customer_orders", types={"customer_id": "INTEGER", "n": "INTEGER"}, depends_on=list(ids.values()), sql='''
        with o as (select id as order_id, user_id as cust from "db"."raw"."orders"),
             c as (select * from "db"."raw"."customers")
        select c.id as customer_id, count(*) as n
        from o join c as cc on o.cust = cc.id
        group by 1''')
    facts = extract_sql_facts(w.project())
    assert (str(ref(ids["orders"], "user_id")), str(ref(ids["customers"], "id")), JoinClause.ON) in joins_of(facts)
    assert facts.paths[SqlPath.COMPILED] == 1 and not facts.failures
    assert all(j.model == model for j in facts.joins)


def test_using_and_where_equalities():
    w, ids = shop()
    w.model("m", types={"order_id": "INTEGER"}, depends_on=list(ids.values()), sql='''
        select p.order_id
        from "db"."raw"."payments" p
        join "db"."raw"."items" using (order_id),
             "db"."raw"."orders" o
        where o.id = p.order_id and o.status = 'x' ''')
    got = joins_of(extract_sql_facts(w.project()))
    pay, items, orders = ids["payments"], ids["items"], ids["orders"]
    assert any({l, r} == {f"{pay}.order_id", f"{items}.order_id"} for l, r, _ in got)
    assert (f"{orders}.id", f"{pay}.order_id", JoinClause.WHERE) in got
    assert not any("status" in l or "status" in r for l, r, _ in got)  # a literal is not a join


def test_lineage_copies_renames_and_casts_but_not_computed_columns():
    w, ids = shop()
    stg = w.model("stg_orders", types={"order_id": "INTEGER", "customer_id": "INTEGER", "status": "VARCHAR",
                                       "is_open": "BOOLEAN"}, depends_on=[ids["orders"]], sql='''
        with src as (select * from "db"."raw"."orders"),
        renamed as (select id as order_id, cast(user_id as bigint) as customer_id, status,
                           status = 'open' as is_open from src)
        select * from renamed''')
    facts = extract_sql_facts(w.project())
    copies = {(str(c.column), str(c.source), c.renamed) for c in facts.copies}
    assert (f"{stg}.order_id", f"{ids['orders']}.id", True) in copies
    assert (f"{stg}.customer_id", f"{ids['orders']}.user_id", True) in copies
    assert (f"{stg}.status", f"{ids['orders']}.status", False) in copies
    assert not any(c.column.column == "is_open" for c in facts.copies)


def test_cte_named_like_a_relation_means_the_cte():
    w, ids = shop()
    w.model("m", types={"cid": "INTEGER"}, depends_on=[ids["orders"], ids["customers"]], raw_sql='''
        with customers as (select id as cid from {{ source('raw', 'customers') }})
        select customers.cid from customers join {{ source('raw', 'orders') }} o on o.user_id = customers.cid''')
    facts = extract_sql_facts(w.project())
    assert (f"{ids['orders']}.user_id", f"{ids['customers']}.id", JoinClause.ON) in joins_of(facts)


def test_raw_sql_is_rendered_with_sqlfluff_and_the_path_recorded():
    w, ids = shop()
    stg_o = w.model("stg_orders", types={"order_id": "INTEGER", "customer_id": "INTEGER"}, depends_on=[ids["orders"]],
                    raw_sql="{{ config(materialized='view') }}\nselect id as order_id, user_id as customer_id "
                            "from {{ source('raw', 'orders') }}")
    stg_c = w.model("stg_customers", types={"customer_id": "INTEGER"}, depends_on=[ids["customers"]],
                    raw_sql="select id as customer_id from {{ source('raw', 'customers') }}")
    w.model("joined", types={"customer_id": "INTEGER"}, depends_on=[stg_o, stg_c],
            raw_sql="select c.customer_id from {{ ref('stg_orders') }} o\n"
                    "{% if var('x', true) %} join {{ ref('stg_customers') }} c on o.customer_id = c.customer_id {% endif %}")
    facts = extract_sql_facts(w.project())
    assert facts.paths[SqlPath.RAW_SQLFLUFF] == 3
    assert (f"{stg_o}.customer_id", f"{stg_c}.customer_id", JoinClause.ON) in joins_of(facts)


def test_regex_fallback_when_rendered_sql_does_not_parse():
    # sqlfluff renders an unknown macro as nothing ("where x = "): the regex path puts NULL there
    w, ids = shop()
    w.model("m", types={"order_id": "INTEGER"}, depends_on=[ids["orders"], ids["payments"]], raw_sql='''
        select o.id as order_id
        from {{ source('raw', 'orders') }} o join {{ source('raw', 'payments') }} p on p.order_id = o.id
        where o.status = {{ current_status() }}''')
    renderer = SqlRenderer()
    facts = extract_sql_facts(w.project(), renderer)
    assert facts.paths[SqlPath.RAW_REGEX] == 1, facts.paths
    assert (f"{ids['payments']}.order_id", f"{ids['orders']}.id", JoinClause.ON) in joins_of(facts)


def test_regex_render():
    text = regex_render("{# c #}{{ config(x=1) }}select * from {{ ref('pkg', 'orders') }} "
                        "join {{ source('raw','users') }} on {{ my_macro() }} {% if x %}1{% endif %}")
    assert "orders" in text and "raw_users" in text and "NULL" in text
    assert "{" not in text and "config" not in text


def test_unparseable_sql_is_reported_not_raised():
    w, ids = shop()
    bad = w.model("bad", types={"x": "INTEGER"}, depends_on=[ids["orders"]], sql="select from where (((")
    facts = extract_sql_facts(w.project())
    assert [uid for uid, _ in facts.failures] == [bad]


def test_lineage_through_union_all_and_subqueries():
    w, ids = shop()
    m = w.model("all_order_refs", types={"order_id": "INTEGER"}, depends_on=[ids["payments"], ids["items"]], sql='''
        select order_id from (select p.order_id from "db"."raw"."payments" p) as sub
        union all
        select i.order_id from "db"."raw"."items" i''')
    copies = {(str(c.column), str(c.source)) for c in extract_sql_facts(w.project()).copies}
    assert copies == {(f"{m}.order_id", f"{ids['payments']}.order_id"), (f"{m}.order_id", f"{ids['items']}.order_id")}


def test_counts_and_sums_are_aggregates_through_ctes_but_min_max_and_copies_are_not():
    w, ids = shop()
    model = w.model("customer_stats", types={"customer_id": "INTEGER", "number_of_orders": "INTEGER",
                                             "paid": "INTEGER", "last_order_id": "INTEGER"},
                    depends_on=list(ids.values()), sql='''
        with per as (select user_id, count(id) as n, max(id) as last_id from "db"."raw"."orders" group by 1),
             pay as (select order_id, sum(amount) as amount from "db"."raw"."payments" group by 1)
        select c.id as customer_id, coalesce(per.n, 0) as number_of_orders, pay.amount as paid,
               per.last_id as last_order_id
        from "db"."raw"."customers" c left join per on per.user_id = c.id left join pay on pay.order_id = per.last_id''')
    facts = extract_sql_facts(w.project())
    assert {r.column for r in facts.aggregates if r.relation == model} == {"number_of_orders", "paid"}


def test_snowflake_sql_resolves_although_qualify_upper_cases_names():
    """sqlglot's Snowflake dialect normalises unquoted names to upper case; joins and copies
    must still resolve (they were all lost on Snowflake before)."""
    w = Warehouse(adapter="snowflake")
    orders = w.table("orders", types={"id": "NUMBER", "user_id": "NUMBER"})
    customers = w.table("customers", types={"id": "NUMBER", "name": "TEXT"})
    stg = w.model("stg_orders", types={"order_id": "NUMBER", "customer_id": "NUMBER"},
                  depends_on=[orders, customers], sql='''
        select o.id as order_id, o.user_id as customer_id
        from db.raw.orders o join db.raw.customers c on o.user_id = c.id''')
    facts = extract_sql_facts(w.project())
    assert (f"{orders}.user_id", f"{customers}.id", JoinClause.ON) in joins_of(facts)
    copies = {(str(c.column), str(c.source)) for c in facts.copies}
    assert (f"{stg}.order_id", f"{orders}.id") in copies and (f"{stg}.customer_id", f"{orders}.user_id") in copies
