{#- dbt run-operation schema_link_tuple_containment --args '{pairs: [{child: ..., child_columns: [...],
    parent: ..., parent_columns: [...]}]}'
    Exact one-way containment of column tuples (a composite key: `room(floor, code)` in
    `bin(floor, code)`), and whether the parent tuple is unique, in one statement per batch. Prints
    `tuple_containment` lines inside its own begin/end envelope: {child, child_columns, parent,
    parent_columns, child_distinct, matched, orphan_rows, parent_rows, parent_distinct}. -#}
{% macro schema_link_tuple_containment(pairs, batch_size=20) %}
    {{ return(adapter.dispatch('schema_link_tuple_containment', 'dbt_schema_link')(pairs, batch_size)) }}
{% endmacro %}

{% macro default__schema_link_tuple_containment(pairs, batch_size=20) %}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if pairs is none or pairs is string or pairs is mapping -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: pairs must be a list of {child, child_columns, parent, parent_columns}') }}
    {%- endif -%}
    {%- set by_uid = {} -%}
    {%- set resolved = [] -%}
    {%- for p in pairs -%}
        {%- for key in ['child', 'child_columns', 'parent', 'parent_columns'] -%}
            {%- if not p.get(key) -%}
                {{ exceptions.raise_compiler_error('dbt_schema_link: tuple pair ' ~ loop.index ~ ' lacks ' ~ key) }}
            {%- endif -%}
        {%- endfor -%}
        {%- if p.child_columns is string or p.parent_columns is string or (p.child_columns | length) != (p.parent_columns | length) -%}
            {{ exceptions.raise_compiler_error('dbt_schema_link: tuple pair ' ~ loop.index
                ~ ' needs child_columns and parent_columns as lists of one length') }}
        {%- endif -%}
        {%- for uid in [p.child, p.parent] if uid not in by_uid -%}
            {%- do by_uid.update({uid: dbt_schema_link.schema_link__relation_of(uid)}) -%}
        {%- endfor -%}
        {%- set cc = [] -%}
        {%- set pc = [] -%}
        {%- for c in p.child_columns -%}
            {%- do cc.append(dbt_schema_link.schema_link__find_column(by_uid[p.child], c)) -%}
        {%- endfor -%}
        {%- for c in p.parent_columns -%}
            {%- do pc.append(dbt_schema_link.schema_link__find_column(by_uid[p.parent], c)) -%}
        {%- endfor -%}
        {%- do resolved.append({'child': p.child, 'child_columns': cc, 'parent': p.parent, 'parent_columns': pc,
                                'child_relation': by_uid[p.child], 'parent_relation': by_uid[p.parent]}) -%}
    {%- endfor -%}

    {%- do dbt_schema_link.schema_link__envelope_begin({'pairs': pairs | length, 'batch_size': batch_size | int}) -%}
    {%- set size = [batch_size | int, 1] | max -%}
    {%- set count = [0] -%}
    {%- for start in range(0, resolved | length, size) -%}
        {%- set batch = resolved[start:start + size] -%}
        {%- set res = run_query(dbt_schema_link.schema_link_tuple_containment_sql(batch)) -%}
        {%- set by_idx = {} -%}
        {%- for row in res.rows -%}
            {%- do by_idx.update({row[0] | int: row}) -%}
        {%- endfor -%}
        {%- for pair in batch -%}
            {%- set row = by_idx.get(loop.index0) -%}
            {%- set line = {'child': pair.child, 'child_columns': pair.child_columns, 'parent': pair.parent,
                            'parent_columns': pair.parent_columns} -%}
            {%- for name in ['child_distinct', 'matched', 'orphan_rows', 'parent_rows', 'parent_distinct'] -%}
                {%- do line.update({name: (row[loop.index] | int) if row is not none else 0}) -%}
            {%- endfor -%}
            {%- do dbt_schema_link.schema_link__envelope_line('tuple_containment', line) -%}
            {%- do count.append(count.pop() + 1) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- do dbt_schema_link.schema_link__envelope_line('end', {'relations': 0, 'containment': count[0], 'skipped': []}) -%}
{% endmacro %}

{#- One statement for a batch of tuple pairs, one UNION ALL branch per pair: the child's distinct
    tuples with no NULL part (canonical text, with their row counts) left-joined to the parent's,
    beside the parent's row count and its count of distinct tuples (equal: the tuple is a unique
    key of the parent, a NULL part counting as not unique). Rows: (pair_idx, child_distinct,
    matched, orphan_rows, parent_rows, parent_distinct). -#}
{% macro schema_link_tuple_containment_sql(pairs) %}
    {{ return(adapter.dispatch('schema_link_tuple_containment_sql', 'dbt_schema_link')(pairs)) }}
{% endmacro %}

{% macro schema_link__tuple_select(columns, relation, grouped) %}
    {%- set parts = [] -%}
    {%- set present = [] -%}
    {%- for c in columns -%}
        {%- set q = dbt_schema_link.schema_link_quote(c) -%}
        {%- do parts.append(dbt_schema_link.schema_link_canonical_text(q) ~ ' as v' ~ loop.index0) -%}
        {%- do present.append(q ~ ' is not null') -%}
    {%- endfor -%}
    {%- if grouped -%}
        {{ return('select ' ~ parts | join(', ') ~ ', count(*) as n from ' ~ relation ~ ' where ' ~ present | join(' and ')
                  ~ ' group by ' ~ range(1, columns | length + 1) | join(', ')) }}
    {%- endif -%}
    {{ return('select distinct ' ~ parts | join(', ') ~ ' from ' ~ relation ~ ' where ' ~ present | join(' and ')) }}
{% endmacro %}

{% macro default__schema_link_tuple_containment_sql(pairs) %}
    {%- for pair in pairs %}
    {%- set width = pair.child_columns | length %}
    select {{ loop.index0 }} as pair_idx, s.child_distinct, s.matched, s.orphan_rows, r.parent_rows, u.parent_distinct
    from (
        select count(*) as child_distinct, count(p.v0) as matched,
               coalesce(sum(case when p.v0 is null then c.n else 0 end), 0) as orphan_rows
        from ({{ dbt_schema_link.schema_link__tuple_select(pair.child_columns, pair.child_relation, true) }}) as c
        left join ({{ dbt_schema_link.schema_link__tuple_select(pair.parent_columns, pair.parent_relation, false) }}) as p
        on {% for i in range(width) %}c.v{{ i }} = p.v{{ i }}{% if not loop.last %} and {% endif %}{% endfor %}
    ) as s
    cross join (select count(*) as parent_rows from {{ pair.parent_relation }}) as r
    cross join (
        select count(*) as parent_distinct
        from ({{ dbt_schema_link.schema_link__tuple_select(pair.parent_columns, pair.parent_relation, false) }}) as d
    ) as u
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{% endmacro %}
