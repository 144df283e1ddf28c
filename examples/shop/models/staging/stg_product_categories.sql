select
    product_id,
    category_id
from {{ ref('raw_product_categories') }}
