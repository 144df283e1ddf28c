select
    id as order_id,
    customer_id,
    store_id,
    assigned_to,
    promo_id,
    ordered_at,
    status
from {{ ref('raw_orders') }}
