{#- Whether a profiled column of this warehouse type gets a value sketch (exact distinct values,
    MinHash, top values), or only counts (non-null and approximate distinct). Keys are integers,
    text, UUIDs, dates and scale-0 decimals; floating point, fractional decimals, booleans,
    times, timestamps and intervals never are, and grouping their (often all-distinct) values
    was the largest part of profiling cost. Unknown types get the sketch. -#}
{% macro schema_link_sketch_values(data_type) %}
    {{ return(adapter.dispatch('schema_link_sketch_values', 'dbt_schema_link')(data_type)) }}
{% endmacro %}

{% macro default__schema_link_sketch_values(data_type) %}
    {%- set t = (data_type or '') | string | trim | lower -%}
    {%- set base = t.split('(')[0] | trim -%}
    {%- if base in ['float', 'float4', 'float8', 'real', 'double', 'double precision', 'float32', 'float64',
                    'bool', 'boolean', 'bit', 'logical', 'interval', 'money', 'smallmoney'] -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if base.startswith('time') or base.startswith('datetime') or base.startswith('smalldatetime') -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if base in ['decimal', 'numeric', 'number', 'dec'] and ',' in t -%}
        {%- set scale = t.split(',')[1].split(')')[0] | trim -%}
        {{ return(scale in ['', '0']) }}
    {%- endif -%}
    {{ return(true) }}
{% endmacro %}
