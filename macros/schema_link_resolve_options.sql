{#- Fill in defaults for link_schemas options and reject bad values with the valid range.
    Returns a dict with every option; unknown keys are an error. -#}
{% macro schema_link_resolve_options(options=none) %}
    {{ return(adapter.dispatch('schema_link_resolve_options', 'dbt_schema_link')(options)) }}
{% endmacro %}

{% macro schema_link__as_list(value, option) %}
    {%- if value is none -%}
        {{ return(none) }}
    {%- elif value is string -%}
        {{ return([value]) }}
    {%- elif value is iterable and value is not mapping -%}
        {{ return(value | map('string') | list) }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error('dbt_schema_link: option ' ~ option
        ~ ' must be a list of unique_ids or names, got ' ~ value) }}
{% endmacro %}

{% macro schema_link__as_bool(value, option) %}
    {%- if value is sameas true or value is sameas false -%}
        {{ return(value) }}
    {%- elif value is string and (value | lower) in ['true', 'yes', '1'] -%}
        {{ return(true) }}
    {%- elif value is string and (value | lower) in ['false', 'no', '0'] -%}
        {{ return(false) }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error('dbt_schema_link: option ' ~ option ~ ' must be true or false, got ' ~ value) }}
{% endmacro %}

{% macro schema_link__as_number(value, option, low, high, integer) %}
    {%- if value is boolean or not (value is number or (value is string and (value | trim) != '')) -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: option ' ~ option
            ~ ' must be a number in [' ~ low ~ ', ' ~ high ~ '], got ' ~ value) }}
    {%- endif -%}
    {%- set n = (value | int) if integer else (value | float) -%}
    {%- if n < low or n > high or (integer and (value | float) != (value | int)) -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: option ' ~ option ~ ' must be '
            ~ ('an integer' if integer else 'a number') ~ ' in [' ~ low ~ ', ' ~ high ~ '], got ' ~ value) }}
    {%- endif -%}
    {{ return(n) }}
{% endmacro %}

{% macro default__schema_link_resolve_options(options=none) %}
    {#- names, kinds, defaults and bounds come from schema_link__option_schema (generated from
        the Python package's OPTION_SCHEMA), so the CLI and the macro accept the same values -#}
    {%- set given = options or {} -%}
    {%- set schema = dbt_schema_link.schema_link__option_schema() -%}
    {%- set names = schema | map(attribute='name') | list -%}
    {%- for key in given -%}
        {%- if key not in names -%}
            {{ exceptions.raise_compiler_error('dbt_schema_link: unknown option ' ~ key
                ~ '; valid options: ' ~ (names | join(', '))) }}
        {%- endif -%}
    {%- endfor -%}
    {%- set o = {} -%}
    {%- for spec in schema -%}
        {%- set v = given.get(spec.name) -%}
        {%- set v = spec.default if v is none else v -%}
        {%- if spec.kind == 'names' -%}
            {%- set v = dbt_schema_link.schema_link__as_list(v, spec.name) -%}
        {%- elif spec.kind == 'bool' -%}
            {%- set v = dbt_schema_link.schema_link__as_bool(v, spec.name) -%}
        {%- else -%}
            {%- set v = dbt_schema_link.schema_link__as_number(v, spec.name, spec.low, spec.high, spec.kind == 'integer') -%}
        {%- endif -%}
        {%- do o.update({spec.name: v}) -%}
    {%- endfor -%}
    {{ return(o) }}
{% endmacro %}
