{#- A seeded 64-bit hash of an expression: the MinHash family is min(hash(v, i)), i = 1..k.
    Signed on every warehouse but DuckDB (UBIGINT); Python maps signed values mod 2**64. -#}
{% macro schema_link_hash(expr, seed) %}
    {{ return(adapter.dispatch('schema_link_hash', 'dbt_schema_link')(expr, seed)) }}
{% endmacro %}

{% macro default__schema_link_hash(expr, seed) %}
    {{ return('hash(' ~ expr ~ ', ' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro duckdb__schema_link_hash(expr, seed) %}
    {#- UBIGINT; hash(NULL) is not NULL, so callers hash only non-null values.
        Not DuckDB's hash(v, seed): that is hash(v) XOR a constant per seed, so the k "seeded"
        hashes would share one ordering structure. Mixing after the XOR gives independent ones,
        and over a pre-hashed value (schema_link_minhash_base) costs two integer hashes. -#}
    {{ return('hash(xor(hash(' ~ expr ~ '), hash(' ~ (seed | int) ~ ')))') }}
{% endmacro %}

{% macro postgres__schema_link_hash(expr, seed) %}
    {{ return('hashtextextended(' ~ expr ~ ', ' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro snowflake__schema_link_hash(expr, seed) %}
    {{ return('hash(' ~ expr ~ ', ' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro bigquery__schema_link_hash(expr, seed) %}
    {{ return("farm_fingerprint(concat('" ~ (seed | int) ~ "', " ~ expr ~ '))') }}
{% endmacro %}

{% macro redshift__schema_link_hash(expr, seed) %}
    {{ return('fnv_hash(' ~ expr ~ ', ' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro databricks__schema_link_hash(expr, seed) %}
    {{ return('xxhash64(' ~ expr ~ ', ' ~ (seed | int) ~ ')') }}
{% endmacro %}

{% macro spark__schema_link_hash(expr, seed) %}
    {{ return('xxhash64(' ~ expr ~ ', ' ~ (seed | int) ~ ')') }}
{% endmacro %}
