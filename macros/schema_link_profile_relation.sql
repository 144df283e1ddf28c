{#- Profile one relation: decide on sampling from a cheap row estimate, skip unhashable columns,
    run schema_link_profile_sql once per chunk of max_columns_per_query columns (so a relation is
    read once, or once per chunk when wide) and return the profile as a dict of plain JSON types:
    {database, schema, identifier, relation, row_count, sampled, sample_percent, columns: [...]}.
    columns: dbt Column objects or {name, data_type} dicts; none = ask the adapter.
    options: as dbt_schema_link.schema_link_resolve_options (only the profiling ones are used). -#}
{% macro schema_link_profile_relation(relation, columns=none, options=none) %}
    {{ return(adapter.dispatch('schema_link_profile_relation', 'dbt_schema_link')(relation, columns, options)) }}
{% endmacro %}

{% macro schema_link__int(value) %}
    {{ return(none if value is none else (value | int)) }}
{% endmacro %}

{% macro schema_link__top_list(text, top_n) %}
    {#- JSON text from schema_link_top_values / the postgres profile -> list of value strings -#}
    {%- if text is none or (text | string | trim) in ['', 'null'] -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set items = fromjson(text | string) -%}
    {%- if items is none or items is string or items is mapping -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set out = [] -%}
    {%- for item in items -%}
        {%- if item is mapping -%}
            {%- set v = item.get('value', item.get('item')) -%}
        {%- elif item is iterable and item is not string -%}
            {%- set v = item[0] if (item | length) > 0 else none -%}
        {%- else -%}
            {%- set v = item -%}
        {%- endif -%}
        {%- if v is not none and (out | length) < top_n -%}
            {%- do out.append(v | string) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(out) }}
{% endmacro %}

{% macro default__schema_link_profile_relation(relation, columns=none, options=none) %}
    {%- set opts = dbt_schema_link.schema_link_resolve_options(options) -%}
    {%- if columns is none -%}
        {%- set columns = adapter.get_columns_in_relation(relation) -%}
    {%- endif -%}
    {%- set approx = dbt_schema_link.schema_link_distinct_is_approx() -%}

    {#- column list in relation order; profiled ones remember their position -#}
    {%- set skip_reason = adapter.dispatch('schema_link_skip_reason', 'dbt_schema_link') -%}
    {%- set infos = [] -%}
    {%- set profiled = [] -%}
    {%- for col in columns -%}
        {%- set data_type = dbt_schema_link.schema_link_column_type(col) -%}
        {%- set info = {
            'pos': loop.index0,
            'name': col.name | string,
            'data_type': data_type,
            'skipped': skip_reason(data_type),
        } -%}
        {%- do infos.append(info) -%}
        {%- if info.skipped is none -%}
            {%- do profiled.append(info) -%}
        {%- endif -%}
    {%- endfor -%}

    {%- set estimate = dbt_schema_link.schema_link_row_estimate(relation) -%}
    {%- set sampled = estimate is not none and estimate > opts.sample_rows -%}
    {%- set sql_options = {
        'k': opts.k,
        'top_n': opts.top_n,
        'top_max_distinct': opts.top_max_distinct,
        'sample_percent': opts.sample_percent if sampled else none,
        'sample_seed': opts.sample_seed,
    } -%}

    {%- set size = opts.max_columns_per_query -%}
    {%- set chunks = [] -%}
    {%- for start in range(0, profiled | length, size) -%}
        {%- do chunks.append(profiled[start:start + size]) -%}
    {%- endfor -%}
    {%- if chunks | length == 0 -%}
        {%- do chunks.append([]) -%}
    {%- endif -%}

    {%- set stats = {} -%}
    {%- set counted = {'rows': none} -%}
    {%- for chunk in chunks -%}
        {%- set res = run_query(dbt_schema_link.schema_link_profile_sql(relation, chunk, sql_options)) -%}
        {%- set names = res.column_names | map('lower') | list -%}
        {%- for row in res.rows -%}
            {%- set d = {} -%}
            {%- for name in names -%}
                {%- do d.update({name: row[loop.index0]}) -%}
            {%- endfor -%}
            {%- if 'col_idx' in names -%}
                {#- long shape: one row per column; col_idx NULL (postgres) is the whole relation -#}
                {%- if d.col_idx is none -%}
                    {%- do counted.update({'rows': dbt_schema_link.schema_link__int(d.non_null)}) -%}
                {%- else -%}
                    {%- if 'row_count' in names -%}
                        {#- duckdb: every column row carries the row count -#}
                        {%- do counted.update({'rows': dbt_schema_link.schema_link__int(d.row_count)}) -%}
                    {%- endif -%}
                    {%- set info = chunk[d.col_idx | int] -%}
                    {%- do stats.update({info.pos: {
                        'non_null': d.non_null, 'distinct': d.distinct_count,
                        'min_len': d.min_len, 'max_len': d.max_len, 'minhash': d.minhash,
                        'flag_bad': d.flag_bad, 'top_values': d.top_values,
                        'approx': d.get('distinct_approx', approx),
                        'min_value': d.get('min_value'), 'max_value': d.get('max_value'),
                    }}) -%}
                {%- endif -%}
            {%- else -%}
                {#- wide shape: one row, c<i>_<stat> per column -#}
                {%- do counted.update({'rows': dbt_schema_link.schema_link__int(d.row_count)}) -%}
                {%- for info in chunk -%}
                    {%- set c = 'c' ~ loop.index0 ~ '_' -%}
                    {%- do stats.update({info.pos: {
                        'non_null': d[c ~ 'non_null'], 'distinct': d[c ~ 'distinct'],
                        'min_len': d[c ~ 'min_len'], 'max_len': d[c ~ 'max_len'],
                        'minhash': d[c ~ 'minhash'], 'flag_bad': d[c ~ 'flag_bad'],
                        'top_values': d[c ~ 'top_values'],
                    }}) -%}
                {%- endfor -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}

    {%- set out_columns = [] -%}
    {%- for info in infos -%}
        {%- if info.skipped is not none -%}
            {%- do out_columns.append({
                'name': info.name, 'data_type': info.data_type,
                'non_null': none, 'distinct': none, 'distinct_approx': none,
                'min_len': none, 'max_len': none, 'min_value': none, 'max_value': none,
                'minhash': none, 'minhash_buckets': none, 'top_values': none,
                'flag_words': false, 'skipped': info.skipped,
            }) -%}
        {%- else -%}
            {%- set s = stats.get(info.pos, {}) -%}
            {#- inline conversions: per-column macro calls were most of the Jinja time -#}
            {%- set non_null = (s.non_null | int) if s.get('non_null') is not none else 0 -%}
            {#- an approximate distinct count can exceed the non-null count: clamp -#}
            {%- set n_distinct = [(s.distinct | int) if s.get('distinct') is not none else 0, non_null] | min -%}
            {%- set is_bool = 'bool' in ((info.data_type or '') | lower) -%}
            {%- set minhash = s.get('minhash') -%}
            {%- set top = none -%}
            {%- if non_null > 0 and n_distinct <= opts.top_max_distinct and opts.top_n > 0 -%}
                {%- set top = dbt_schema_link.schema_link__top_list(s.get('top_values'), opts.top_n) -%}
            {%- endif -%}
            {%- if s.get('flag_bad') is not none -%}
                {%- set flag_bad = s.flag_bad | int -%}
            {%- elif top is not none and (top | length) >= n_distinct -%}
                {#- the SQL left the flag check to the top values, which then hold every value -#}
                {%- set flag_bad = top | map('lower') | reject('in', dbt_schema_link.schema_link__flag_vocabulary()) | list | length -%}
            {%- else -%}
                {%- set flag_bad = 1 -%}
            {%- endif -%}
            {#- bucket:minimum pairs (one-permutation MinHash) carry their number of buckets -#}
            {%- do out_columns.append({
                'name': info.name, 'data_type': info.data_type,
                'non_null': non_null, 'distinct': n_distinct, 'distinct_approx': s.get('approx', approx),
                'min_len': (s.min_len | int) if s.get('min_len') is not none else none,
                'max_len': (s.max_len | int) if s.get('max_len') is not none else none,
                'min_value': (s.min_value | float) if s.get('min_value') is not none else none,
                'max_value': (s.max_value | float) if s.get('max_value') is not none else none,
                'minhash': (minhash | string) if (non_null > 0 and minhash is not none) else none,
                'minhash_buckets': opts.k if (minhash is not none and ':' in (minhash | string)) else none,
                'top_values': top,
                'flag_words': is_bool or (non_null > 0 and flag_bad == 0),
                'skipped': none,
            }) -%}
        {%- endif -%}
    {%- endfor -%}

    {{ return({
        'database': relation.database,
        'schema': relation.schema,
        'identifier': relation.identifier,
        'relation': relation.render() | string,
        'row_count': estimate if sampled else (counted.rows or 0),
        'sampled': sampled,
        'sample_percent': opts.sample_percent if sampled else none,
        'columns': out_columns,
    }) }}
{% endmacro %}
