{#- The columns of many relations from one catalog query: {"<database>|<schema>|<identifier>":
    [{name, data_type}, ...] in column order}, or none where the adapter has no such query (each
    relation is then asked on its own with adapter.get_columns_in_relation). One round trip for a
    whole project instead of one per relation. A relation missing from the answer is asked on its
    own too. -#}
{% macro schema_link_columns_by_relation(relations) %}
    {{ return(adapter.dispatch('schema_link_columns_by_relation', 'dbt_schema_link')(relations)) }}
{% endmacro %}

{% macro schema_link__relation_key(database, schema, identifier) %}
    {{ return((database or '') ~ '|' ~ (schema or '') ~ '|' ~ (identifier or '')) }}
{% endmacro %}

{% macro default__schema_link_columns_by_relation(relations) %}
    {{ return(none) }}
{% endmacro %}

{% macro schema_link__information_schema_columns(relations, catalog_filter) %}
    {#- information_schema.columns of the relations' schemas, grouped by relation -#}
    {%- set schemas = [] -%}
    {%- for rel in relations -%}
        {%- set literal = dbt_schema_link.schema_link__sql_string(rel.schema) -%}
        {%- if rel.schema is not none and literal not in schemas -%}
            {%- do schemas.append(literal) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if schemas | length == 0 -%}
        {{ return({}) }}
    {%- endif -%}
    {%- set sql -%}
        select table_catalog, table_schema, table_name, column_name, data_type
        from information_schema.columns
        where table_schema in ({{ schemas | join(', ') }}){{ catalog_filter }}
        order by table_catalog, table_schema, table_name, ordinal_position
    {%- endset -%}
    {%- set out = {} -%}
    {%- for row in run_query(sql).rows -%}
        {%- set key = row[0] ~ '|' ~ row[1] ~ '|' ~ row[2] -%}
        {%- if key not in out -%}
            {%- do out.update({key: []}) -%}
        {%- endif -%}
        {%- do out[key].append({'name': row[3], 'data_type': row[4]}) -%}
    {%- endfor -%}
    {{ return(out) }}
{% endmacro %}

{% macro duckdb__schema_link_columns_by_relation(relations) %}
    {{ return(dbt_schema_link.schema_link__information_schema_columns(relations, '')) }}
{% endmacro %}

{% macro postgres__schema_link_columns_by_relation(relations) %}
    {{ return(dbt_schema_link.schema_link__information_schema_columns(relations, ' and table_catalog = current_database()')) }}
{% endmacro %}
