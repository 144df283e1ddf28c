-- opened_by is renamed to customer_id here: the mart names what staging leaves implicit.
select
    ticket_id,
    opened_by as customer_id,
    order_id,
    channel,
    priority,
    status,
    opened_at,
    closed_at,
    {{ dbt.datediff('opened_at', 'closed_at', 'hour') }} as hours_to_close
from {{ ref('stg_support_tickets') }}
