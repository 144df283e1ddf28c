{#- Why a column of this warehouse type is not profiled (binary, JSON/semi-structured, arrays,
    structs, maps, spatial), or none when it is. Reasons read `unsupported type: <TYPE> (<kind>)`. -#}
{% macro schema_link_skip_reason(data_type) %}
    {{ return(adapter.dispatch('schema_link_skip_reason', 'dbt_schema_link')(data_type)) }}
{% endmacro %}

{% macro default__schema_link_skip_reason(data_type) %}
    {%- set t = (data_type or '') | string | trim | lower -%}
    {%- set kind = none -%}
    {%- if t.endswith(']') or t.startswith('array') or t.startswith('list') or t.startswith('_') -%}
        {%- set kind = 'array' -%}
    {%- elif t.startswith('struct') or t.startswith('record') or t.startswith('row(') or t.startswith('union') -%}
        {%- set kind = 'struct' -%}
    {%- elif t.startswith('map') -%}
        {%- set kind = 'map' -%}
    {%- elif t in ['json', 'jsonb', 'variant', 'object', 'super'] or t.startswith('object(') -%}
        {%- set kind = 'json' -%}
    {%- elif t in ['blob', 'bytea', 'binary', 'varbinary', 'bytes', 'varbyte', 'image', 'long raw']
        or t.startswith('binary') or t.startswith('varbinary') or t.startswith('bytes(')
        or t.startswith('varbyte') -%}
        {%- set kind = 'binary' -%}
    {%- elif t.startswith('geography') or t.startswith('geometry') -%}
        {%- set kind = 'spatial' -%}
    {%- endif -%}
    {%- if kind is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return('unsupported type: ' ~ (data_type | string) ~ ' (' ~ kind ~ ')') }}
{% endmacro %}
