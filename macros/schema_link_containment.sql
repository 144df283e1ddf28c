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

{#- The warehouse relation of one model, seed, snapshot or source, looked up by unique_id in the
    whole graph (the root project's nodes and every installed package's: a package's source may
    name a root-project seed through a var), or a compiler error saying which lookup failed. -#}
{% macro schema_link__relation_of(uid) %}
    {%- set node = graph.nodes.get(uid) or graph.sources.get(uid) -%}
    {%- if node is none or node.resource_type not in ['model', 'seed', 'snapshot', 'source'] -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: ' ~ uid
            ~ ' is not a model, seed, snapshot or source of this project or its packages: run `dbt parse`') }}
    {%- endif -%}
    {%- if node.resource_type == 'model' and node.config.materialized == 'ephemeral' -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: ' ~ uid ~ ' is an ephemeral model: it has no relation') }}
    {%- endif -%}
    {%- set identifier = (node.identifier if node.resource_type == 'source' else node.alias) or node.name -%}
    {%- set rel = adapter.get_relation(database=node.database, schema=node.schema, identifier=identifier) -%}
    {%- if rel is none -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: ' ~ uid ~ ' names ' ~ node.database ~ '.' ~ node.schema
            ~ '.' ~ identifier ~ ', which does not exist in the warehouse: run `dbt build`') }}
    {%- endif -%}
    {{ return(rel) }}
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
    {%- set by_uid = {} -%}
    {%- for uid in wanted | unique -%}
        {%- do by_uid.update({uid: dbt_schema_link.schema_link__relation_of(uid)}) -%}
    {%- endfor -%}
    {%- set resolved = [] -%}
    {%- for p in pairs -%}
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
