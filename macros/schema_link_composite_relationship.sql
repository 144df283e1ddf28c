{#- A composite relationships test: every child tuple with no NULL part is a parent tuple.
    `dbt-schema-link write` attaches it to the key's first child column:

        columns:
          - name: floor
            data_tests:
              - dbt_schema_link.schema_link_composite_relationship:
                  arguments: {columns: [floor, code], to: "ref('bin')", fields: [floor, code]}

    columns: the child's key columns (default: the column it is attached to); fields: the
    parent's, in the same order. Rows returned are the orphan child rows (what `warn_if`/`error_if`
    count). Dispatched: an adapter may override default__test_schema_link_composite_relationship. -#}
{% test schema_link_composite_relationship(model, column_name=none, to=none, fields=none, columns=none) %}
    {{ return(adapter.dispatch('test_schema_link_composite_relationship', 'dbt_schema_link')(model, column_name, to, fields, columns)) }}
{% endtest %}

{% macro default__test_schema_link_composite_relationship(model, column_name, to, fields, columns) %}
    {%- set child_columns = columns if columns else [column_name] -%}
    {%- if to is none or not fields or fields is string or child_columns is string
          or (fields | length) != (child_columns | length) -%}
        {{ exceptions.raise_compiler_error('dbt_schema_link: schema_link_composite_relationship on ' ~ model
            ~ ' needs `to`, and `columns` and `fields` as lists of one length') }}
    {%- endif -%}
select {% for c in child_columns %}child.{{ c }}{% if not loop.last %}, {% endif %}{% endfor %}
from {{ model }} as child
where {% for c in child_columns %}child.{{ c }} is not null and {% endfor %}not exists (
    select 1 from {{ to }} as parent
    where {% for c in child_columns %}parent.{{ fields[loop.index0] }} = child.{{ c }}{% if not loop.last %} and {% endif %}{% endfor %}
)
{% endmacro %}
