with orders as (
    select * from {{ ref('stg_orders') }}
),

items as (
    select
        order_id,
        count(*) as item_count,
        sum(quantity) as unit_count,
        sum(line_amount) as gross_amount
    from {{ ref('stg_order_items') }}
    group by order_id
),

shipments as (
    -- the warehouse keeps the order number as text
    select
        cast(order_ref as integer) as order_id,
        count(*) as shipment_count,
        min(shipped_at) as first_shipped_at,
        max(delivered_at) as delivered_at
    from {{ ref('stg_shipments') }}
    group by cast(order_ref as integer)
),

promotions as (
    select * from {{ ref('stg_promotions') }}
)

select
    orders.order_id,
    orders.customer_id,
    orders.store_id,
    orders.assigned_to,
    orders.promo_id,
    orders.ordered_at,
    orders.status,
    coalesce(items.item_count, 0) as item_count,
    coalesce(items.unit_count, 0) as unit_count,
    coalesce(items.gross_amount, 0) as gross_amount,
    round(coalesce(items.gross_amount, 0) * coalesce(promotions.discount_pct, 0) / 100.0, 2) as discount_amount,
    coalesce(items.gross_amount, 0)
        - round(coalesce(items.gross_amount, 0) * coalesce(promotions.discount_pct, 0) / 100.0, 2) as net_amount,
    coalesce(shipments.shipment_count, 0) as shipment_count,
    shipments.first_shipped_at,
    shipments.delivered_at
from orders
left join items
    on items.order_id = orders.order_id
left join shipments
    on shipments.order_id = orders.order_id
left join promotions
    on promotions.promo_id = orders.promo_id
