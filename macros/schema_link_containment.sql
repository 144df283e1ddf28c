{#- dbt run-operation schema_link_containment --args '{pairs: [{child: ..., child_column: ...,
    parent: ..., parent_column: ...}]}'
    Exact one-way containment for the given column pairs (unique_ids of models, seeds, snapshots
    or sources), printed as `containment` lines inside its own begin/end envelope. -#}
{% macro schema_link_containment(pairs, batch_size=20) %}
    {{ return(adapter.dispatch('schema_link_containment', 'dbt_schema_link')(pairs, batch_size)) }}
{% endmacro %}

{% macro schema_link__find_column(relation, name) %}
    {%- set cols = adapter.get_columns_in_relation(relation) -%}
    {%- for c in cols -%}
        {%- if c.name == name -%}{{ return(c.name) }}{%- endif -%}
    {%- endfor -%}
    {%- for c in cols -%}
        {%- if (c.name | lower) == (name | lower) -%}{{ return(c.name) }}{%- endif -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error('dbt_schema_link: column ' ~ name ~ ' not found in ' ~ relation) }}
{% endmacro %}

{% macro default__schema_link_containment(pairs, batch_size=20) %}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if pairs is none or pairs is string or pairs is mapping -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: pairs must be a list of {child, child_column, parent, parent_column}') }}
    {%- endif -%}
    {%- set wanted = [] -%}
    {%- for p in pairs -%}
        {%- for key in ['child', 'child_column', 'parent', 'parent_column'] -%}
            {%- if not p.get(key) -%}
                {{ exceptions.raise_compiler_error('dbt_schema_link: containment pair ' ~ loop.index ~ ' lacks ' ~ key) }}
            {%- endif -%}
        {%- endfor -%}
        {%- do wanted.extend([p.child, p.parent]) -%}
    {%- endfor -%}
    {%- set collected = dbt_schema_link.schema_link_collect_relations(wanted | unique | list, none, true) -%}
    {%- set by_uid = {} -%}
    {%- for e in collected.relations -%}
        {%- do by_uid.update({e.unique_id: e.relation}) -%}
        {%- for d in e.duplicates -%}{%- do by_uid.update({d: e.relation}) -%}{%- endfor -%}
    {%- endfor -%}
    {%- set resolved = [] -%}
    {%- for p in pairs -%}
        {%- for uid in [p.child, p.parent] -%}
            {%- if uid not in by_uid -%}
                {{ exceptions.raise_compiler_error('dbt_schema_link: ' ~ uid
                    ~ ' is not a model, seed, snapshot or source whose relation exists') }}
            {%- endif -%}
        {%- endfor -%}
        {%- do resolved.append({
            'child': p.child,
            'child_column': dbt_schema_link.schema_link__find_column(by_uid[p.child], p.child_column),
            'parent': p.parent,
            'parent_column': dbt_schema_link.schema_link__find_column(by_uid[p.parent], p.parent_column),
            'child_relation': by_uid[p.child],
            'parent_relation': by_uid[p.parent],
        }) -%}
    {%- endfor -%}

    {%- do dbt_schema_link.schema_link__envelope_begin({'pairs': pairs | length, 'batch_size': batch_size | int}) -%}
    {%- set results = dbt_schema_link.schema_link_run_containment(resolved, batch_size) -%}
    {%- for r in results -%}
        {%- do dbt_schema_link.schema_link__envelope_line('containment', r) -%}
    {%- endfor -%}
    {%- do dbt_schema_link.schema_link__envelope_line('end', {'relations': 0, 'containment': results | length, 'skipped': []}) -%}
{% endmacro %}
