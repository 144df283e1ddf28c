-- wide enough to be profiled in chunks with a small max_columns_per_query
select
    i as id
    {%- for c in range(1, 20) %},
    (i * {{ c }}) % {{ c + 3 }} as c{{ '%02d' | format(c) }}
    {%- endfor %}
from generate_series(1, 50) as g (i)
