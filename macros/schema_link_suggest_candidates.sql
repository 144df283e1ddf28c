{#- Name- and type-based join candidates among profiled relations, to be verified by exact
    containment. A child column named <x>_id / <x>_key points at a relation whose name, after
    stripping a layer prefix (stg_, dim_, fct_, raw_, ...) and a plural ending, is <x> and which
    has a (near-)unique column named <x>_id / <x>_key or id of a compatible type. Skipped: flag
    columns, columns already covered by a relationships test (declared), the entity's own key
    (child relation named <x>). entries: [{unique_id, resource_type, name, source_name, relation,
    profile}]. Returns [{child, child_column, parent, parent_column, child_relation,
    parent_relation}]. -#}
{% macro schema_link_suggest_candidates(entries, declared=none) %}
    {{ return(adapter.dispatch('schema_link_suggest_candidates', 'dbt_schema_link')(entries, declared)) }}
{% endmacro %}

{#- The discovery rules (schema_link__discovery_rules, generated from the Python package's
    DiscoverySettings) with a project's vars.schema_link settings over them, as
    `dbt-schema-link link` reads them, so the suggestions here apply the same thresholds. -#}
{% macro schema_link__rules() %}
    {%- set rules = dbt_schema_link.schema_link__discovery_rules() -%}
    {%- set configured = var('schema_link', {}) -%}
    {%- if configured is mapping -%}
        {%- for key in rules -%}
            {%- if configured.get(key) is not none -%}
                {%- do rules.update({key: configured[key]}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- do rules.update({'table_prefixes': rules.table_prefixes | map('lower') | list}) -%}
    {{ return(rules) }}
{% endmacro %}

{% macro schema_link__entity_name(name, prefixes) %}
    {%- set n = (name or '') | string | lower -%}
    {%- for prefix in prefixes -%}
        {%- if n.startswith(prefix) and (n | length) > (prefix | length) -%}
            {{ return(dbt_schema_link.schema_link__singular(n[prefix | length:])) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(dbt_schema_link.schema_link__singular(n)) }}
{% endmacro %}

{% macro schema_link__singular(n) %}
    {%- if n.endswith('ies') and (n | length) > 3 -%}
        {{ return(n[:-3] ~ 'y') }}
    {%- elif (n.endswith('ses') or n.endswith('xes') or n.endswith('ches') or n.endswith('shes')) and (n | length) > 3 -%}
        {{ return(n[:-2]) }}
    {%- elif n.endswith('s') and not (n.endswith('ss') or n.endswith('us') or n.endswith('is')) and (n | length) > 1 -%}
        {{ return(n[:-1]) }}
    {%- endif -%}
    {{ return(n) }}
{% endmacro %}

{% macro schema_link__type_family(data_type) %}
    {%- set t = (data_type or '') | string | lower -%}
    {%- if 'bool' in t -%}{{ return('boolean') }}
    {%- elif 'uuid' in t -%}{{ return('uuid') }}
    {%- elif 'timestamp' in t or 'date' in t or t.startswith('time') -%}{{ return('temporal') }}
    {%- elif 'int' in t or 'numeric' in t or 'decimal' in t or 'number' in t or 'float' in t
        or 'double' in t or 'real' in t -%}{{ return('number') }}
    {%- elif 'char' in t or 'text' in t or 'string' in t -%}{{ return('text') }}
    {%- endif -%}
    {{ return('other') }}
{% endmacro %}

{% macro default__schema_link_suggest_candidates(entries, declared=none) %}
    {%- set declared = declared or [] -%}
    {%- set rules = dbt_schema_link.schema_link__rules() -%}
    {%- set candidates = [] -%}
    {%- set entities = {} -%}
    {%- for e in entries -%}
        {%- do entities.update({e.unique_id: dbt_schema_link.schema_link__entity_name(e.name, rules.table_prefixes)}) -%}
    {%- endfor -%}
    {%- for child in entries -%}
        {%- set child_entity = entities[child.unique_id] -%}
        {%- for col in child.profile.columns -%}
            {%- set m = modules.re.match('^(.+)_(id|key)$', col.name | lower) -%}
            {#- a flag as discovery calls one: flag words only, at most flag_max_distinct of them,
                and not numbers under an identifier's name (`store_id` 1 in a one-row dimension) -#}
            {%- set is_flag = col.flag_words and (col.distinct or 0) <= rules.flag_max_distinct
                and dbt_schema_link.schema_link__type_family(col.data_type) != 'number' -%}
            {%- if m and col.skipped is none and not is_flag and (col.non_null or 0) > 0
                and (child.unique_id ~ '|' ~ (col.name | lower)) not in declared -%}
                {%- set x = m.group(1) -%}
                {%- set suffix = m.group(2) -%}
                {%- set entity = dbt_schema_link.schema_link__singular(x) -%}
                {%- set child_family = dbt_schema_link.schema_link__type_family(col.data_type) -%}
                {%- if entity != child_entity and child_family != 'boolean' -%}
                    {%- for parent in entries -%}
                        {%- if parent.unique_id != child.unique_id and entities[parent.unique_id] == entity -%}
                            {%- set wanted = [x ~ '_' ~ suffix, x ~ '_id', 'id'] -%}
                            {%- set found = {'col': none} -%}
                            {%- for want in wanted -%}
                                {%- for pcol in parent.profile.columns -%}
                                    {%- if found.col is none and (pcol.name | lower) == want -%}
                                        {%- do found.update({'col': pcol}) -%}
                                    {%- endif -%}
                                {%- endfor -%}
                            {%- endfor -%}
                            {%- set pcol = found.col -%}
                            {#- a parent key as discovery's: near-unique (approximate counts get
                                approx_slack) and hardly ever null -#}
                            {%- set slack = rules.approx_slack if (pcol is not none and pcol.distinct_approx) else 0 -%}
                            {%- set rows = parent.profile.row_count or 0 -%}
                            {%- if pcol is not none and pcol.skipped is none and (pcol.non_null or 0) > 0
                                and (pcol.distinct or 0) >= (rules.parent_min_uniqueness - slack) * pcol.non_null
                                and rows > 0 and 1 - pcol.non_null / rows <= rules.parent_max_null_fraction -%}
                                {%- set parent_family = dbt_schema_link.schema_link__type_family(pcol.data_type) -%}
                                {%- if parent_family == child_family or parent_family == 'text' or child_family == 'text' -%}
                                    {%- do candidates.append({
                                        'child': child.unique_id,
                                        'child_column': col.name,
                                        'parent': parent.unique_id,
                                        'parent_column': pcol.name,
                                        'child_relation': child.relation,
                                        'parent_relation': parent.relation,
                                    }) -%}
                                {%- endif -%}
                            {%- endif -%}
                        {%- endif -%}
                    {%- endfor -%}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(candidates) }}
{% endmacro %}
