{#- The profiling statement for one relation (or one chunk of a wide relation's columns). It reads
    the relation once and returns one shape on every adapter: one row per column, these fields in
    this order (PROFILE_FIELDS in dbt_schema_link/profiling/envelope.py, docs/envelope.md):

      col_idx         the column's index in `columns`; NULL only on the one row a statement with
                      no columns returns (it carries row_count alone)
      row_count       rows read (the sample's when sampled), the same on every row
      non_null, distinct_count, distinct_approx (true: a HyperLogLog estimate)
      min_len, max_len of the canonical text
      minhash         the value sketch as text, NULL when none
      minhash_format  'buckets' (one-permutation `bucket:minimum` pairs, k buckets) or 'minima'
                      (k comma-separated minima of the seeded hash family); NULL with no minhash
      flag_bad        values outside the flag words (schema_link__flag_vocabulary); NULL where
                      not computed (columns without a value sketch)
      top_values      JSON text of the most frequent values, NULL when not computed
      min_value, max_value  numeric columns only (schema_link_numeric_type), NULL elsewhere

    A column with no row (an empty relation on DuckDB and Spark) has no values. Python assembles
    the profile from these rows (profiling/envelope.py assemble_relation).

    columns: list of {name, data_type} (dicts or dbt Column objects) to profile; all must be
    hashable (see schema_link_skip_reason). options: k, top_n, top_max_distinct,
    sample_percent (none: read everything), sample_seed. -#}
{% macro schema_link_profile_sql(relation, columns, options) %}
    {{ return(adapter.dispatch('schema_link_profile_sql', 'dbt_schema_link')(relation, columns, options)) }}
{% endmacro %}

{% macro schema_link__flag_vocabulary() %}
    {{ return(dbt_schema_link.schema_link__discovery_rules().flag_words) }}
{% endmacro %}

{% macro schema_link__flag_values() %}
    {%- set quoted = [] -%}
    {%- for v in dbt_schema_link.schema_link__flag_vocabulary() -%}{%- do quoted.append("'" ~ v ~ "'") -%}{%- endfor -%}
    {{ return('(' ~ (quoted | join(', ')) ~ ')') }}
{% endmacro %}

{#- A predicate true when a distinct value is outside the flag words, cheaper than lower(v) on
    every value (that was a tenth of a relation's profiling): a numeric column compares its number
    `x` with the numeric flag words, and text is lowered only when short enough to be one. The
    length test is a branch of its own: DuckDB runs a CASE branch on the rows that reach it, but
    evaluates both sides of an AND, which lowered every value (a third of a text-heavy relation's
    profiling SQL, measured with EXPLAIN ANALYZE). -#}
{% macro schema_link__not_flag_sql(v, x) %}
    {%- set words = dbt_schema_link.schema_link__flag_vocabulary() -%}
    {%- set numbers = [] -%}
    {%- for w in words if w.lstrip('-').isdigit() -%}{%- do numbers.append(w) -%}{%- endfor -%}
    {%- set longest = words | map('length') | max -%}
    {%- set numeric_test = (x ~ ' not in (' ~ (numbers | join(', ')) ~ ')') if numbers else 'true' -%}
    {{ return('case when ' ~ x ~ ' is not null then ' ~ numeric_test ~ ' when length(' ~ v ~ ') > ' ~ longest
              ~ ' then true else not (lower(' ~ v ~ ') in ' ~ dbt_schema_link.schema_link__flag_values() ~ ') end') }}
{% endmacro %}

{#- Whether the statement keeps the values whose hash is below the threshold shared by every column
    (sample_method 'values', schema_link_sample_method), not a sample of rows. -#}
{% macro schema_link__value_sampled(options) %}
    {{ return(options.get('sample_percent') is not none and options.get('sample_method') == 'values') }}
{% endmacro %}

{#- The sample clause of a row sample; empty when nothing is sampled or values are (they read every row) -#}
{% macro schema_link__sample_sql(relation, columns, options) %}
    {%- if options.get('sample_percent') is none or dbt_schema_link.schema_link__value_sampled(options) -%}
        {{ return('') }}
    {%- endif -%}
    {%- set keys = [] -%}
    {%- for col in columns[:3] -%}
        {%- do keys.append('coalesce('
            ~ dbt_schema_link.schema_link_canonical_text(dbt_schema_link.schema_link_quote(col.name)) ~ ", '')") -%}
    {%- endfor -%}
    {%- set key_expr = (keys | join(" || '|' || ")) if keys else none -%}
    {{ return(dbt_schema_link.schema_link_sample_clause(options.get('sample_percent'), options.get('sample_seed', 42), key_expr)) }}
{% endmacro %}

{#- The statement of a chunk with no columns: the row count alone, in the fields every profile
    statement returns. -#}
{% macro schema_link__relation_row_sql(relation, columns, options) %}
    select
        null as col_idx,
        count(*) as row_count,
        null as non_null,
        null as distinct_count,
        false as distinct_approx,
        null as min_len,
        null as max_len,
        null as minhash,
        null as minhash_format,
        null as flag_bad,
        null as top_values,
        null as min_value,
        null as max_value
    from {{ relation }}
    {{ dbt_schema_link.schema_link__sample_sql(relation, columns, options) }}
{% endmacro %}

{% macro default__schema_link_profile_sql(relation, columns, options) %}
    {#- One wide aggregate row (c<i>_<stat> per column; k seeded minima per column), turned into
        one row per column by a cross join with the column indexes (the aggregate is computed
        once, so the relation is still read once). -#}
    {%- if columns | length == 0 -%}
    {{ return(dbt_schema_link.schema_link__relation_row_sql(relation, columns, options)) }}
    {%- endif -%}
    {%- set k = options.get('k', 128) | int -%}
    {%- set top_n = options.get('top_n', 10) | int -%}
    {%- set approx = 'true' if dbt_schema_link.schema_link_distinct_is_approx() else 'false' -%}
    {%- set stats = ['non_null', 'distinct', 'min_len', 'max_len', 'minhash', 'flag_bad', 'top_values'] %}
    with wide as (
    select
        count(*) as row_count
    {%- set prehash = dbt_schema_link.schema_link_minhash_base('v') != 'v' %}
    {%- for col in columns %}
    {%- set v = 'v' ~ loop.index0 %}
    {%- set c = 'c' ~ loop.index0 %}
    {%- set b = ('b' ~ loop.index0) if prehash else v %}
    {%- set minima = [] %}
    {%- for seed in range(1, k + 1) %}
        {%- do minima.append('min(case when ' ~ v ~ ' is not null then ' ~ dbt_schema_link.schema_link_hash(b, seed) ~ ' end)') %}
    {%- endfor %},
        count({{ v }}) as {{ c }}_non_null,
        {{ dbt_schema_link.schema_link_approx_distinct(v) }} as {{ c }}_distinct,
        min(length({{ v }})) as {{ c }}_min_len,
        max(length({{ v }})) as {{ c }}_max_len,
        {{ dbt_schema_link.schema_link_text_list(minima) }} as {{ c }}_minhash,
        count(case when lower({{ v }}) not in {{ dbt_schema_link.schema_link__flag_values() }} then 1 end) as {{ c }}_flag_bad,
        {{ dbt_schema_link.schema_link_top_values(v, top_n) if top_n > 0 else 'null' }} as {{ c }}_top_values
    {%- endfor %}
    from (
        select
            *
        {%- for col in columns if prehash %},
            {{ dbt_schema_link.schema_link_minhash_base('v' ~ loop.index0) }} as b{{ loop.index0 }}
        {%- endfor %}
        from (
            select
            {%- for col in columns %}
                {{ dbt_schema_link.schema_link_canonical_text(
                dbt_schema_link.schema_link_quote(col.name)) }} as v{{ loop.index0 }}{{ ',' if not loop.last }}
            {%- else %}
                1 as v_none
            {%- endfor %}
            from {{ relation }}
            {{ dbt_schema_link.schema_link__sample_sql(relation, columns, options) }}
        ) as canonical
    ) as src
    ),

    idx as (
    {%- for col in columns %}
        select {{ loop.index0 }} as col_idx{{ ' union all' if not loop.last }}
    {%- endfor %}
    ),

    per_column as (
        select
            idx.col_idx,
            wide.row_count
        {%- for stat in stats %},
            case idx.col_idx
            {%- for col in columns %}
                when {{ loop.index0 }} then wide.c{{ loop.index0 }}_{{ stat }}
            {%- endfor %}
            end as {{ 'distinct_count' if stat == 'distinct' else stat }}
        {%- endfor %}
        from wide
        cross join idx
    )

    select
        col_idx,
        row_count,
        non_null,
        distinct_count,
        {{ approx }} as distinct_approx,
        min_len,
        max_len,
        minhash,
        case when minhash is not null then 'minima' end as minhash_format,
        flag_bad,
        top_values,
        null as min_value,
        null as max_value
    from per_column
{% endmacro %}

{% macro postgres__schema_link_profile_sql(relation, columns, options) %}
    {#- Read once: src feeds one GROUPING SETS aggregation (a set per column plus the empty set
        for the row count), which yields the exact distinct values with their frequencies. All
        later steps run on those distinct values: per-column statistics, one-permutation MinHash
        (each value hashed once, bucket = hash mod k, minimum per bucket; only for columns
        schema_link_sketch_values accepts) and the top values of low-cardinality columns.
        A value sample (schema_link__value_sampled) reads every row too, but the values are
        grouped by their hash instead (postgres__schema_link_value_groups) and `vals` holds
        the kept ones. -#}
    {%- set k = options.get('k', 128) | int -%}
    {%- set top_n = options.get('top_n', 10) | int -%}
    {%- set top_max = options.get('top_max_distinct', 50) | int -%}
    {%- set by_value = dbt_schema_link.schema_link__value_sampled(options) -%}
    {%- if by_value -%}
        {%- set recovery_groups = dbt_schema_link.schema_link__sampling_settings().recovery_groups -%}
        {%- set threshold_sql = 'cast(' ~ dbt_schema_link.schema_link__value_threshold(options.sample_percent, true) ~ ' as bigint)' -%}
    {%- endif -%}
    {%- if columns | length == 0 -%}
    {{ return(dbt_schema_link.schema_link__relation_row_sql(relation, columns, options)) }}
    {%- endif -%}
    {%- set sketched = [] -%}
    {%- set numeric = [] -%}
    {%- for col in columns -%}
        {%- if dbt_schema_link.schema_link_sketch_values(col.data_type) -%}{%- do sketched.append(loop.index0 | string) -%}{%- endif -%}
        {%- if dbt_schema_link.schema_link_numeric_type(col.data_type) -%}{%- do numeric.append(loop.index0 | string) -%}{%- endif -%}
    {%- endfor %}
    with src as (
        select
        {%- for col in columns %}
            {%- set q = dbt_schema_link.schema_link_quote(col.name) %}
            {%- set x = ('cast(' ~ q ~ ' as double precision)') if loop.index0 | string in numeric else 'cast(null as double precision)' %}
            {{ dbt_schema_link.schema_link_canonical_text(q, col.data_type) }} as v{{ loop.index0 }}
            {%- if by_value %}, {{ x }} as x{{ loop.index0 }}{% endif %}{{ ',' if not loop.last }}
        {%- endfor %}
        from {{ relation }}
        {{ dbt_schema_link.schema_link__sample_sql(relation, columns, options) }}
    ),
    {%- if by_value %}

    {#- each column's values as (col_idx, v, x) rows, grouped by hash: a kept value is its own
        group; the values above the threshold fall into the recovery groups -#}
    grouped as (
        select
            col_idx,
            case when h < {{ threshold_sql }} then h end as kept,
            case when h >= {{ threshold_sql }} then mod(mod(h, {{ recovery_groups }}) + {{ recovery_groups }}, {{ recovery_groups }}) end as recovery,
            count(*) as n,
            min(h) as h_lo,
            max(h) as h_hi,
            min(v collate "C") as val,
            min(x) as x_lo,
            max(x) as x_hi
        from (
            select cv.col_idx, cv.v, cv.x, hashtextextended(cv.v, 0) as h
            from src
            cross join lateral (values
            {%- for col in columns %}
                ({{ loop.index0 }}, v{{ loop.index0 }}, x{{ loop.index0 }}){{ ',' if not loop.last }}
            {%- endfor %}
            ) as cv (col_idx, v, x)
        ) as hashed
        group by 1, 2, 3
    ),

    {#- s: a recovery group of the column holds two values, so the values above the threshold
        are not all named: they count as non-null rows with no value (lost) -#}
    judged as (
        select
            grouped.*,
            coalesce(bool_or(recovery is not null and h_lo <> h_hi) over (partition by col_idx), false) as s
        from grouped
    ),

    vals as (
        select col_idx, val, n
        from judged
        where val is not null and (kept is not null or not s)
    ),

    per_column as (
        select
            col_idx,
            sum(n) as row_count,
            bool_or(s) as s,
            coalesce(sum(case when recovery is not null and s then n end), 0) as lost,
            min(x_lo) as min_value,
            max(x_hi) as max_value
        from judged
        group by col_idx
    ),
    {%- else %}

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

    vals as (
        select col_idx, val, n
        from grp
        where val is not null
    ),

    {#- the empty grouping set's row is the row count -#}
    counted as (
        select n as row_count
        from grp
        where col_idx is null
    ),
    {%- endif %}

    stats as (
        select
            col_idx,
            sum(n) as non_null,
            count(*) as distinct_count,
            min(length(val)) as min_len,
            max(length(val)) as max_len,
            count(case when lower(val) not in {{ dbt_schema_link.schema_link__flag_values() }} then 1 end) as flag_bad,
            {#- canonical text of a number casts back; the case keeps text columns from the cast -#}
            min(case when col_idx in ({{ numeric | join(', ') if numeric else 'null' }}) then cast(val as double precision) end) as min_value,
            max(case when col_idx in ({{ numeric | join(', ') if numeric else 'null' }}) then cast(val as double precision) end) as max_value
        from vals
        group by col_idx
    ),

    signatures as (
        select col_idx, string_agg(cast(bucket as text) || ':' || cast(minimum as text), ',' order by bucket) as minhash
        from (
            select col_idx, mod(mod(h, {{ k }}) + {{ k }}, {{ k }}) as bucket, min(h) as minimum
            from (
                select col_idx, hashtextextended(val, 0) as h
                from vals
                where col_idx in ({{ sketched | join(', ') if sketched else 'null' }})
            ) as hashed
            group by 1, 2
        ) as buckets
        group by col_idx
    ),

    tops as (
        select col_idx, cast(array_to_json(array_agg(val order by rn)) as text) as top_values
        from (
            select
                col_idx,
                val,
                row_number() over (partition by col_idx order by n desc, val asc) as rn
            from vals
            where {{ top_n }} > 0
              and col_idx in (select col_idx from stats where distinct_count <= {{ top_max }})
              {%- if by_value %}
              and col_idx in (select col_idx from per_column where not s)
              {%- endif %}
        ) as ranked
        where rn <= {{ top_n }}
        group by col_idx
    )

    {%- if by_value %}
    {#- driven by per_column: a column may keep no value at all; a value sample holds about
        sample_percent of the distinct values -#}
    {%- set f = {
        'driver': 'per_column', 'row_count': 'per_column.row_count',
        'non_null': 'coalesce(stats.non_null, 0) + per_column.lost',
        'distinct_count': 'case when per_column.s then cast(round(coalesce(stats.distinct_count, 0) * '
            ~ (100.0 / (options.sample_percent | float)) ~ ') as bigint) else coalesce(stats.distinct_count, 0) end',
        'distinct_approx': 'per_column.s', 'min_value': 'per_column.min_value', 'max_value': 'per_column.max_value',
        'joins': 'left join stats on stats.col_idx = per_column.col_idx'} %}
    {%- else %}
    {%- set f = {
        'driver': 'stats', 'row_count': 'counted.row_count', 'non_null': 'stats.non_null',
        'distinct_count': 'stats.distinct_count', 'distinct_approx': 'false', 'min_value': 'stats.min_value',
        'max_value': 'stats.max_value', 'joins': 'cross join counted'} %}
    {%- endif %}

    select
        {{ f.driver }}.col_idx,
        {{ f.row_count }} as row_count,
        {{ f.non_null }} as non_null,
        {{ f.distinct_count }} as distinct_count,
        {{ f.distinct_approx }} as distinct_approx,
        stats.min_len,
        stats.max_len,
        signatures.minhash,
        case when signatures.minhash is not null then 'buckets' end as minhash_format,
        stats.flag_bad,
        tops.top_values,
        {{ f.min_value }} as min_value,
        {{ f.max_value }} as max_value
    from {{ f.driver }}
    {{ f.joins }}
    left join signatures on signatures.col_idx = {{ f.driver }}.col_idx
    left join tops on tops.col_idx = {{ f.driver }}.col_idx
{% endmacro %}

{% macro duckdb__schema_link_profile_sql(relation, columns, options) %}
    {#- Long shape. Cost is set by how much work each value gets, so every step after the first
        runs on distinct values, not rows:
        - vals: one GROUP BY per sketched column (a union, each branch reading one column; a view
          or a sample is read once into a materialized src first), giving each distinct value
          with its frequency; only distinct values are cast to canonical text.
        - buckets: one-permutation MinHash. Each distinct value is hashed once; its bucket is the
          hash mod k and each bucket keeps its minimum. Non-null and distinct counts, lengths and
          the top_n most frequent values per bucket (with their counts) are aggregated alongside.
          Python densifies empty buckets (docs/envelope.md).
        - sketched: one row per column; top values only where the column has at most
          top_max_distinct values, merged from the bucket tops by (count, value) descending;
          flag_bad counts the distinct values outside the flag words.
        - counted: columns with no value sketch (schema_link_sketch_values: floats, booleans,
          timestamps, ...): non-null counts and approximate distincts in one wide aggregate.
        Distincts are exact for sketched columns, approximate (HyperLogLog) for counted ones. -#}
    {%- set k = options.get('k', 128) | int -%}
    {%- set top_n = options.get('top_n', 10) | int -%}
    {%- set top_max = options.get('top_max_distinct', 50) | int -%}
    {%- set sample = dbt_schema_link.schema_link__sample_sql(relation, columns, options) | trim -%}
    {%- set by_value = dbt_schema_link.schema_link__value_sampled(options) -%}
    {%- if columns | length == 0 -%}
    {{ return(dbt_schema_link.schema_link__relation_row_sql(relation, columns, options)) }}
    {%- endif -%}
    {#- dispatched once, not per column: a macro call costs about as much as profiling a small column -#}
    {%- set quote = adapter.dispatch('schema_link_quote', 'dbt_schema_link') -%}
    {%- set sketches = adapter.dispatch('schema_link_sketch_values', 'dbt_schema_link') -%}
    {%- set canonical = adapter.dispatch('schema_link_canonical_text', 'dbt_schema_link') -%}
    {%- set numeric = adapter.dispatch('schema_link_numeric_type', 'dbt_schema_link') -%}
    {%- set not_flag = dbt_schema_link.schema_link__not_flag_sql('v', 'x_lo') -%}
    {%- if by_value -%}
        {#- DuckDB's hash is UBIGINT: the threshold is sample_percent of its range -#}
        {%- set recovery_groups = dbt_schema_link.schema_link__sampling_settings().recovery_groups -%}
        {%- set threshold = dbt_schema_link.schema_link__value_threshold(options.sample_percent, false) ~ '::ubigint' -%}
    {%- endif -%}
    {%- set quoted = [] -%}
    {%- set sketched = [] -%}
    {%- set counted = [] -%}
    {%- for col in columns -%}
        {%- set q = quote(col.name) -%}
        {%- set item = {'idx': loop.index0, 'q': q, 'numeric': numeric(col.data_type), 'data_type': col.data_type} -%}
        {%- do quoted.append(q) -%}
        {%- if sketches(col.data_type) -%}
            {%- do item.update({'text': canonical(q, col.data_type)}) -%}
            {%- do sketched.append(item) -%}
        {%- else -%}
            {%- do counted.append(item) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set is_table = relation.type is defined and (relation.type | string | lower) in ['table', 'relationtype.table'] -%}
    {%- set materialize = sample != '' or not is_table -%}
    {%- set source = 'src' if materialize else (relation | string) %}
    with
    {%- if materialize %}
    src as materialized (
        select {{ quoted | join(', ') }}
        from {{ relation }}
        {{ sample }}
    ),
    {%- endif %}
    {%- if sketched %}

    vals as (
    {%- for c in sketched %}
    {%- set x = ('cast(' ~ c.q ~ ' as double)') if c.numeric else 'cast(null as double)' %}
    {%- if by_value %}
        {#- Each value is grouped by its hash g: kept (below the threshold) when g < threshold;
            the others fall into `recovery_groups` groups past it. A group of those that holds one
            value (its least and greatest hash agree) still names it, so a column whose every such
            group does is profiled exactly; otherwise (s) its dropped rows count as non-null rows
            with no value, and distinct_count is scaled. -#}
        select {{ c.idx }} as col_idx, {{ canonical('r', c.data_type) }} as v, n, nn, x_lo, x_hi,
            cast(null as bigint) as len_lo, cast(null as bigint) as len_hi, s
        from (
            select case when kept or not s then r end as r, n, nn, x_lo, x_hi, s
            from (
                select g < {{ threshold }} as kept, r, n, nn, x_lo, x_hi,
                    coalesce(bool_or(g >= {{ threshold }} and h_lo <> h_hi) over (), false) as s
                from (
                    select g, arbitrary(c) as r, count(*) as n, count(c) as nn, min(h) as h_lo, max(h) as h_hi,
                        min(x) as x_lo, max(x) as x_hi
                    from (
                        select c, h, x,
                            case when c is not null then
                                case when h < {{ threshold }} then h else {{ threshold }} + h % {{ recovery_groups }} end
                            end as g
                        from (
                            select {{ c.q }} as c, hash({{ c.text }}) as h, {{ x }} as x
                            from {{ source }}
                        ) as read_once
                    ) as hashed
                    group by g
                ) as grouped
            ) as judged
        ) as kept
    {%- else %}
        select {{ c.idx }} as col_idx, {{ c.text }} as v, count(*) as n,
            case when {{ c.q }} is null then 0 else count(*) end as nn, {{ x }} as x_lo, {{ x }} as x_hi,
            cast(null as bigint) as len_lo, cast(null as bigint) as len_hi, false as s
        from {{ source }}
        group by {{ c.q }}
    {%- endif %}
        {{- '\n        union all\n' if not loop.last }}
    {%- endfor %}
    ),

    buckets as (
        select
            col_idx,
            v is null as is_null,
            hash(v) % {{ k }} as bucket,
            sum(n) as n,
            sum(nn) as nn,
            count(v) as d,
            min(coalesce(len_lo, length(v))) as min_len,
            max(coalesce(len_hi, length(v))) as max_len,
            min(hash(v)) as minimum,
            count(v) filter (where {{ not_flag }}) as flag_bad,
            min(x_lo) as min_value,
            max(x_hi) as max_value,
            bool_or(s) as s{{ ',' if top_n > 0 }}
            {%- if top_n > 0 %}
            {#- both sorted by n descending, so they pair up; cheaper than one list of structs -#}
            arg_max(v, n, {{ top_n }}) as top_values,
            max(n, {{ top_n }}) as top_counts
            {%- endif %}
        from vals
        group by col_idx, is_null, bucket
    ),

    sketched as (
        select
            col_idx,
            sum(n) as row_count,
            coalesce(sum(nn), 0) as non_null,
            {#- a value sample holds about sample_percent of the distinct values -#}
            case when bool_or(s) then cast(round(coalesce(sum(d), 0) * {{ 100.0 / (options.sample_percent | float) if by_value else 1 }}) as bigint)
                else coalesce(sum(d), 0) end as distinct_count,
            coalesce(bool_or(s), false) as distinct_approx,
            min(min_len) as min_len,
            max(max_len) as max_len,
            string_agg(bucket || ':' || minimum, ',' order by bucket) filter (where not is_null) as minhash,
            sum(flag_bad) as flag_bad,
            min(min_value) as min_value,
            max(max_value) as max_value,
            {%- if top_n > 0 %}
            case
                when not bool_or(s) and sum(d) between 1 and {{ top_max }}
                    then cast(to_json([t.v for t in list_sort([{'n': z[1], 'v': z[2]} for z in list_zip(
                        flatten(list(top_counts order by bucket) filter (where not is_null)),
                        flatten(list(top_values order by bucket) filter (where not is_null)))], 'DESC')][1:{{ top_n }}]) as varchar)
            end as top_values
            {%- else %}
            cast(null as varchar) as top_values
            {%- endif %}
        from buckets
        group by col_idx
    ){{ ',' if counted }}
    {%- endif %}
    {%- if counted %}

    counted as (
        select
            unnest([
            {%- for c in counted %}
                {'col_idx': {{ c.idx }}, 'non_null': count({{ c.q }}), 'distinct_count': approx_count_distinct({{ c.q }}),
                 'min_value': {{ ('min(cast(' ~ c.q ~ ' as double))') if c.numeric else 'cast(null as double)' }},
                 'max_value': {{ ('max(cast(' ~ c.q ~ ' as double))') if c.numeric else 'cast(null as double)' }}}{{ ',' if not loop.last }}
            {%- endfor %}
            ]) as c,
            count(*) as row_count
        from {{ source }}
    )
    {%- endif %}
    {%- if sketched %}

    select col_idx, row_count, non_null, distinct_count, distinct_approx, min_len, max_len, minhash,
        case when minhash is not null then 'buckets' end as minhash_format, flag_bad, top_values, min_value, max_value
    from sketched
    {%- endif %}
    {%- if sketched and counted %}
    union all
    {%- endif %}
    {%- if counted %}
    select
        c.col_idx,
        row_count,
        c.non_null,
        c.distinct_count,
        true as distinct_approx,
        cast(null as bigint) as min_len,
        cast(null as bigint) as max_len,
        cast(null as varchar) as minhash,
        cast(null as varchar) as minhash_format,
        cast(null as bigint) as flag_bad,
        cast(null as varchar) as top_values,
        c.min_value,
        c.max_value
    from counted
    {%- endif %}
{% endmacro %}

{% macro redshift__schema_link_profile_sql(relation, columns, options) %}
    {#- Redshift inherits postgres__ macros; it has no FILTER / array_agg: use the wide shape -#}
    {{ return(dbt_schema_link.default__schema_link_profile_sql(relation, columns, options)) }}
{% endmacro %}

{% macro spark__schema_link_profile_sql(relation, columns, options) %}
    {#- Read once: src is exploded with `stack`
        into (col_idx, v) rows and everything after runs on the distinct values that one GROUP BY
        yields, in a chain with no second reference to any step (Spark re-plans every reference
        of a CTE, which would read the relation again):
        - vals: each column's distinct canonical values with their frequencies (NULL included).
          In a value sample (schema_link__value_sampled) the values are grouped by hash instead:
          a kept value (hash below the threshold) is its own group, the others fall into the
          recovery groups; when one of a column's recovery groups holds two values (s) their
          rows are `lost`: non-null rows with no value, and the distinct count is scaled.
        - ranked: each value's rank by frequency within its column (for the top values).
        - buckets: one-permutation MinHash, xxhash64 of each distinct value once; bucket = hash
          mod k keeps its minimum; counts, lengths, flag check and top-ranked values alongside.
        - final: one row per column. Distincts are exact for every column (the GROUP BY has
          them anyway); columns schema_link_sketch_values refuses get counts only, as on DuckDB. -#}
    {%- set k = options.get('k', 128) | int -%}
    {%- set top_n = options.get('top_n', 10) | int -%}
    {%- set top_max = options.get('top_max_distinct', 50) | int -%}
    {%- set sample = dbt_schema_link.schema_link__sample_sql(relation, columns, options) | trim -%}
    {%- set by_value = dbt_schema_link.schema_link__value_sampled(options) -%}
    {%- if columns | length == 0 -%}
    {{ return(dbt_schema_link.schema_link__relation_row_sql(relation, columns, options)) }}
    {%- endif -%}
    {%- set sketched = [] -%}
    {%- set numeric = [] -%}
    {%- set stacked = [] -%}
    {%- for col in columns -%}
        {%- if dbt_schema_link.schema_link_sketch_values(col.data_type) -%}{%- do sketched.append(loop.index0 | string) -%}{%- endif -%}
        {%- if dbt_schema_link.schema_link_numeric_type(col.data_type) -%}{%- do numeric.append(loop.index0 | string) -%}{%- endif -%}
        {%- do stacked.append(loop.index0 ~ ', v' ~ loop.index0 ~ (', x' ~ loop.index0 if by_value else '')) -%}
    {%- endfor -%}
    {%- set is_sketched = 'col_idx in (' ~ (sketched | join(', ') if sketched else 'null') ~ ')' -%}
    {%- set is_numeric = 'col_idx in (' ~ (numeric | join(', ') if numeric else 'null') ~ ')' %}
    {%- if by_value -%}
        {%- set groups = dbt_schema_link.schema_link__sampling_settings().recovery_groups -%}
        {%- set threshold = 'cast(' ~ dbt_schema_link.schema_link__value_threshold(options.sample_percent, true) ~ ' as bigint)' -%}
    {%- endif %}
    with src as (
        select
        {%- for col in columns %}
            {%- set q = dbt_schema_link.schema_link_quote(col.name) %}
            {%- set x = ('cast(' ~ q ~ ' as double)') if (loop.index0 | string) in numeric else 'cast(null as double)' %}
            {{ dbt_schema_link.schema_link_canonical_text(q, col.data_type) }} as v{{ loop.index0 }}
            {%- if by_value %}, {{ x }} as x{{ loop.index0 }}{% endif %}{{ ',' if not loop.last }}
        {%- endfor %}
        from {{ relation }}
        {{ sample }}
    ),
    {%- if by_value %}

    vals as (
        select
            col_idx,
            case when kept is not null or not s then v end as v,
            n,
            recovery is not null and s as lost,
            s,
            x_lo,
            x_hi
        from (
            select
                grouped.*,
                max(recovery is not null and h_lo <> h_hi) over (partition by col_idx) as s
            from (
                select
                    col_idx,
                    case when h < {{ threshold }} then h end as kept,
                    case when h >= {{ threshold }} then pmod(h, {{ groups }}) end as recovery,
                    count(*) as n,
                    min(h) as h_lo,
                    max(h) as h_hi,
                    first(v) as v,
                    min(x) as x_lo,
                    max(x) as x_hi
                from (
                    {#- xxhash64(NULL) is the seed, not NULL -#}
                    select cv.col_idx, cv.v, cv.x, case when cv.v is not null then xxhash64(cv.v) end as h
                    from src
                    lateral view stack({{ columns | length }}, {{ stacked | join(', ') }}) cv as col_idx, v, x
                ) as hashed
                group by 1, 2, 3
            ) as grouped
        ) as judged
    ),
    {%- else %}

    vals as (
        select cv.col_idx, cv.v, count(*) as n, false as lost, false as s,
            case when cv.col_idx in ({{ numeric | join(', ') if numeric else 'null' }}) then cast(cv.v as double) end as x_lo,
            case when cv.col_idx in ({{ numeric | join(', ') if numeric else 'null' }}) then cast(cv.v as double) end as x_hi
        from src
        lateral view stack({{ columns | length }}, {{ stacked | join(', ') }}) cv as col_idx, v
        group by cv.col_idx, cv.v
    ),
    {%- endif %}

    ranked as (
        select
            col_idx,
            v,
            n,
            lost,
            s,
            x_lo,
            x_hi,
            case when v is not null then row_number() over (partition by col_idx, v is null order by n desc, v) end as rn
        from vals
    ),

    buckets as (
        select
            col_idx,
            {#- -2: lost rows (non-null, no value); -1: NULL -#}
            case when lost then -2 when v is null then -1 else pmod(xxhash64(v), {{ k }}) end as bucket,
            sum(n) as n,
            count(v) as d,
            max(s) as s,
            min(length(v)) as min_len,
            max(length(v)) as max_len,
            min(xxhash64(v)) as minimum,
            count(case when lower(v) not in {{ dbt_schema_link.schema_link__flag_values() }} then 1 end) as flag_bad,
            min(x_lo) as min_value,
            max(x_hi) as max_value,
            collect_list(case when rn <= {{ top_n }} then named_struct('rn', rn, 'v', v) end) as tops
        from ranked
        group by 1, 2
    )

    select
        col_idx, row_count, non_null, distinct_count, distinct_approx, min_len, max_len, minhash,
        case when minhash is not null then 'buckets' end as minhash_format, flag_bad, top_values, min_value, max_value
    from (
    select
        col_idx,
        sum(n) as row_count,
        coalesce(sum(case when bucket <> -1 then n end), 0) as non_null,
        {#- a value sample holds about sample_percent of the distinct values -#}
        case when max(s) then cast(round(coalesce(sum(d), 0) * {{ 100.0 / (options.sample_percent | float) if by_value else 1 }}) as bigint)
            else coalesce(sum(d), 0) end as distinct_count,
        max(s) as distinct_approx,
        case when {{ is_sketched }} then min(min_len) end as min_len,
        case when {{ is_sketched }} then max(max_len) end as max_len,
        case when {{ is_sketched }} then nullif(concat_ws(',', transform(
            array_sort(collect_list(case when bucket >= 0 then named_struct('b', bucket, 'm', minimum) end)),
            x -> concat(cast(x.b as string), ':', cast(x.m as string)))), '') end as minhash,
        case when {{ is_sketched }} then sum(flag_bad) end as flag_bad,
        case when {{ is_sketched }} and {{ top_n }} > 0 and not max(s) and sum(d) between 1 and {{ top_max }}
            then to_json(transform(array_sort(flatten(collect_list(tops))), x -> x.v)) end as top_values,
        min(min_value) as min_value,
        max(max_value) as max_value
    from buckets
    group by col_idx
    ) as profiled
{% endmacro %}


{% macro databricks__schema_link_profile_sql(relation, columns, options) %}
    {#- Databricks SQL runs Spark SQL's statement unchanged -#}
    {{ return(dbt_schema_link.spark__schema_link_profile_sql(relation, columns, options)) }}
{% endmacro %}
