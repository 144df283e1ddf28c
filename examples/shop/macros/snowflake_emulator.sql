{#- EMULATOR ONLY. Workarounds for gaps of fakesnow (the local Snowflake emulator the test suite
    runs dbt-snowflake against), active only when the target's account is `fakesnow`; on a real
    Snowflake account each macro renders exactly what it would without this file. The package's
    snowflake__ macros are never changed for the emulator: each gap is listed, with the query that
    shows it, in docs/snowflake_emulator.md. The root project wins dbt's dispatch, as in
    spark_seed_literals.sql. -#}

{% macro schema_link__on_emulator() %}
    {{ return(target.type == 'snowflake' and (target.account | lower) == 'fakesnow') }}
{% endmacro %}

{#- Gap: the emulator's information_schema.tables lists base tables only (Snowflake's lists views
    too, as table_type 'VIEW'), so dbt-snowflake's catalog query misses every view. Add the rows
    of information_schema.views, with the columns dbt's catalog query selects. -#}
{% macro snowflake__get_catalog_tables_sql(information_schema) -%}
    {%- set tables_sql = dbt.snowflake__get_catalog_tables_sql(information_schema) -%}
    {%- if not schema_link__on_emulator() -%}
        {{ return(tables_sql) }}
    {%- endif -%}
    select * from (
        {{ tables_sql }}
        union all
        select
            table_catalog as "table_database",
            table_schema as "table_schema",
            table_name as "table_name",
            'VIEW' as "table_type",
            comment as "table_comment",
            table_owner as "table_owner",
            'Clustering Key' as "stats:clustering_key:label",
            cast(null as varchar) as "stats:clustering_key:value",
            'The key used to cluster this table' as "stats:clustering_key:description",
            false as "stats:clustering_key:include",
            'Row Count' as "stats:row_count:label",
            cast(null as number) as "stats:row_count:value",
            'An approximate count of rows in this table' as "stats:row_count:description",
            false as "stats:row_count:include",
            'Approximate Size' as "stats:bytes:label",
            cast(null as number) as "stats:bytes:value",
            'Approximate size of the table as reported by Snowflake' as "stats:bytes:description",
            false as "stats:bytes:include",
            'Last Modified' as "stats:last_modified:label",
            cast(null as varchar) as "stats:last_modified:value",
            'The timestamp for last update/change' as "stats:last_modified:description",
            false as "stats:last_modified:include"
        from {{ information_schema }}.views
    ) as schema_link_emulator_tables
{%- endmacro %}

{#- Gap: the emulator's APPROX_TOP_K returns a list of values (no counts) whose TO_VARCHAR is not
    JSON ('[closed, shipped]'), so text values would not parse. TO_JSON of it is JSON. -#}
{% macro snowflake__schema_link_top_values(expr, n) %}
    {%- if not schema_link__on_emulator() -%}
        {{ return(dbt_schema_link.snowflake__schema_link_top_values(expr, n)) }}
    {%- endif -%}
    {{ return('to_json(approx_top_k(' ~ expr ~ ', ' ~ (n | int) ~ '))') }}
{% endmacro %}
