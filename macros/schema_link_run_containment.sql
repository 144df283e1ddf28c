{#- Run the exact containment for pairs in batches of at most batch_size pairs per statement and
    return the results (nothing is printed): a list of {child, child_column, parent,
    parent_column, child_distinct, matched, orphan_rows}. pairs: list of {child, child_column, parent,
    parent_column, child_relation, parent_relation} (unique_ids, column names, Relation objects). -#}
{% macro schema_link_run_containment(pairs, batch_size=20) %}
    {{ return(adapter.dispatch('schema_link_run_containment', 'dbt_schema_link')(pairs, batch_size)) }}
{% endmacro %}

{% macro default__schema_link_run_containment(pairs, batch_size=20) %}
    {%- set size = [batch_size | int, 1] | max -%}
    {%- set results = [] -%}
    {%- for start in range(0, pairs | length, size) -%}
        {%- set batch = pairs[start:start + size] -%}
        {%- set res = run_query(dbt_schema_link.schema_link_containment_sql(batch)) -%}
        {%- set by_idx = {} -%}
        {%- for row in res.rows -%}
            {%- do by_idx.update({row[0] | int: [row[1] | int, row[2] | int, row[3] | int]}) -%}
        {%- endfor -%}
        {%- for pair in batch -%}
            {%- set counts = by_idx.get(loop.index0, [0, 0, 0]) -%}
            {%- do results.append({
                'child': pair.child,
                'child_column': pair.child_column,
                'parent': pair.parent,
                'parent_column': pair.parent_column,
                'child_distinct': counts[0],
                'matched': counts[1],
                'orphan_rows': counts[2],
            }) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(results) }}
{% endmacro %}
