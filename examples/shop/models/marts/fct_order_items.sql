select
    items.order_item_id,
    items.order_id,
    items.product_id,
    orders.customer_id,
    orders.store_id,
    orders.ordered_at,
    items.quantity,
    items.unit_price,
    items.line_amount
from {{ ref('stg_order_items') }} as items
inner join {{ ref('stg_orders') }} as orders
    on orders.order_id = items.order_id
