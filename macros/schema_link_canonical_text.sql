{#- The one text form every value is reduced to before hashing, counting and comparing:
    trim(cast(v as text)). data_type (optional) lets an adapter skip work that cannot change the
    result for that type (DuckDB: no trim of an integer's or a date's text). -#}
{% macro schema_link_canonical_text(expr, data_type=none) %}
    {{ return(adapter.dispatch('schema_link_canonical_text', 'dbt_schema_link')(expr, data_type)) }}
{% endmacro %}

{% macro default__schema_link_canonical_text(expr, data_type=none) %}
    {{ return('trim(cast(' ~ expr ~ ' as varchar))') }}
{% endmacro %}

{% macro duckdb__schema_link_canonical_text(expr, data_type=none) %}
    {#- trim is most of the cost of this expression: skip it where it is the identity -#}
    {%- set t = (data_type or '') | string | trim | lower -%}
    {%- set base = t.split('(')[0] | trim -%}
    {%- if base in ['varchar', 'text', 'string', 'char', 'bpchar'] -%}
        {{ return('case when prefix(' ~ expr ~ ", ' ') or suffix(" ~ expr ~ ", ' ') then trim(" ~ expr ~ ') else ' ~ expr ~ ' end') }}
    {%- elif base in ['tinyint', 'smallint', 'integer', 'int', 'bigint', 'hugeint', 'utinyint', 'usmallint',
                      'uinteger', 'ubigint', 'uhugeint', 'date', 'uuid', 'decimal', 'numeric'] -%}
        {{ return('cast(' ~ expr ~ ' as varchar)') }}
    {%- endif -%}
    {{ return('trim(cast(' ~ expr ~ ' as varchar))') }}
{% endmacro %}

{% macro postgres__schema_link_canonical_text(expr, data_type=none) %}
    {{ return('trim(cast(' ~ expr ~ ' as text))') }}
{% endmacro %}

{% macro snowflake__schema_link_canonical_text(expr, data_type=none) %}
    {{ return('trim(cast(' ~ expr ~ ' as varchar))') }}
{% endmacro %}

{% macro bigquery__schema_link_canonical_text(expr, data_type=none) %}
    {{ return('trim(cast(' ~ expr ~ ' as string))') }}
{% endmacro %}

{% macro redshift__schema_link_canonical_text(expr, data_type=none) %}
    {#- a bare varchar is varchar(256) on Redshift and would truncate -#}
    {{ return('trim(cast(' ~ expr ~ ' as varchar(max)))') }}
{% endmacro %}

{% macro databricks__schema_link_canonical_text(expr, data_type=none) %}
    {{ return('trim(cast(' ~ expr ~ ' as string))') }}
{% endmacro %}

{% macro spark__schema_link_canonical_text(expr, data_type=none) %}
    {{ return('trim(cast(' ~ expr ~ ' as string))') }}
{% endmacro %}
