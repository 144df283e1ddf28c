{#- The type name a profile reports for a column (dbt Column object or {name, data_type} dict):
    the warehouse's own type name (dbt's Column.dtype), not dbt's rendering of it. On Snowflake a
    number keeps its precision and scale (NUMBER(38,0)): the type name alone (NUMBER, also what
    information_schema.columns and so dbt's catalog say) does not tell an integer from a decimal. -#}
{% macro schema_link_column_type(col) %}
    {{ return(adapter.dispatch('schema_link_column_type', 'dbt_schema_link')(col)) }}
{% endmacro %}

{% macro default__schema_link_column_type(col) %}
    {%- set data_type = col.dtype if col.dtype is defined and col.dtype is not none else col.data_type -%}
    {{ return((data_type | string) if data_type is not none else none) }}
{% endmacro %}

{% macro snowflake__schema_link_column_type(col) %}
    {%- if col.is_numeric is defined and col.is_numeric() and col.numeric_scale is not none -%}
        {{ return(col.data_type | string) }}
    {%- endif -%}
    {{ return(dbt_schema_link.default__schema_link_column_type(col)) }}
{% endmacro %}
