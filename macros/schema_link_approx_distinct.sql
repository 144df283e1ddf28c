{#- SQL counting the distinct non-null values of expr: approximate (HyperLogLog) where the
    warehouse has it, exact otherwise. dbt_schema_link.schema_link_distinct_is_approx() says which. -#}
{% macro schema_link_approx_distinct(expr) %}
    {{ return(adapter.dispatch('schema_link_approx_distinct', 'dbt_schema_link')(expr)) }}
{% endmacro %}

{% macro default__schema_link_approx_distinct(expr) %}
    {{ return('count(distinct ' ~ expr ~ ')') }}
{% endmacro %}

{% macro duckdb__schema_link_approx_distinct(expr) %}
    {{ return('approx_count_distinct(' ~ expr ~ ')') }}
{% endmacro %}

{% macro postgres__schema_link_approx_distinct(expr) %}
    {{ return('count(distinct ' ~ expr ~ ')') }}
{% endmacro %}

{% macro snowflake__schema_link_approx_distinct(expr) %}
    {{ return('approx_count_distinct(' ~ expr ~ ')') }}
{% endmacro %}

{% macro bigquery__schema_link_approx_distinct(expr) %}
    {{ return('approx_count_distinct(' ~ expr ~ ')') }}
{% endmacro %}

{% macro redshift__schema_link_approx_distinct(expr) %}
    {{ return('approximate count(distinct ' ~ expr ~ ')') }}
{% endmacro %}

{% macro databricks__schema_link_approx_distinct(expr) %}
    {{ return('approx_count_distinct(' ~ expr ~ ')') }}
{% endmacro %}

{% macro spark__schema_link_approx_distinct(expr) %}
    {{ return('approx_count_distinct(' ~ expr ~ ')') }}
{% endmacro %}
