-- more rows than the integration tests' sample_rows: profiled from a sample
select
    i as id,
    i % 7 as bucket,
    'item ' || cast(i % 100 as {{ dbt.type_string() }}) as label
from generate_series(1, 5000) as g (i)
