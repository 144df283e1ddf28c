{#- The profiling statement for one relation (or one chunk of a wide relation's columns). It reads
    the relation once and returns, per column: non-null count, distinct count, min/max length of
    the canonical text, the MinHash signature (k minima as one comma-separated text), a count of
    values outside the flag vocabulary and (where computable) the top values as JSON text.

    columns: list of {name, data_type} (dicts or dbt Column objects) to profile; all must be
    hashable (see schema_link_skip_reason). options: k, top_n, top_max_distinct,
    sample_percent (none: read everything), sample_seed.

    Result shapes, both read by schema_link_profile_relation:
    - wide (default): one row; row_count, then c<i>_non_null, c<i>_distinct, c<i>_min_len,
      c<i>_max_len, c<i>_minhash, c<i>_flag_bad, c<i>_top_values for column i.
    - long (postgres): one row per column, keyed by col_idx (NULL: the whole-relation row whose
      non_null is the row count), columns non_null, distinct_count, min_len, max_len, minhash,
      flag_bad, top_values. -#}
{% macro schema_link_profile_sql(relation, columns, options) %}
    {{ return(adapter.dispatch('schema_link_profile_sql', 'dbt_schema_link')(relation, columns, options)) }}
{% endmacro %}

{% macro schema_link__flag_values() %}
    {{ return("('0', '1', 'true', 'false', 't', 'f', 'y', 'n', 'yes', 'no')") }}
{% endmacro %}

{% macro schema_link__sample_sql(relation, columns, options) %}
    {%- if options.get('sample_percent') is none -%}
        {{ return('') }}
    {%- endif -%}
    {%- set keys = [] -%}
    {%- for col in columns[:3] -%}
        {%- do keys.append('coalesce(' ~ schema_link_canonical_text(schema_link_quote(col.name)) ~ ", '')") -%}
    {%- endfor -%}
    {%- set key_expr = (keys | join(" || '|' || ")) if keys else none -%}
    {{ return(schema_link_sample_clause(options.get('sample_percent'), options.get('sample_seed', 42), key_expr)) }}
{% endmacro %}

{% macro default__schema_link_profile_sql(relation, columns, options) %}
    {%- set k = options.get('k', 128) | int -%}
    {%- set top_n = options.get('top_n', 10) | int -%}
    select
        count(*) as row_count
    {%- set prehash = schema_link_minhash_base('v') != 'v' %}
    {%- for col in columns %}
    {%- set v = 'v' ~ loop.index0 %}
    {%- set c = 'c' ~ loop.index0 %}
    {%- set b = ('b' ~ loop.index0) if prehash else v %}
    {%- set minima = [] %}
    {%- for seed in range(1, k + 1) %}
        {%- do minima.append('min(case when ' ~ v ~ ' is not null then ' ~ schema_link_hash(b, seed) ~ ' end)') %}
    {%- endfor %},
        count({{ v }}) as {{ c }}_non_null,
        {{ schema_link_approx_distinct(v) }} as {{ c }}_distinct,
        min(length({{ v }})) as {{ c }}_min_len,
        max(length({{ v }})) as {{ c }}_max_len,
        {{ schema_link_text_list(minima) }} as {{ c }}_minhash,
        count(case when lower({{ v }}) not in {{ schema_link__flag_values() }} then 1 end) as {{ c }}_flag_bad,
        {{ schema_link_top_values(v, top_n) if top_n > 0 else 'null' }} as {{ c }}_top_values
    {%- endfor %}
    from (
        select
            *
        {%- for col in columns if prehash %},
            {{ schema_link_minhash_base('v' ~ loop.index0) }} as b{{ loop.index0 }}
        {%- endfor %}
        from (
            select
            {%- for col in columns %}
                {{ schema_link_canonical_text(schema_link_quote(col.name)) }} as v{{ loop.index0 }}{{ ',' if not loop.last }}
            {%- else %}
                1 as v_none
            {%- endfor %}
            from {{ relation }}
            {{ schema_link__sample_sql(relation, columns, options) }}
        ) as canonical
    ) as src
{% endmacro %}

{% macro postgres__schema_link_profile_sql(relation, columns, options) %}
    {#- Read once: src feeds one GROUPING SETS aggregation (a set per column plus the empty set
        for the row count), which yields the exact distinct values with their frequencies; the
        per-column statistics, MinHash minima (over distinct values: same minima) and top values
        are aggregated from those groups. -#}
    {%- set k = options.get('k', 128) | int -%}
    {%- set top_n = options.get('top_n', 10) | int -%}
    {%- set top_max = options.get('top_max_distinct', 50) | int -%}
    {%- if columns | length == 0 %}
    select
        cast(null as integer) as col_idx,
        count(*) as non_null
    from {{ relation }}
    {{ schema_link__sample_sql(relation, columns, options) }}
    {%- else -%}
    {%- set minima = [] -%}
    {%- for seed in range(1, k + 1) -%}
        {%- do minima.append('min(' ~ schema_link_hash('val', seed) ~ ')') -%}
    {%- endfor -%}
    with src as (
        select
        {%- for col in columns %}
            {{ schema_link_canonical_text(schema_link_quote(col.name)) }} as v{{ loop.index0 }}{{ ',' if not loop.last }}
        {%- endfor %}
        from {{ relation }}
        {{ schema_link__sample_sql(relation, columns, options) }}
    ),

    grp as (
        select
            case
            {%- for col in columns %}
                when grouping(v{{ loop.index0 }}) = 0 then {{ loop.index0 }}
            {%- endfor %}
            end as col_idx,
            case
            {%- for col in columns %}
                when grouping(v{{ loop.index0 }}) = 0 then v{{ loop.index0 }}
            {%- endfor %}
            end as val,
            count(*) as n
        from src
        group by grouping sets (
        {%- for col in columns %}
            (v{{ loop.index0 }}),
        {%- endfor %}
            ()
        )
    ),

    ranked as (
        select
            col_idx,
            val,
            n,
            row_number() over (partition by col_idx order by n desc, val asc) as rn
        from grp
        where val is not null or col_idx is null
    )

    select
        col_idx,
        sum(n) as non_null,
        count(val) as distinct_count,
        min(length(val)) as min_len,
        max(length(val)) as max_len,
        {{ schema_link_text_list(minima) }} as minhash,
        count(case when lower(val) not in {{ schema_link__flag_values() }} then 1 end) as flag_bad,
        case
            when count(val) between 1 and {{ top_max }} and {{ top_n }} > 0
                then cast(array_to_json(array_agg(val order by rn) filter (where rn <= {{ top_n }})) as text)
        end as top_values
    from ranked
    group by col_idx
    {%- endif %}
{% endmacro %}

{% macro redshift__schema_link_profile_sql(relation, columns, options) %}
    {#- Redshift inherits postgres__ macros; it has no FILTER / array_agg: use the wide shape -#}
    {{ return(default__schema_link_profile_sql(relation, columns, options)) }}
{% endmacro %}
