{#- Whether a warehouse type is numeric (integers, decimals, floating point), so the profile
    carries the column's numeric minimum and maximum. Join discovery reads them against dense
    id ranges: 1..40 inside 1..5000 is what chance produces, 4000..4040 inside it is not. -#}
{% macro schema_link_numeric_type(data_type) %}
    {{ return(adapter.dispatch('schema_link_numeric_type', 'dbt_schema_link')(data_type)) }}
{% endmacro %}

{% macro default__schema_link_numeric_type(data_type) %}
    {%- set base = ((data_type or '') | string | trim | lower).split('(')[0] | trim -%}
    {{ return(base in [
        'tinyint', 'smallint', 'int', 'int1', 'int2', 'int4', 'int8', 'int16', 'int32', 'int64', 'int128',
        'integer', 'bigint', 'hugeint', 'utinyint', 'usmallint', 'uinteger', 'ubigint', 'uhugeint',
        'byteint', 'long', 'short', 'byte', 'serial', 'bigserial', 'smallserial',
        'decimal', 'numeric', 'number', 'dec',
        'float', 'float4', 'float8', 'float32', 'float64', 'real', 'double', 'double precision',
    ]) }}
{% endmacro %}
