{#- Render accepted links as copy-pasteable dbt YAML: `models:` / `seeds:` / `snapshots:` /
    `sources:` blocks with a relationships data test per child column. Generic-test inputs go
    under `arguments:` on dbt >= 1.10.5 (required from 1.10.8; it breaks older versions).
    links: [{child_entry, child_column, parent_entry, parent_column, child_distinct, matched}]
    where the entries carry resource_type, name, source_name. -#}
{% macro schema_link_relationships_yaml(links) %}
    {{ return(adapter.dispatch('schema_link_relationships_yaml', 'dbt_schema_link')(links)) }}
{% endmacro %}

{% macro schema_link__yaml_name(name) %}
    {%- if modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', name) -%}
        {{ return(name) }}
    {%- endif -%}
    {{ return(tojson(name)) }}
{% endmacro %}

{#- A name that needs no quoting in SQL: plain lower-case (upper-case on Snowflake) and not a
    reserved word that commonly names columns. -#}
{% macro schema_link__plain_identifier(name) %}
    {%- set reserved = ['select', 'from', 'where', 'group', 'order', 'by', 'limit', 'table', 'user', 'date',
                        'time', 'timestamp', 'desc', 'asc', 'join', 'on', 'as', 'and', 'or', 'not', 'null',
                        'in', 'is', 'case', 'when', 'then', 'else', 'end', 'union', 'all', 'key', 'primary',
                        'references', 'check', 'default', 'column', 'to', 'with', 'having', 'offset'] -%}
    {%- if (name | lower) in reserved -%}
        {{ return(false) }}
    {%- endif -%}
    {{ return(modules.re.match('^[a-z_][a-z0-9_]*$', name) is not none
        or (target.type == 'snowflake' and modules.re.match('^[A-Z_][A-Z0-9_]*$', name) is not none)) }}
{% endmacro %}

{% macro schema_link__uses_test_arguments() %}
    {%- set m = modules.re.match('^(\\d+)\\.(\\d+)\\.(\\d+)', dbt_version | string) -%}
    {%- if not m -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set v = [m.group(1) | int, m.group(2) | int, m.group(3) | int] -%}
    {{ return(v[0] > 1 or (v[0] == 1 and (v[1] > 10 or (v[1] == 10 and v[2] >= 5)))) }}
{% endmacro %}

{% macro default__schema_link_relationships_yaml(links) %}
    {%- set use_arguments = dbt_schema_link.schema_link__uses_test_arguments() -%}
    {%- set blocks = {'model': [], 'seed': [], 'snapshot': [], 'source': []} -%}
    {#- group: resource type -> child (unique_id) -> columns -#}
    {%- set children = {} -%}
    {%- set child_order = [] -%}
    {%- for link in links -%}
        {%- set uid = link.child_entry.unique_id -%}
        {%- if uid not in children -%}
            {%- do children.update({uid: {'entry': link.child_entry, 'links': []}}) -%}
            {%- do child_order.append(uid) -%}
        {%- endif -%}
        {%- do children[uid].links.append(link) -%}
    {%- endfor -%}

    {%- set lines = [] -%}
    {%- for rtype, key in [('model', 'models'), ('seed', 'seeds'), ('snapshot', 'snapshots')] -%}
        {%- set mine = [] -%}
        {%- for uid in child_order -%}
            {%- if children[uid].entry.resource_type == rtype -%}{%- do mine.append(uid) -%}{%- endif -%}
        {%- endfor -%}
        {%- if mine -%}
            {%- do lines.append(key ~ ':') -%}
            {%- for uid in mine -%}
                {%- do lines.append('  - name: ' ~ dbt_schema_link.schema_link__yaml_name(children[uid].entry.name)) -%}
                {%- do lines.append('    columns:') -%}
                {%- for link in children[uid].links -%}
                    {%- do lines.extend(dbt_schema_link.schema_link__column_yaml(link, '      ', use_arguments)) -%}
                {%- endfor -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}

    {#- sources: source_name -> tables -#}
    {%- set source_names = [] -%}
    {%- for uid in child_order -%}
        {%- set e = children[uid].entry -%}
        {%- if e.resource_type == 'source' and e.source_name not in source_names -%}
            {%- do source_names.append(e.source_name) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if source_names -%}
        {%- do lines.append('sources:') -%}
        {%- for sname in source_names -%}
            {%- do lines.append('  - name: ' ~ dbt_schema_link.schema_link__yaml_name(sname)) -%}
            {%- do lines.append('    tables:') -%}
            {%- for uid in child_order -%}
                {%- set e = children[uid].entry -%}
                {%- if e.resource_type == 'source' and e.source_name == sname -%}
                    {%- do lines.append('      - name: ' ~ dbt_schema_link.schema_link__yaml_name(e.name)) -%}
                    {%- do lines.append('        columns:') -%}
                    {%- for link in children[uid].links -%}
                        {%- do lines.extend(dbt_schema_link.schema_link__column_yaml(link, '          ', use_arguments)) -%}
                    {%- endfor -%}
                {%- endif -%}
            {%- endfor -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(lines | join('\n')) }}
{% endmacro %}

{% macro schema_link__column_yaml(link, indent, use_arguments) %}
    {%- set p = link.parent_entry -%}
    {%- if p.resource_type == 'source' -%}
        {%- set to = "source('" ~ p.source_name ~ "', '" ~ p.name ~ "')" -%}
    {%- else -%}
        {%- set to = "ref('" ~ p.name ~ "')" -%}
    {%- endif -%}
    {%- set field = link.parent_column if dbt_schema_link.schema_link__plain_identifier(link.parent_column)
        else dbt_schema_link.schema_link_quote(link.parent_column) -%}
    {%- set out = [indent ~ '- name: ' ~ dbt_schema_link.schema_link__yaml_name(link.child_column)] -%}
    {%- if not dbt_schema_link.schema_link__plain_identifier(link.child_column) -%}
        {%- do out.append(indent ~ '  quote: true') -%}
    {%- endif -%}
    {%- do out.append(indent ~ '  data_tests:') -%}
    {%- do out.append(indent ~ '    # containment ' ~ link.matched ~ '/' ~ link.child_distinct ~ ' distinct values') -%}
    {%- do out.append(indent ~ '    - relationships:') -%}
    {%- set inner = indent ~ ('          ' if use_arguments else '        ') -%}
    {%- if use_arguments -%}
        {%- do out.append(indent ~ '        arguments:') -%}
    {%- endif -%}
    {%- do out.append(inner ~ 'to: ' ~ to) -%}
    {%- do out.append(inner ~ 'field: ' ~ dbt_schema_link.schema_link__yaml_name(field)) -%}
    {{ return(out) }}
{% endmacro %}
