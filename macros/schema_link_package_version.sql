{#- The package version written into every envelope `begin` line.
    Keep in step with dbt_project.yml and dbt_schema_link/__init__.py. -#}
{% macro schema_link_package_version() %}
    {{ return(adapter.dispatch('schema_link_package_version', 'dbt_schema_link')()) }}
{% endmacro %}

{% macro default__schema_link_package_version() %}
    {{ return('0.1.0') }}
{% endmacro %}
