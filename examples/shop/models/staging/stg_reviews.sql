select
    review_id,
    product_id,
    customer_id,
    rating,
    review_text,
    created_at as reviewed_at
from {{ ref('raw_reviews') }}
