-- columns that cannot be hashed sensibly: JSON, a list/array and binary
select
    customer_id as id,
    cast('{"a": 1}' as json) as payload,
    array[customer_id, customer_id + 1] as tags,
{%- if target.type == 'duckdb' %}
    cast('abc' as blob) as raw_bytes
{%- else %}
    cast('abc' as bytea) as raw_bytes
{%- endif %}
from {{ ref('raw_customers') }}
