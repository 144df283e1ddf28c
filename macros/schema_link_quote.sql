{#- Quote one identifier through the adapter, escaping the quote character inside the name
    (adapter.quote alone does not escape: a column named say "hi" would break the SQL). -#}
{% macro schema_link_quote(name) %}
    {{ return(adapter.dispatch('schema_link_quote', 'dbt_schema_link')(name)) }}
{% endmacro %}

{% macro default__schema_link_quote(name) %}
    {%- set quote_char = adapter.quote('')[0] -%}
    {{ return(adapter.quote((name | string) | replace(quote_char, quote_char ~ quote_char))) }}
{% endmacro %}

{% macro bigquery__schema_link_quote(name) %}
    {#- BigQuery escapes a backtick inside a quoted identifier with a backslash. -#}
    {{ return('`' ~ ((name | string) | replace('\\', '\\\\') | replace('`', '\\`')) ~ '`') }}
{% endmacro %}
