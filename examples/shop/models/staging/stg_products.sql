select
    id as product_id,
    product_name,
    sku,
    unit_price,
    is_discontinued,
    created_on
from {{ ref('raw_products') }}
