{#- on-run-start: a table loaded "outside dbt" that only a source declares (idempotent). -#}
{% macro create_landing_schema() %}
    create schema if not exists {{ adapter.quote(target.schema ~ '_landing') }}
{% endmacro %}

{% macro create_landing_table() %}
    create table if not exists {{ adapter.quote(target.schema ~ '_landing') }}.{{ adapter.quote('payments') }} as
    select payment_id, order_id, amount
    from (
        values
        {%- for i in range(1, 31) %}
            ({{ i }}, {{ 100 + ((i * 3) % 40) + 1 }}, {{ (i * 13) % 90 + 5 }}.25){{ ',' if not loop.last }}
        {%- endfor %}
    ) as v (payment_id, order_id, amount)
{% endmacro %}
