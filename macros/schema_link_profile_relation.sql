{#- Profile one relation: decide on sampling from a cheap row estimate, skip unhashable columns,
    run schema_link_profile_sql once per chunk of max_columns_per_query columns (so a relation is
    read once, or once per chunk when wide) and return what the statements returned, as plain JSON
    types (the envelope's `relation` document, docs/envelope.md; Python assembles the profile):
    {database, schema, identifier, relation, row_estimate, sampled, sample_percent, sample_method
     ('rows' or 'values', schema_link_sample_method; none unless sampled), k, top_n,
     top_max_distinct, columns: [{name, data_type, skipped}], chunks: [{columns, fields, rows}]}.
    A chunk's `columns` are the relation positions of its statement's col_idx 0, 1, ...; `fields`
    the statement's column names (schema_link_profile_sql), `rows` its rows.
    columns: dbt Column objects or {name, data_type} dicts; none = ask the adapter.
    options: as dbt_schema_link.schema_link_resolve_options (only the profiling ones are used). -#}
{% macro schema_link_profile_relation(relation, columns=none, options=none) %}
    {{ return(adapter.dispatch('schema_link_profile_relation', 'dbt_schema_link')(relation, columns, options)) }}
{% endmacro %}

{#- The rows a statement returned, each value as JSON: agate hands numbers over as Decimal, which
    tojson refuses; text stays text (a minhash or JSON list), booleans stay booleans. -#}
{% macro schema_link__json_rows(res) %}
    {%- set rows = [] -%}
    {%- for row in res.rows -%}
        {%- set out = [] -%}
        {%- for value in row -%}
            {%- do out.append(value if (value is none or value is string or value is sameas true
                or value is sameas false) else (value | float)) -%}
        {%- endfor -%}
        {%- do rows.append(out) -%}
    {%- endfor -%}
    {{ return(rows) }}
{% endmacro %}

{% macro default__schema_link_profile_relation(relation, columns=none, options=none) %}
    {%- set opts = dbt_schema_link.schema_link_resolve_options(options) -%}
    {%- if columns is none -%}
        {%- set columns = adapter.get_columns_in_relation(relation) -%}
    {%- endif -%}

    {#- column list in relation order; profiled ones remember their position -#}
    {%- set skip_reason = adapter.dispatch('schema_link_skip_reason', 'dbt_schema_link') -%}
    {%- set infos = [] -%}
    {%- set profiled = [] -%}
    {%- for col in columns -%}
        {%- set data_type = dbt_schema_link.schema_link_column_type(col) -%}
        {%- set info = {
            'name': col.name | string,
            'data_type': data_type,
            'skipped': skip_reason(data_type),
        } -%}
        {%- do infos.append(info) -%}
        {%- if info.skipped is none -%}
            {%- do profiled.append({'pos': loop.index0, 'name': info.name, 'data_type': data_type}) -%}
        {%- endif -%}
    {%- endfor -%}

    {%- set estimate = dbt_schema_link.schema_link_row_estimate(relation) -%}
    {%- set sampled = estimate is not none and estimate > opts.sample_rows -%}
    {%- set sql_options = {
        'k': opts.k,
        'top_n': opts.top_n,
        'top_max_distinct': opts.top_max_distinct,
        'sample_percent': opts.sample_percent if sampled else none,
        'sample_method': dbt_schema_link.schema_link_sample_method() if sampled else none,
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

    {%- set results = [] -%}
    {%- for chunk in chunks -%}
        {%- set res = run_query(dbt_schema_link.schema_link_profile_sql(relation, chunk, sql_options)) -%}
        {%- do results.append({
            'columns': chunk | map(attribute='pos') | list,
            'fields': res.column_names | map('lower') | list,
            'rows': dbt_schema_link.schema_link__json_rows(res),
        }) -%}
    {%- endfor -%}

    {{ return({
        'database': relation.database,
        'schema': relation.schema,
        'identifier': relation.identifier,
        'relation': relation.render() | string,
        'row_estimate': estimate,
        'sampled': sampled,
        'sample_percent': opts.sample_percent if sampled else none,
        'sample_method': sql_options.sample_method,
        'k': opts.k,
        'top_n': opts.top_n,
        'top_max_distinct': opts.top_max_distinct,
        'columns': infos,
        'chunks': results,
    }) }}
{% endmacro %}

{#- What the run-operation's own summary and suggestions read of a profile (Python assembles the
    full one): the row count, and per column name, data_type, skipped, non_null, distinct (never
    above non_null), distinct_approx and flag_words (as profiling/envelope.py sets them). -#}
{% macro schema_link__profile_facts(profile) %}
    {%- set facts = {} -%}
    {%- set counted = {'rows': 0} -%}
    {%- for chunk in profile.chunks -%}
        {%- set at = {} -%}
        {%- for name in chunk.fields -%}{%- do at.update({name: loop.index0}) -%}{%- endfor -%}
        {%- for row in chunk.rows -%}
            {%- if row[at.row_count] is not none -%}
                {%- do counted.update({'rows': row[at.row_count] | int}) -%}
            {%- endif -%}
            {%- if row[at.col_idx] is not none -%}
                {%- set non_null = (row[at.non_null] or 0) | int -%}
                {%- do facts.update({chunk.columns[row[at.col_idx] | int]: {
                    'non_null': non_null,
                    'distinct': [(row[at.distinct_count] or 0) | int, non_null] | min,
                    'distinct_approx': row[at.distinct_approx],
                    'flag_bad': row[at.flag_bad],
                }}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- set columns = [] -%}
    {%- for info in profile.columns -%}
        {%- set f = facts.get(loop.index0, {'non_null': none if info.skipped else 0, 'distinct': none if info.skipped else 0,
                                            'distinct_approx': none, 'flag_bad': none}) -%}
        {%- set is_bool = 'bool' in ((info.data_type or '') | lower) -%}
        {%- do columns.append({
            'name': info.name, 'data_type': info.data_type, 'skipped': info.skipped,
            'non_null': f.non_null, 'distinct': f.distinct, 'distinct_approx': f.distinct_approx,
            'flag_words': info.skipped is none and (is_bool or ((f.non_null or 0) > 0 and f.flag_bad is not none
                                                           and (f.flag_bad | int) == 0)),
        }) -%}
    {%- endfor -%}
    {{ return({
        'row_count': profile.row_estimate if (profile.sampled and profile.sample_method != 'values') else counted.rows,
        'columns': columns,
    }) }}
{% endmacro %}

{#- The row count of a profile for the run-operation's summary: the estimate when rows were sampled -#}
{% macro schema_link__row_count(profile) %}
    {%- if profile.sampled and profile.sample_method != 'values' -%}
        {{ return(profile.row_estimate or 0) }}
    {%- endif -%}
    {%- for chunk in profile.chunks -%}
        {%- for row in chunk.rows if row[chunk.fields.index('row_count')] is not none -%}
            {{ return(row[chunk.fields.index('row_count')] | int) }}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(0) }}
{% endmacro %}
