select
    employee_id,
    first_name,
    last_name,
    first_name || ' ' || last_name as full_name,
    department,
    job_title,
    manager_id,
    store_id,
    hired_on
from {{ ref('raw_employees') }}
