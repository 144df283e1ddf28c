{#- The clause appended right after `from <relation>` to read a repeatable sample of about
    `percent` percent of the rows. Redshift has no TABLESAMPLE: there it is a WHERE clause on a
    hash of `key_expr` (canonical text of some columns), or random() when no key is given. -#}
{% macro schema_link_sample_clause(percent, seed, key_expr=none) %}
    {{ return(adapter.dispatch('schema_link_sample_clause', 'dbt_schema_link')(percent, seed, key_expr)) }}
{% endmacro %}

{#- How a relation above sample_rows is sampled: 'rows' (the sample clause above: statistics
    describe about sample_percent of the rows) or 'values' (every row is read and each column keeps
    the values whose hash is below sample_percent of the hash range, one threshold shared by every
    column, so samples of a child and its parent hold the same values; counts of rows are exact). -#}
{% macro schema_link_sample_method() %}
    {{ return(adapter.dispatch('schema_link_sample_method', 'dbt_schema_link')()) }}
{% endmacro %}

{% macro default__schema_link_sample_method() %}
    {{ return('rows') }}
{% endmacro %}

{#- The engines whose profile statement keeps values below a hash threshold
    (schema_link__value_threshold); Redshift inherits postgres__ macros but profiles with the
    default statement, which samples rows. -#}
{% macro duckdb__schema_link_sample_method() %}
    {{ return('values') }}
{% endmacro %}

{% macro postgres__schema_link_sample_method() %}
    {{ return('values') }}
{% endmacro %}

{% macro redshift__schema_link_sample_method() %}
    {{ return('rows') }}
{% endmacro %}

{% macro spark__schema_link_sample_method() %}
    {{ return('values') }}
{% endmacro %}

{#- The hash below which a value sample keeps a value: `percent` percent of the 64-bit hash
    range, the same number for every column of every relation, so a child's kept values are
    its parent's. signed: the engine's hash is a signed bigint (PostgreSQL, Spark), else
    unsigned (DuckDB). Left below the top of the range so the recovery groups past it fit. -#}
{% macro schema_link__value_threshold(percent, signed) %}
    {%- set p = dbt_schema_link.schema_link__percent_text(percent) | float -%}
    {%- set groups = dbt_schema_link.schema_link__sampling_settings().recovery_groups -%}
    {%- set top = 18446744073709551615 - groups -%}
    {%- set threshold = [(p / 100.0 * 18446744073709551616) | int, top] | min -%}
    {{ return(threshold - 9223372036854775808 if signed else threshold) }}
{% endmacro %}

{% macro schema_link__percent_text(percent) %}
    {%- set p = percent | float -%}
    {%- if p <= 0 or p > 100 -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: sample percent must be in (0, 100], got ' ~ percent) }}
    {%- endif -%}
    {{ return('%g' | format(p)) }}
{% endmacro %}

{% macro default__schema_link_sample_clause(percent, seed, key_expr=none) %}
    {{ return('tablesample bernoulli (' ~ dbt_schema_link.schema_link__percent_text(percent) ~ ') repeatable (' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro duckdb__schema_link_sample_clause(percent, seed, key_expr=none) %}
    {#- system sampling is all-or-nothing on small tables, so bernoulli -#}
    {{ return('using sample ' ~ dbt_schema_link.schema_link__percent_text(percent) ~ '% (bernoulli, ' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro postgres__schema_link_sample_clause(percent, seed, key_expr=none) %}
    {{ return('tablesample bernoulli (' ~ dbt_schema_link.schema_link__percent_text(percent) ~ ') repeatable (' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro databricks__schema_link_sample_clause(percent, seed, key_expr=none) %}
    {{ return('tablesample (' ~ dbt_schema_link.schema_link__percent_text(percent) ~ ' percent) repeatable (' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro spark__schema_link_sample_clause(percent, seed, key_expr=none) %}
    {{ return('tablesample (' ~ dbt_schema_link.schema_link__percent_text(percent) ~ ' percent) repeatable (' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro snowflake__schema_link_sample_clause(percent, seed, key_expr=none) %}
    {{ return('sample bernoulli (' ~ dbt_schema_link.schema_link__percent_text(percent) ~ ') seed (' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro bigquery__schema_link_sample_clause(percent, seed, key_expr=none) %}
    {#- BigQuery samples storage blocks and takes no seed -#}
    {{ return('tablesample system (' ~ dbt_schema_link.schema_link__percent_text(percent) ~ ' percent)') }}
{% endmacro %}

{% macro redshift__schema_link_sample_clause(percent, seed, key_expr=none) %}
    {%- set threshold = ((percent | float) * 10000) | int -%}
    {%- do dbt_schema_link.schema_link__percent_text(percent) -%}
    {%- if key_expr is none -%}
        {{ return('where random() < ' ~ ((percent | float) / 100.0)) }}
    {%- endif -%}
    {{ return('where abs(mod(fnv_hash(' ~ key_expr ~ ', ' ~ (seed | int) ~ '), 1000000)) < ' ~ threshold) }}
{% endmacro %}
