{{ config(materialized='view') }}

select
    status,
    count(*) as customers
from {{ ref('stg_customers') }}
group by status
