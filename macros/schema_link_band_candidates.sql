{#- dbt run-operation schema_link_band_candidates --args '{parent_bands: <csv>, child_bands: <csv>,
    queries: <csv>, output: <path>, max_bucket: 256, cap: 8}'

    Value candidates looked up in the engine: joins MinHash band keys stored as relations (here
    CSV files `dbt-schema-link link` writes when a project has `engine_lookup_min_columns`
    columns) and writes the candidate pairs, with their band hits, to `output` as CSV
    (`child_id, part, parent_id, band_hits`, no header). The inputs, without headers:

      parent_bands  parent_id, part, r, band, band_key, width_rank   every indexed parent's band keys
      child_bands   child_id, r, band, band_key                      each child's band keys
      queries       child_id, part, r, b, need_rank                  per child and partition: read bands < b of width r

    A bucket (part, r, band, band_key) shared by more than `max_bucket` parents is not read (0: all).
    With `cap` > 0 a child's partitions are read smallest first until `cap` usable parents
    (width_rank >= need_rank) are in hand, as the Python lookups stop (0: every partition).
    Reads and writes local files only, never a warehouse relation: DuckDB and Spark (a local
    session) read them; other adapters raise an error saying so. -#}
{% macro schema_link_band_candidates(parent_bands, child_bands, queries, output, max_bucket=0, cap=0) %}
    {{ return(adapter.dispatch('schema_link_band_candidates', 'dbt_schema_link')(
        parent_bands, child_bands, queries, output, max_bucket, cap)) }}
{% endmacro %}

{#- The join itself, over three relation expressions with the columns above. The children's reads
    are grouped before the parents' buckets are joined: joined the other way round (queries with
    parents on partition and width first) the rows multiply past any memory. -#}
{% macro schema_link__band_candidates_sql(parents, children, queries, max_bucket, cap) %}
    {%- for name, value in [('max_bucket', max_bucket), ('cap', cap)] -%}
        {%- if value is not number or value < 0 -%}
            {{ exceptions.raise_compiler_error('dbt_schema_link: ' ~ name ~ ' must be a whole number >= 0, got ' ~ value) }}
        {%- endif -%}
    {%- endfor -%}
with parent_bands as (
    select parent_id, part, r, band, band_key, width_rank,
           count(*) over (partition by part, r, band, band_key) as bucket_size
    from {{ parents }}
),
reads as (
    select c.child_id, q.part, c.r, c.band, c.band_key, q.need_rank
    from {{ children }} as c
    join {{ queries }} as q on q.child_id = c.child_id and q.r = c.r
    where c.band < q.b
    group by c.child_id, q.part, c.r, c.band, c.band_key, q.need_rank
),
hits as (
    select c.child_id, p.part, p.parent_id, count(*) as band_hits,
           max(case when p.width_rank >= c.need_rank then 1 else 0 end) as usable
    from reads as c
    join parent_bands as p
      on p.part = c.part and p.r = c.r and p.band = c.band and p.band_key = c.band_key
    {%- if max_bucket > 0 %}
    where p.bucket_size <= {{ max_bucket }}
    {%- endif %}
    group by c.child_id, p.part, p.parent_id
)
{%- if cap > 0 %},
partitions as (
    select child_id, part,
           coalesce(sum(sum(usable)) over (partition by child_id order by part
                                           rows between unbounded preceding and 1 preceding), 0) as usable_before
    from hits
    group by child_id, part
)
select h.child_id, h.part, h.parent_id, h.band_hits
from hits as h
join partitions as k on k.child_id = h.child_id and k.part = h.part
where k.usable_before < {{ cap }}
{%- else %}
select child_id, part, parent_id, band_hits
from hits
{%- endif %}
{%- endmacro %}

{#- A local CSV file (no header) as a relation expression of BIGINT columns, per engine. -#}
{% macro schema_link__csv_relation(path, columns) %}
    {{ return(adapter.dispatch('schema_link__csv_relation', 'dbt_schema_link')(path, columns)) }}
{% endmacro %}

{% macro default__schema_link__csv_relation(path, columns) %}
    {{ exceptions.raise_compiler_error('dbt_schema_link: ' ~ adapter.type() ~ ' cannot read local CSV files') }}
{% endmacro %}

{% macro duckdb__schema_link__csv_relation(path, columns) %}
    {%- set typed = [] -%}
    {%- for c in columns -%}{%- do typed.append("'" ~ c ~ "': 'BIGINT'") -%}{%- endfor -%}
    {{ return("read_csv('" ~ (path | replace("'", "''")) ~ "', header = false, delim = ',', columns = {"
        ~ typed | join(', ') ~ "})") }}
{% endmacro %}

{% macro spark__schema_link__csv_relation(path, columns) %}
    {%- set typed = [] -%}
    {%- for c in columns -%}{%- do typed.append('cast(_c' ~ loop.index0 ~ ' as bigint) as ' ~ c) -%}{%- endfor -%}
    {{ return('(select ' ~ typed | join(', ') ~ ' from csv.`' ~ (path | replace('`', '``')) ~ '`)') }}
{% endmacro %}

{#- The three files as relations; their columns, in file order, come from Python
    (schema_link__band_columns, generated from discovery/bands.py). -#}
{% macro schema_link__band_inputs(parent_bands, child_bands, queries) %}
    {%- set columns = dbt_schema_link.schema_link__band_columns() -%}
    {{ return([
        dbt_schema_link.schema_link__csv_relation(parent_bands, columns['parent_bands']),
        dbt_schema_link.schema_link__csv_relation(child_bands, columns['child_bands']),
        dbt_schema_link.schema_link__csv_relation(queries, columns['queries'])]) }}
{% endmacro %}

{% macro default__schema_link_band_candidates(parent_bands, child_bands, queries, output, max_bucket=0, cap=0) %}
    {{ exceptions.raise_compiler_error('dbt_schema_link: schema_link_band_candidates reads local files, which '
        ~ adapter.type() ~ ' cannot: it runs on duckdb and spark only. Set engine_lookup_min_columns to 0 '
        ~ '(value lookups in Python)') }}
{% endmacro %}

{% macro duckdb__schema_link_band_candidates(parent_bands, child_bands, queries, output, max_bucket=0, cap=0) %}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set inputs = dbt_schema_link.schema_link__band_inputs(parent_bands, child_bands, queries) -%}
    {%- set sql -%}
copy ({{ dbt_schema_link.schema_link__band_candidates_sql(inputs[0], inputs[1], inputs[2], max_bucket, cap) }})
to '{{ output | replace("'", "''") }}' (format csv, header false)
    {%- endset -%}
    {%- do run_query(sql) -%}
{% endmacro %}

{#- Spark writes a directory of part files at `output`. -#}
{% macro spark__schema_link_band_candidates(parent_bands, child_bands, queries, output, max_bucket=0, cap=0) %}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set inputs = dbt_schema_link.schema_link__band_inputs(parent_bands, child_bands, queries) -%}
    {%- set sql -%}
insert overwrite directory '{{ output | replace("'", "\\'") }}' using csv
{{ dbt_schema_link.schema_link__band_candidates_sql(inputs[0], inputs[1], inputs[2], max_bucket, cap) }}
    {%- endset -%}
    {%- do run_query(sql) -%}
{% endmacro %}

{#- dbt-databricks dispatches to spark__ next, but a Databricks cluster cannot read the client's files. -#}
{% macro databricks__schema_link_band_candidates(parent_bands, child_bands, queries, output, max_bucket=0, cap=0) %}
    {{ return(dbt_schema_link.default__schema_link_band_candidates(parent_bands, child_bands, queries, output, max_bucket, cap)) }}
{% endmacro %}
