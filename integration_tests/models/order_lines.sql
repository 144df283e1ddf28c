-- a relation whose name has a space and capitals; a column with both as well
{{ config(alias='Order Lines') }}

select
    o.order_id * 10 + n.line_no as line_id,
    o.order_id,
    'Product ' || cast((o.order_id + n.line_no) % 7 as {{ dbt.type_string() }}) as "Product Name",
    n.line_no as quantity
from {{ ref('stg_orders') }} as o
cross join (select 1 as line_no union all select 2 as line_no) as n
where o.order_id <= 130
