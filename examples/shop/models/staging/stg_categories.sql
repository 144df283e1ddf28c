select
    category_id,
    category_name,
    parent_category_id,
    depth as category_level
from {{ ref('raw_categories') }}
