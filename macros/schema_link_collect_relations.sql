{#- The physical relations to profile: the root project's models (not ephemeral), seeds and
    snapshots from graph.nodes, then its sources from graph.sources, filtered by select/exclude
    (unique_ids, node names, or source_name.table_name), checked to exist in the warehouse and
    deduplicated by physical relation (the first node wins; the others are listed in its
    `duplicates`). Returns {relations: [{unique_id, resource_type, name, source_name, relation,
    duplicates}], skipped: [{unique_id, reason}]}. all_packages: also take installed packages'
    nodes: true for all of them (used to resolve the unique_ids given to
    schema_link_containment, whatever package declares them), or a list of package names
    (`all` in it: every package). -#}
{% macro schema_link_collect_relations(select=none, exclude=none, all_packages=false) %}
    {{ return(adapter.dispatch('schema_link_collect_relations', 'dbt_schema_link')(select, exclude, all_packages)) }}
{% endmacro %}

{% macro schema_link__matches(entry, patterns) %}
    {#- patterns: a list, or a lookup dict from dbt_schema_link.schema_link__pattern_lookup (constant time per
        entry: a selection of thousands of ids against thousands of nodes stays linear) -#}
    {%- set lookup = patterns if patterns is mapping else dbt_schema_link.schema_link__pattern_lookup(patterns) -%}
    {{ return(entry.unique_id in lookup or entry.name in lookup
        or (entry.source_name is not none and (entry.source_name ~ '.' ~ entry.name) in lookup)) }}
{% endmacro %}

{% macro schema_link__pattern_lookup(patterns) %}
    {%- set lookup = {} -%}
    {%- for p in patterns or [] -%}{%- do lookup.update({p: true}) -%}{%- endfor -%}
    {{ return(lookup) }}
{% endmacro %}

{% macro schema_link__package_wanted(package, all_packages) %}
    {{ return(package == project_name or all_packages is sameas true
        or (all_packages is iterable and all_packages is not string and all_packages is not mapping
            and (package in all_packages or 'all' in all_packages))) }}
{% endmacro %}

{% macro default__schema_link_collect_relations(select=none, exclude=none, all_packages=false) %}
    {%- set rank = {'model': 0, 'seed': 1, 'snapshot': 2} -%}
    {%- set candidates = [] -%}
    {%- if execute -%}
        {%- set ordered = [] -%}
        {%- for node in graph.nodes.values() -%}
            {%- if node.resource_type in rank
                and dbt_schema_link.schema_link__package_wanted(node.package_name, all_packages)
                and not (node.resource_type == 'model' and node.config.materialized == 'ephemeral') -%}
                {%- do ordered.append({
                    'sort_key': rank[node.resource_type] ~ ' ' ~ node.unique_id,
                    'unique_id': node.unique_id,
                    'resource_type': node.resource_type,
                    'name': node.name,
                    'source_name': none,
                    'database': node.database,
                    'schema': node.schema,
                    'identifier': node.alias or node.name,
                }) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- for source in graph.sources.values() -%}
            {%- if dbt_schema_link.schema_link__package_wanted(source.package_name, all_packages) -%}
                {%- do ordered.append({
                    'sort_key': '9 ' ~ source.unique_id,
                    'unique_id': source.unique_id,
                    'resource_type': 'source',
                    'name': source.name,
                    'source_name': source.source_name,
                    'database': source.database,
                    'schema': source.schema,
                    'identifier': source.identifier or source.name,
                }) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- set candidates = ordered | sort(attribute='sort_key') -%}
    {%- endif -%}

    {%- set relations = [] -%}
    {%- set skipped = [] -%}
    {%- set by_key = {} -%}
    {%- set selected = none if select is none else dbt_schema_link.schema_link__pattern_lookup(select) -%}
    {%- set excluded = none if exclude is none else dbt_schema_link.schema_link__pattern_lookup(exclude) -%}
    {%- for c in candidates -%}
        {%- if (selected is none or dbt_schema_link.schema_link__matches(c, selected))
            and not (excluded is not none and dbt_schema_link.schema_link__matches(c, excluded)) -%}
            {%- set rel = adapter.get_relation(database=c.database, schema=c.schema, identifier=c.identifier) -%}
            {%- if rel is none -%}
                {%- do skipped.append({'unique_id': c.unique_id, 'reason': 'relation does not exist'}) -%}
            {%- else -%}
                {%- set key = rel.render() | string -%}
                {%- if key in by_key -%}
                    {%- do by_key[key].duplicates.append(c.unique_id) -%}
                {%- else -%}
                    {%- set entry = {
                        'unique_id': c.unique_id,
                        'resource_type': c.resource_type,
                        'name': c.name,
                        'source_name': c.source_name,
                        'relation': rel,
                        'duplicates': [],
                    } -%}
                    {%- do by_key.update({key: entry}) -%}
                    {%- do relations.append(entry) -%}
                {%- endif -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return({'relations': relations, 'skipped': skipped}) }}
{% endmacro %}
