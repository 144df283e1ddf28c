with customers as (
    select * from {{ ref('stg_customers') }}
),

countries as (
    select * from {{ ref('stg_countries') }}
),

orders as (
    select * from {{ ref('stg_orders') }}
    where status <> 'cancelled'
),

order_stats as (
    select
        customer_id,
        count(*) as order_count,
        min(ordered_at) as first_ordered_at,
        max(ordered_at) as last_ordered_at
    from orders
    group by customer_id
),

revenue as (
    select
        orders.customer_id,
        sum(items.line_amount) as lifetime_gross_amount
    from orders
    inner join {{ ref('stg_order_items') }} as items
        on items.order_id = orders.order_id
    group by orders.customer_id
)

select
    customers.customer_id,
    customers.first_name,
    customers.last_name,
    customers.email,
    customers.country_code,
    countries.country_name,
    customers.signup_date,
    customers.is_active,
    customers.loyalty_tier,
    coalesce(order_stats.order_count, 0) as order_count,
    order_stats.first_ordered_at,
    order_stats.last_ordered_at,
    coalesce(revenue.lifetime_gross_amount, 0) as lifetime_gross_amount
from customers
left join countries
    on countries.country_code = customers.country_code
left join order_stats
    on order_stats.customer_id = customers.customer_id
left join revenue
    on revenue.customer_id = customers.customer_id
