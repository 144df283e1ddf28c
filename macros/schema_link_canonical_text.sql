{#- The one text form every value is reduced to before hashing, counting and comparing. -#}
{% macro schema_link_canonical_text(expr) %}
    {{ return(adapter.dispatch('schema_link_canonical_text', 'dbt_schema_link')(expr)) }}
{% endmacro %}

{% macro default__schema_link_canonical_text(expr) %}
    {{ return('trim(cast(' ~ expr ~ ' as varchar))') }}
{% endmacro %}

{% macro duckdb__schema_link_canonical_text(expr) %}
    {{ return('trim(cast(' ~ expr ~ ' as varchar))') }}
{% endmacro %}

{% macro postgres__schema_link_canonical_text(expr) %}
    {{ return('trim(cast(' ~ expr ~ ' as text))') }}
{% endmacro %}

{% macro snowflake__schema_link_canonical_text(expr) %}
    {{ return('trim(cast(' ~ expr ~ ' as varchar))') }}
{% endmacro %}

{% macro bigquery__schema_link_canonical_text(expr) %}
    {{ return('trim(cast(' ~ expr ~ ' as string))') }}
{% endmacro %}

{% macro redshift__schema_link_canonical_text(expr) %}
    {#- a bare varchar is varchar(256) on Redshift and would truncate -#}
    {{ return('trim(cast(' ~ expr ~ ' as varchar(max)))') }}
{% endmacro %}

{% macro databricks__schema_link_canonical_text(expr) %}
    {{ return('trim(cast(' ~ expr ~ ' as string))') }}
{% endmacro %}

{% macro spark__schema_link_canonical_text(expr) %}
    {{ return('trim(cast(' ~ expr ~ ' as string))') }}
{% endmacro %}
