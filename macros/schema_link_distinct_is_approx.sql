{#- True where dbt_schema_link.schema_link_approx_distinct() renders an approximate count on this adapter. -#}
{% macro schema_link_distinct_is_approx() %}
    {{ return(adapter.dispatch('schema_link_distinct_is_approx', 'dbt_schema_link')()) }}
{% endmacro %}

{% macro default__schema_link_distinct_is_approx() %}
    {{ return(false) }}
{% endmacro %}

{% macro duckdb__schema_link_distinct_is_approx() %}
    {{ return(true) }}
{% endmacro %}

{% macro postgres__schema_link_distinct_is_approx() %}
    {{ return(false) }}
{% endmacro %}

{% macro snowflake__schema_link_distinct_is_approx() %}
    {{ return(true) }}
{% endmacro %}

{% macro bigquery__schema_link_distinct_is_approx() %}
    {{ return(true) }}
{% endmacro %}

{% macro redshift__schema_link_distinct_is_approx() %}
    {{ return(true) }}
{% endmacro %}

{% macro databricks__schema_link_distinct_is_approx() %}
    {{ return(true) }}
{% endmacro %}

{% macro spark__schema_link_distinct_is_approx() %}
    {{ return(true) }}
{% endmacro %}
