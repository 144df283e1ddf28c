-- no rows at all
select
    cast(null as integer) as id,
    cast(null as {{ dbt.type_string() }}) as label
where 1 = 0
