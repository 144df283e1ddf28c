select
    id as customer_id,
    first_name,
    last_name,
    email,
    postal_code,
    country_code,
    signup_date,
    is_active,
    loyalty_tier
from {{ ref('raw_customers') }}
