{#- One statement computing the exact one-way containment for a batch of column pairs, one
    UNION ALL branch per pair: the child's distinct non-null canonical values (with their row
    counts) left-joined to the parent's. Returns rows (pair_idx, child_distinct, matched,
    orphan_rows); matched / child_distinct is the containment, orphan_rows the child rows whose
    value the parent lacks (what a relationships test counts). pairs: list of {child_relation, child_column, parent_relation, parent_column}
    with Relation objects and column names. -#}
{% macro schema_link_containment_sql(pairs) %}
    {{ return(adapter.dispatch('schema_link_containment_sql', 'dbt_schema_link')(pairs)) }}
{% endmacro %}

{% macro default__schema_link_containment_sql(pairs) %}
    {%- for pair in pairs %}
    {%- set cc = dbt_schema_link.schema_link_quote(pair.child_column) %}
    {%- set pc = dbt_schema_link.schema_link_quote(pair.parent_column) %}
    select
        {{ loop.index0 }} as pair_idx,
        count(*) as child_distinct,
        count(p.v) as matched,
        coalesce(sum(case when p.v is null then c.n else 0 end), 0) as orphan_rows
    from (
        select {{ dbt_schema_link.schema_link_canonical_text(cc) }} as v, count(*) as n
        from {{ pair.child_relation }}
        where {{ cc }} is not null
        group by 1
    ) as c
    left join (
        select distinct {{ dbt_schema_link.schema_link_canonical_text(pc) }} as v
        from {{ pair.parent_relation }}
        where {{ pc }} is not null
    ) as p on c.v = p.v
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{% endmacro %}
