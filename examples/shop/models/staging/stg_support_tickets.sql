-- opened_by is the customer id of the account that opened the ticket.
select
    ticket_id,
    opened_by,
    order_id,
    subject,
    channel,
    priority,
    status,
    opened_at,
    closed_at
from {{ ref('raw_support_tickets') }}
