select
    promo_id,
    promo_code,
    promo_name,
    discount_pct,
    starts_on,
    ends_on
from {{ ref('raw_promotions') }}
