-- identifiers that need quoting: spaces, double quotes, mixed case, reserved words, unicode
select
    customer_id as "first id",
    name as "say ""hi""",
    status as "MixedCase",
    cast(is_vip as {{ dbt.type_string() }}) as "select",
    customer_id * 2 as "order",
    customer_id as "café_id",
    name as "名前"
from {{ ref('raw_customers') }}
