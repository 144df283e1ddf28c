{#- An aggregate returning, as JSON text, the n most frequent non-null values of a canonical text
    expression (most frequent first), or NULL where the warehouse has no top-k aggregate.
    Items may be plain values, [value, count] pairs (Snowflake) or {value|item, count} objects
    (BigQuery, Databricks); schema_link_profile_relation normalises them. PostgreSQL computes
    top values inside schema_link_profile_sql instead (exact, same statement). -#}
{% macro schema_link_top_values(expr, n) %}
    {{ return(adapter.dispatch('schema_link_top_values', 'dbt_schema_link')(expr, n)) }}
{% endmacro %}

{% macro default__schema_link_top_values(expr, n) %}
    {{ return('cast(null as varchar)') }}
{% endmacro %}

{% macro duckdb__schema_link_top_values(expr, n) %}
    {{ return('cast(to_json(approx_top_k(' ~ expr ~ ', ' ~ (n | int) ~ ') filter (where ' ~ expr ~ ' is not null)) as varchar)') }}
{% endmacro %}

{% macro postgres__schema_link_top_values(expr, n) %}
    {{ return('cast(null as text)') }}
{% endmacro %}

{% macro snowflake__schema_link_top_values(expr, n) %}
    {{ return('to_varchar(approx_top_k(' ~ expr ~ ', ' ~ (n | int) ~ '))') }}
{% endmacro %}

{% macro bigquery__schema_link_top_values(expr, n) %}
    {{ return('to_json_string(approx_top_count(' ~ expr ~ ', ' ~ (n | int) ~ '))') }}
{% endmacro %}

{% macro redshift__schema_link_top_values(expr, n) %}
    {{ return('cast(null as varchar)') }}
{% endmacro %}

{% macro databricks__schema_link_top_values(expr, n) %}
    {{ return('to_json(approx_top_k(' ~ expr ~ ', ' ~ (n | int) ~ '))') }}
{% endmacro %}

{% macro spark__schema_link_top_values(expr, n) %}
    {{ return('to_json(approx_top_k(' ~ expr ~ ', ' ~ (n | int) ~ '))') }}
{% endmacro %}
