{#- A cheap row-count estimate for a relation, used only to decide whether to sample it, or none
    when there is none (then the relation is read in full). Metadata only where the warehouse
    keeps it: PostgreSQL pg_class.reltuples / pg_stat n_live_tup (none for views, which cannot be
    TABLESAMPLEd), DuckDB duckdb_tables().estimated_size (views: a count(*), i.e. one extra read
    of the view). Elsewhere count(*), answered from table metadata by Snowflake, BigQuery and
    Delta. -#}
{% macro schema_link_row_estimate(relation) %}
    {{ return(adapter.dispatch('schema_link_row_estimate', 'dbt_schema_link')(relation)) }}
{% endmacro %}

{% macro schema_link__sql_string(value) %}
    {{ return("'" ~ ((value or '') | string | replace("'", "''")) ~ "'") }}
{% endmacro %}

{% macro default__schema_link_row_estimate(relation) %}
    {%- set res = run_query('select count(*) as row_estimate from ' ~ relation) -%}
    {%- if res is none or (res.rows | length) == 0 or res.rows[0][0] is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(res.rows[0][0] | int) }}
{% endmacro %}

{% macro duckdb__schema_link_row_estimate(relation) %}
    {%- set sql -%}
        select estimated_size
        from duckdb_tables()
        where database_name = {{ dbt_schema_link.schema_link__sql_string(relation.database) }}
          and schema_name = {{ dbt_schema_link.schema_link__sql_string(relation.schema) }}
          and table_name = {{ dbt_schema_link.schema_link__sql_string(relation.identifier) }}
    {%- endset -%}
    {%- set res = run_query(sql) -%}
    {%- if res is not none and (res.rows | length) > 0 and res.rows[0][0] is not none -%}
        {{ return(res.rows[0][0] | int) }}
    {%- endif -%}
    {#- a view (or anything not in duckdb_tables): count it -#}
    {{ return(dbt_schema_link.default__schema_link_row_estimate(relation)) }}
{% endmacro %}

{% macro postgres__schema_link_row_estimate(relation) %}
    {%- set sql -%}
        select
            c.relkind as relkind,
            greatest(c.reltuples, coalesce(s.n_live_tup, 0)) as row_estimate
        from pg_catalog.pg_class as c
        inner join pg_catalog.pg_namespace as n on c.relnamespace = n.oid
        left join pg_catalog.pg_stat_all_tables as s on c.oid = s.relid
        where n.nspname = {{ dbt_schema_link.schema_link__sql_string(relation.schema) }}
          and c.relname = {{ dbt_schema_link.schema_link__sql_string(relation.identifier) }}
    {%- endset -%}
    {%- set res = run_query(sql) -%}
    {%- if res is none or (res.rows | length) == 0 -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if res.rows[0][0] not in ['r', 'm', 'p'] or res.rows[0][1] is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(res.rows[0][1] | int) }}
{% endmacro %}

{% macro redshift__schema_link_row_estimate(relation) %}
    {{ return(dbt_schema_link.default__schema_link_row_estimate(relation)) }}
{% endmacro %}
