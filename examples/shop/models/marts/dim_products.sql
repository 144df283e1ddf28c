with products as (
    select * from {{ ref('stg_products') }}
),

categories as (
    select
        bridge.product_id,
        count(*) as category_count,
        {%- if target.type in ['spark', 'databricks'] %}
        array_join(array_sort(collect_list(categories.category_name)), ', ') as category_names
        {%- else %}
        string_agg(categories.category_name, ', ' order by categories.category_name) as category_names
        {%- endif %}
    from {{ ref('stg_product_categories') }} as bridge
    inner join {{ ref('stg_categories') }} as categories
        on categories.category_id = bridge.category_id
    group by bridge.product_id
),

sales as (
    select
        items.product_id,
        sum(items.quantity) as units_sold,
        sum(items.line_amount) as gross_revenue
    from {{ ref('stg_order_items') }} as items
    inner join {{ ref('stg_orders') }} as orders
        on orders.order_id = items.order_id
    where orders.status <> 'cancelled'
    group by items.product_id
),

reviews as (
    select
        product_id,
        count(*) as review_count,
        cast(avg(rating) as numeric(3, 2)) as avg_rating
    from {{ ref('stg_reviews') }}
    group by product_id
)

select
    products.product_id,
    products.product_name,
    products.sku,
    products.unit_price,
    products.is_discontinued,
    coalesce(categories.category_count, 0) as category_count,
    categories.category_names,
    coalesce(sales.units_sold, 0) as units_sold,
    coalesce(sales.gross_revenue, 0) as gross_revenue,
    coalesce(reviews.review_count, 0) as review_count,
    reviews.avg_rating
from products
left join categories
    on categories.product_id = products.product_id
left join sales
    on sales.product_id = products.product_id
left join reviews
    on reviews.product_id = products.product_id
