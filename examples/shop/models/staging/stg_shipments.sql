-- order_ref stays text on purpose: the warehouse system stores order numbers as strings.
select
    shipment_id,
    order_ref,
    carrier,
    tracking_number,
    shipped_at,
    delivered_at
from {{ ref('raw_shipments') }}
