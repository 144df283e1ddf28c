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
            {%- for key, label, description, value_type in [
                ('clustering_key', 'Clustering Key', 'The key used to cluster this table', 'varchar'),
                ('row_count', 'Row Count', 'An approximate count of rows in this table', 'number'),
                ('bytes', 'Approximate Size', 'Approximate size of the table as reported by Snowflake', 'number'),
                ('last_modified', 'Last Modified', 'The timestamp for last update/change', 'varchar')] %}
            '{{ label }}' as "stats:{{ key }}:label",
            cast(null as {{ value_type }}) as "stats:{{ key }}:value",
            '{{ description }}' as "stats:{{ key }}:description",
            false as "stats:{{ key }}:include"{{ ',' if not loop.last }}
            {%- endfor %}
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
