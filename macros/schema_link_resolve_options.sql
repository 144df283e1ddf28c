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
    {%- set given = options or {} -%}
    {%- set defaults = {
        'select': none,
        'exclude': none,
        'k': 128,
        'sample_rows': 1000000,
        'sample_percent': 10,
        'sample_seed': 42,
        'top_n': 10,
        'top_max_distinct': 50,
        'max_columns_per_query': 60,
        'envelope': true,
        'suggest': true,
        'min_containment': 0.98,
        'packages': none,
    } -%}
    {%- for key in given -%}
        {%- if key not in defaults -%}
            {{ exceptions.raise_compiler_error('dbt_schema_link: unknown option ' ~ key
                ~ '; valid options: ' ~ (defaults.keys() | join(', '))) }}
        {%- endif -%}
    {%- endfor -%}
    {%- set o = {} -%}
    {%- for key, default in defaults.items() -%}
        {%- set v = given.get(key) -%}
        {%- do o.update({key: default if v is none else v}) -%}
    {%- endfor -%}
    {%- do o.update({
        'select': dbt_schema_link.schema_link__as_list(o['select'], 'select'),
        'exclude': dbt_schema_link.schema_link__as_list(o['exclude'], 'exclude'),
        'packages': dbt_schema_link.schema_link__as_list(o['packages'], 'packages'),
        'k': dbt_schema_link.schema_link__as_number(o['k'], 'k', 1, 1024, true),
        'sample_rows': dbt_schema_link.schema_link__as_number(o['sample_rows'], 'sample_rows', 1, 1000000000000, true),
        'sample_percent': dbt_schema_link.schema_link__as_number(o['sample_percent'], 'sample_percent', 0.0001, 100, false),
        'sample_seed': dbt_schema_link.schema_link__as_number(o['sample_seed'], 'sample_seed', 0, 2147483647, true),
        'top_n': dbt_schema_link.schema_link__as_number(o['top_n'], 'top_n', 0, 1000, true),
        'top_max_distinct': dbt_schema_link.schema_link__as_number(o['top_max_distinct'], 'top_max_distinct', 0, 1000000, true),
        'max_columns_per_query': dbt_schema_link.schema_link__as_number(o['max_columns_per_query'], 'max_columns_per_query', 1, 10000, true),
        'envelope': dbt_schema_link.schema_link__as_bool(o['envelope'], 'envelope'),
        'suggest': dbt_schema_link.schema_link__as_bool(o['suggest'], 'suggest'),
        'min_containment': dbt_schema_link.schema_link__as_number(o['min_containment'], 'min_containment', 0, 1, false),
    }) -%}
    {{ return(o) }}
{% endmacro %}
