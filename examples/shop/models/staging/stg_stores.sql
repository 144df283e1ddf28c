select
    store_id,
    store_name,
    city,
    country_code,
    store_type,
    region_code,
    opened_on
from {{ ref('raw_stores') }}
