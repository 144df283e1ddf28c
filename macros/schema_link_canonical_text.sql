{#- The one text form every value is reduced to before hashing, counting and comparing:
    trim(cast(v as text)), and a number written with leading zeros or an integral fraction as the
    integer's text ('00017', '17.0' and 17 all become '17'): keys drift between INTEGER, REAL
    and zero-padded text across sources, and the sketches and the containment check must see
    one value. data_type (optional) lets an adapter skip work that cannot change the result for
    that type (an integer's or a date's text is already canonical: schema_link__text_is_canonical). -#}
{% macro schema_link_canonical_text(expr, data_type=none) %}
    {{ return(adapter.dispatch('schema_link_canonical_text', 'dbt_schema_link')(expr, data_type)) }}
{% endmacro %}

{#- The pattern of number text that has another canonical form: an optional sign, then leading
    zeros or an integral fraction, at most 15 digits (exact through a double). Without
    backslashes, so every engine's string literal reads it alike. -#}
{% macro schema_link__padded_number_pattern() %}
    {{ return("-?(0[0-9]{1,14}|[0-9]{1,15}[.]0+)") }}
{% endmacro %}

{#- `t` (text SQL) as the canonical integer text when `matches` (SQL: t is padded number text),
    else unchanged. -#}
{% macro schema_link__unpadded(t, matches, text_type='varchar', float_type='double', int_type='bigint') %}
    {{ return('case when ' ~ matches ~ ' then cast(cast(cast(' ~ t ~ ' as ' ~ float_type ~ ') as ' ~ int_type
              ~ ') as ' ~ text_type ~ ') else ' ~ t ~ ' end') }}
{% endmacro %}

{#- Whether a value of this declared type already prints as its canonical text (cast alone): an
    integer prints with no padding, spaces or fraction, a date as ISO text. Lets the profile
    statements skip the trim and the pattern test, which were most of PostgreSQL's per-row cost. -#}
{% macro schema_link__text_is_canonical(data_type) %}
    {%- set t = (data_type or '') | string | trim | lower -%}
    {{ return(t.split('(')[0] | trim in ['tinyint', 'smallint', 'integer', 'int', 'bigint', 'hugeint', 'int2', 'int4',
                                         'int8', 'utinyint', 'usmallint', 'uinteger', 'ubigint', 'uhugeint', 'date',
                                         'uuid']) }}
{% endmacro %}

{% macro default__schema_link_canonical_text(expr, data_type=none) %}
    {%- set t = 'trim(cast(' ~ expr ~ ' as varchar))' -%}
    {{ return(dbt_schema_link.schema_link__unpadded(t, t ~ " similar to '" ~ dbt_schema_link.schema_link__padded_number_pattern() ~ "'")) }}
{% endmacro %}

{% macro duckdb__schema_link_canonical_text(expr, data_type=none) %}
    {#- trim is most of the cost of this expression: skip it where it is the identity -#}
    {%- set t = (data_type or '') | string | trim | lower -%}
    {%- set base = t.split('(')[0] | trim -%}
    {%- if dbt_schema_link.schema_link__text_is_canonical(data_type) -%}
        {{ return('cast(' ~ expr ~ ' as varchar)') }}
    {%- elif base in ['varchar', 'text', 'string', 'char', 'bpchar'] -%}
        {%- set t = 'case when prefix(' ~ expr ~ ", ' ') or suffix(" ~ expr ~ ", ' ') then trim(" ~ expr ~ ') else ' ~ expr ~ ' end' -%}
    {%- elif base in ['decimal', 'numeric'] -%}
        {%- set t = 'cast(' ~ expr ~ ' as varchar)' -%}
    {%- else -%}
        {%- set t = 'trim(cast(' ~ expr ~ ' as varchar))' -%}
    {%- endif -%}
    {#- the regular expression only runs on text that starts with 0 or holds a '.0' -#}
    {%- set matches = '(' ~ t ~ " like '0_%' or " ~ t ~ " like '-0_%' or " ~ t ~ " like '%.0%') and regexp_full_match(" ~ t
        ~ ", '" ~ dbt_schema_link.schema_link__padded_number_pattern() ~ "')" -%}
    {{ return(dbt_schema_link.schema_link__unpadded(t, matches)) }}
{% endmacro %}

{% macro postgres__schema_link_canonical_text(expr, data_type=none) %}
    {%- if dbt_schema_link.schema_link__text_is_canonical(data_type) -%}
        {{ return('cast(' ~ expr ~ ' as text)') }}
    {%- endif -%}
    {%- set t = 'trim(cast(' ~ expr ~ ' as text))' -%}
    {{ return(dbt_schema_link.schema_link__unpadded(t, t ~ " ~ '^(" ~ dbt_schema_link.schema_link__padded_number_pattern() ~ ")$'",
                                                    'text', 'double precision', 'bigint')) }}
{% endmacro %}

{% macro snowflake__schema_link_canonical_text(expr, data_type=none) %}
    {%- set t = 'trim(cast(' ~ expr ~ ' as varchar))' -%}
    {%- set pattern = dbt_schema_link.schema_link__padded_number_pattern() -%}
    {{ return(dbt_schema_link.schema_link__unpadded(t, "regexp_like(" ~ t ~ ", '" ~ pattern ~ "')", 'varchar', 'double', 'bigint')) }}
{% endmacro %}

{% macro bigquery__schema_link_canonical_text(expr, data_type=none) %}
    {%- set t = 'trim(cast(' ~ expr ~ ' as string))' -%}
    {%- set pattern = dbt_schema_link.schema_link__padded_number_pattern() -%}
    {%- set matches = "regexp_contains(" ~ t ~ ", '^(" ~ pattern ~ ")$')" -%}
    {{ return(dbt_schema_link.schema_link__unpadded(t, matches, 'string', 'float64', 'int64')) }}
{% endmacro %}

{% macro redshift__schema_link_canonical_text(expr, data_type=none) %}
    {#- a bare varchar is varchar(256) on Redshift and would truncate -#}
    {%- set t = 'trim(cast(' ~ expr ~ ' as varchar(max)))' -%}
    {{ return(dbt_schema_link.schema_link__unpadded(t, t ~ " ~ '^(" ~ dbt_schema_link.schema_link__padded_number_pattern() ~ ")$'",
                                                    'varchar(max)', 'double precision', 'bigint')) }}
{% endmacro %}

{% macro databricks__schema_link_canonical_text(expr, data_type=none) %}
    {{ return(dbt_schema_link.spark__schema_link_canonical_text(expr, data_type)) }}
{% endmacro %}

{% macro spark__schema_link_canonical_text(expr, data_type=none) %}
    {%- if dbt_schema_link.schema_link__text_is_canonical(data_type) -%}
        {{ return('cast(' ~ expr ~ ' as string)') }}
    {%- endif -%}
    {%- set t = 'trim(cast(' ~ expr ~ ' as string))' -%}
    {{ return(dbt_schema_link.schema_link__unpadded(t, t ~ " rlike '^(" ~ dbt_schema_link.schema_link__padded_number_pattern() ~ ")$'",
                                                    'string', 'double', 'bigint')) }}
{% endmacro %}
