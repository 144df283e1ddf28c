-- The bridge holds each (product, category) pair once.
select
    product_id,
    category_id,
    count(*) as n
from {{ ref('stg_product_categories') }}
group by product_id, category_id
having count(*) > 1
