{#- One text value joining SQL expressions with commas (each cast to text), NULL when they are
    all NULL. Used to return a MinHash signature as one column instead of k numeric columns. -#}
{% macro schema_link_text_list(exprs) %}
    {{ return(adapter.dispatch('schema_link_text_list', 'dbt_schema_link')(exprs)) }}
{% endmacro %}

{% macro default__schema_link_text_list(exprs) %}
    {%- set parts = [] -%}
    {%- for e in exprs -%}{%- do parts.append('cast(' ~ e ~ ' as varchar)') -%}{%- endfor -%}
    {{ return("nullif(concat_ws(',', " ~ parts | join(', ') ~ "), '')") }}
{% endmacro %}

{% macro duckdb__schema_link_text_list(exprs) %}
    {%- set parts = [] -%}
    {%- for e in exprs -%}{%- do parts.append('cast(' ~ e ~ ' as varchar)') -%}{%- endfor -%}
    {{ return("nullif(concat_ws(',', " ~ parts | join(', ') ~ "), '')") }}
{% endmacro %}

{% macro postgres__schema_link_text_list(exprs) %}
    {#- concat_ws takes at most 100 arguments on PostgreSQL; an array has no such limit -#}
    {{ return("nullif(array_to_string(array[" ~ exprs | join(', ') ~ "], ','), '')") }}
{% endmacro %}

{% macro snowflake__schema_link_text_list(exprs) %}
    {%- set parts = [] -%}
    {%- for e in exprs -%}{%- do parts.append('to_varchar(' ~ e ~ ')') -%}{%- endfor -%}
    {{ return("nullif(concat_ws(',', " ~ parts | join(', ') ~ "), '')") }}
{% endmacro %}

{% macro bigquery__schema_link_text_list(exprs) %}
    {%- set parts = [] -%}
    {%- for e in exprs -%}{%- do parts.append('cast(' ~ e ~ ' as string)') -%}{%- endfor -%}
    {{ return("nullif(array_to_string([" ~ parts | join(', ') ~ "], ','), '')") }}
{% endmacro %}

{% macro redshift__schema_link_text_list(exprs) %}
    {#- no concat_ws on Redshift; || is NULL as soon as one part is NULL (all are, or none) -#}
    {%- set parts = [] -%}
    {%- for e in exprs -%}{%- do parts.append('cast(' ~ e ~ ' as varchar(32))') -%}{%- endfor -%}
    {{ return("nullif(" ~ parts | join(" || ',' || ") ~ ", '')") }}
{% endmacro %}

{% macro databricks__schema_link_text_list(exprs) %}
    {%- set parts = [] -%}
    {%- for e in exprs -%}{%- do parts.append('cast(' ~ e ~ ' as string)') -%}{%- endfor -%}
    {{ return("nullif(concat_ws(',', " ~ parts | join(', ') ~ "), '')") }}
{% endmacro %}

{% macro spark__schema_link_text_list(exprs) %}
    {%- set parts = [] -%}
    {%- for e in exprs -%}{%- do parts.append('cast(' ~ e ~ ' as string)') -%}{%- endfor -%}
    {{ return("nullif(concat_ws(',', " ~ parts | join(', ') ~ "), '')") }}
{% endmacro %}
