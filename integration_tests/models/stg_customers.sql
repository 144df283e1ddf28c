select
    customer_id,
    name,
    status,
    is_vip,
    notes
from {{ ref('raw_customers') }}
