{#- The value the profiling statement feeds to dbt_schema_link.schema_link_hash(_, seed) for each of the k seeds,
    computed once per row from the canonical text. Default: the text itself. DuckDB: its 64-bit
    hash, so the k seeded hashes are integer hashes (hashing the text k times is ~5x slower). -#}
{% macro schema_link_minhash_base(expr) %}
    {{ return(adapter.dispatch('schema_link_minhash_base', 'dbt_schema_link')(expr)) }}
{% endmacro %}

{% macro default__schema_link_minhash_base(expr) %}
    {{ return(expr) }}
{% endmacro %}

{% macro duckdb__schema_link_minhash_base(expr) %}
    {{ return('hash(' ~ expr ~ ')') }}
{% endmacro %}
