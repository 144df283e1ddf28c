select
    order_id,
    customer_id,
    amount,
    order_status,
    shipped
from {{ ref('raw_orders') }}
