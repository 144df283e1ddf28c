select
    country_code,
    country_name,
    continent,
    currency_code
from {{ ref('raw_countries') }}
