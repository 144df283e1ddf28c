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
    - long (postgres, duckdb): one row per column, keyed by col_idx, columns non_null,
      distinct_count, min_len, max_len, minhash, flag_bad, top_values. The row count is either
      the non_null of a whole-relation row whose col_idx is NULL (postgres) or a row_count column
      on every row (duckdb; an empty relation then returns no rows). -#}
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

{% macro duckdb__schema_link_profile_sql(relation, columns, options) %}
    {#- Long shape, one read of the relation (src, materialized). DuckDB's planning time grows with
        the number of expressions and was most of the cost of the wide shape (k hash minima per
        column), so every statistic, each of the k minima included, is written once for all
        columns:
        - native_counts: one GROUPING SETS aggregation (a set per column) yields each column's
          distinct values with their frequencies; only those are cast to canonical text, and
          value_counts merges values that share a text. The k hashes are then computed per
          distinct value (the same minima as over all rows); HyperLogLog counts ignore duplicates.
        - per_presence: per column and presence, so NULLs fall into a group of their own instead
          of a CASE around each hash; the minima are one list, not k casts to text.
        - stats: the NULL group folds into the row count; the minima become comma-separated text.
        - tops: approx_top_k over all rows, as before, but only for the columns whose top values
          schema_link_profile_relation reports (1 <= distinct <= top_max_distinct). -#}
    {%- set k = options.get('k', 128) | int -%}
    {%- set top_n = options.get('top_n', 10) | int -%}
    {%- set top_max = options.get('top_max_distinct', 50) | int -%}
    {%- if columns | length == 0 %}
    select count(*) as row_count
    from {{ relation }}
    {{ schema_link__sample_sql(relation, columns, options) }}
    {%- else -%}
    {#- one macro call, not k: the seed is a marker replaced in the rendered hash -#}
    {%- set marker = '9876543210' -%}
    {%- set hash_sql = 'min(' ~ schema_link_hash('b', marker) ~ ')' -%}
    {%- set minima = [] -%}
    {%- for seed in range(1, k + 1) -%}
        {%- do minima.append(hash_sql.replace(marker, seed | string)) -%}
    {%- endfor -%}
    {%- set quoted = [] -%}
    {%- for col in columns -%}
        {%- do quoted.append(schema_link_quote(col.name)) -%}
    {%- endfor %}
    with src as materialized (
        select {{ quoted | join(', ') }}
        from {{ relation }}
        {{ schema_link__sample_sql(relation, columns, options) }}
    ),

    stats as materialized (
        select
            col_idx,
            sum(n) as row_count,
            coalesce(sum(n) filter (where present), 0) as non_null,
            coalesce(max(distinct_count) filter (where present), 0) as distinct_count,
            max(min_len) filter (where present) as min_len,
            max(max_len) filter (where present) as max_len,
            nullif(array_to_string(max(minima) filter (where present), ','), '') as minhash,
            coalesce(max(flag_bad) filter (where present), 0) as flag_bad
        from (
            select
                col_idx,
                v is not null as present,
                sum(n) as n,
                approx_count_distinct(v) as distinct_count,
                min(length(v)) as min_len,
                max(length(v)) as max_len,
                [{{ minima | join(', ') }}] as minima,
                coalesce(sum(case when lower(v) not in {{ schema_link__flag_values() }} then n end), 0) as flag_bad
            from (
                select
                    col_idx,
                    v,
                    {{ schema_link_minhash_base('v') }} as b,
                    sum(n) as n
                from (
                    select
                        case
                        {%- for q in quoted %}
                            when grouping({{ q }}) = 0 then {{ loop.index0 }}
                        {%- endfor %}
                        end as col_idx,
                        case
                        {%- for q in quoted %}
                            when grouping({{ q }}) = 0 then {{ schema_link_canonical_text(q) }}
                        {%- endfor %}
                        end as v,
                        count(*) as n
                    from src as src_values
                    group by grouping sets (
                    {%- for q in quoted %}
                        ({{ q }}){{ ',' if not loop.last }}
                    {%- endfor %}
                    )
                ) as native_counts
                {#- values whose canonical texts coincide (say 'a' and 'a ') become one #}
                group by col_idx, v
            ) as value_counts
            group by col_idx, v is not null
        ) as per_presence
        group by col_idx
    ){{ ',' if top_n > 0 }}
    {%- if top_n > 0 %}

    tops as (
        select
            [
            {%- for q in quoted %}
                {{ schema_link_top_values('t' ~ loop.index0, top_n) }}{{ ',' if not loop.last }}
            {%- endfor %}
            ] as top_list
        from (
            select
            {%- for q in quoted %}
                case when list_contains(wanted.ids, {{ loop.index0 }}) then {{ schema_link_canonical_text(q) }} end as t{{ loop.index0 }}{{ ',' if not loop.last }}
            {%- endfor %}
            from src as src_rows
            cross join (
                select coalesce(list(col_idx), []) as ids
                from stats
                where non_null > 0 and least(distinct_count, non_null) <= {{ top_max }}
            ) as wanted
        ) as gated
    )
    {%- endif %}

    select
        stats.col_idx,
        stats.row_count,
        stats.non_null,
        stats.distinct_count,
        stats.min_len,
        stats.max_len,
        stats.minhash,
        stats.flag_bad,
        {{ 'tops.top_list[stats.col_idx + 1]' if top_n > 0 else 'cast(null as varchar)' }} as top_values
    from stats
    {%- if top_n > 0 %}
    cross join tops
    {%- endif %}
    {%- endif %}
{% endmacro %}

{% macro redshift__schema_link_profile_sql(relation, columns, options) %}
    {#- Redshift inherits postgres__ macros; it has no FILTER / array_agg: use the wide shape -#}
    {{ return(default__schema_link_profile_sql(relation, columns, options)) }}
{% endmacro %}
