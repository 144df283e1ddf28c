{#- dbt-spark's session method fills seed rows by formatting values into the SQL text unescaped:
    an apostrophe breaks the statement and an empty cell loads as the text 'None'. This project
    override (the root project wins dbt's dispatch) writes each cell as a proper Spark literal
    instead (literals need no bindings, so this holds for every connection method). -#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set types = [] -%}
    {%- for col_name in agate_table.column_names -%}
        {%- do types.append(column_override.get(col_name, adapter.convert_type(agate_table, loop.index0))) -%}
    {%- endfor -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for value in row -%}
                    {%- if value is none -%}
                        {%- set literal = 'null' -%}
                    {%- elif value is sameas true or value is sameas false -%}
                        {%- set literal = (value | string | lower) -%}
                    {%- elif value is number -%}
                        {%- set literal = value | string -%}
                    {%- else -%}
                        {%- set literal = "'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'" -%}
                    {%- endif -%}
                    cast({{ literal }} as {{ types[loop.index0] }}){{ ',' if not loop.last }}
                {%- endfor -%}){{ ',' if not loop.last }}
            {%- endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.first -%}{%- do statements.append(sql) -%}{%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}
