-- Written by dbt-schema-link (--create-time-spine): the daily time spine MetricFlow needs for
-- semantic models. Widen the date range to cover your data.
select cast(date_day as date) as date_day
from (
    {{ dbt.date_spine('day', "cast('2000-01-01' as date)", "cast('2035-01-01' as date)") }}
) as spine
