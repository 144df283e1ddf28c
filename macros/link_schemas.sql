{#- dbt run-operation link_schemas --args '{...}'
    Profile every model, seed, snapshot and source of the root project (and of the installed
    packages named in `packages`, or all of them with `packages: [all]`) inside the warehouse and
    print the results as the `dbt_schema_link/profiles` envelope (docs/envelope.md) through
    log(info=True), one `relation` line per physical relation. With suggest, also verify
    name/type-based join candidates by exact containment (`containment` lines) and print the
    accepted ones as relationships YAML. Read-only: only SELECTs and catalog queries.
    This is the only macro that prints the envelope of a link_schemas run. -#}
{% macro link_schemas(
    select=none, exclude=none, k=none, sample_rows=none, sample_percent=none, sample_seed=none,
    top_n=none, top_max_distinct=none, max_columns_per_query=none, envelope=none, suggest=none,
    min_containment=none, packages=none
) %}
    {{ return(adapter.dispatch('link_schemas', 'dbt_schema_link')(
        select, exclude, k, sample_rows, sample_percent, sample_seed, top_n, top_max_distinct,
        max_columns_per_query, envelope, suggest, min_containment, packages)) }}
{% endmacro %}

{% macro schema_link__declared_relationships() %}
    {#- "<attached unique_id>|<lower column>" for every relationships test in the project -#}
    {%- set declared = [] -%}
    {%- for node in graph.nodes.values() -%}
        {%- if node.resource_type == 'test' and node.test_metadata and node.test_metadata.name == 'relationships' -%}
            {%- set column = node.column_name or node.test_metadata.kwargs.get('column_name') -%}
            {%- set attached = node.attached_node or ((node.depends_on.nodes or [none])[0]) -%}
            {%- if column and attached -%}
                {%- do declared.append(attached ~ '|' ~ (column | lower)) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(declared) }}
{% endmacro %}

{% macro schema_link__layer(name, prefixes) %}
    {%- set n = (name or '') | lower -%}
    {%- for prefix in prefixes -%}
        {%- if n.startswith(prefix) -%}{{ return(prefix) }}{%- endif -%}
    {%- endfor -%}
    {{ return('') }}
{% endmacro %}

{#- One line of the envelope in dbt's log: the sentinel, the kind (begin, relation, containment,
    end) and the document as JSON (docs/envelope.md). Every macro that prints one goes through
    here, so the framing lives in one place. -#}
{% macro schema_link__envelope_line(kind, doc) %}
    {%- do log('@@schema_link@@ ' ~ kind ~ ' ' ~ tojson(doc), info=True) -%}
{% endmacro %}

{#- The envelope's `begin` document: format and version (the CLI refuses other versions), package
    version, adapter, the options the run used, and `extra` keys (the hook adds its run's ids). -#}
{% macro schema_link__envelope_begin(options, extra=none) %}
    {%- set doc = {
        'format': 'dbt_schema_link/profiles',
        'format_version': 3,
        'package_version': dbt_schema_link.schema_link_package_version(),
        'adapter': adapter.type(),
        'options': options,
    } -%}
    {%- do doc.update(extra or {}) -%}
    {%- do dbt_schema_link.schema_link__envelope_line('begin', doc) -%}
{% endmacro %}

{#- The envelope's `relation` document: one collected relation (schema_link_collect_relations)
    and what profiling it returned (schema_link_profile_relation); link_schemas and on_run_end
    print it alike. -#}
{% macro schema_link__envelope_relation(entry, profile) %}
    {%- set doc = {'unique_id': entry.unique_id} -%}
    {%- do doc.update(profile) -%}
    {%- do doc.update({'duplicates': entry.duplicates}) -%}
    {{ return(doc) }}
{% endmacro %}

{% macro default__link_schemas(
    select=none, exclude=none, k=none, sample_rows=none, sample_percent=none, sample_seed=none,
    top_n=none, top_max_distinct=none, max_columns_per_query=none, envelope=none, suggest=none,
    min_containment=none, packages=none
) %}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set opts = dbt_schema_link.schema_link_resolve_options({
        'select': select, 'exclude': exclude, 'k': k, 'sample_rows': sample_rows,
        'sample_percent': sample_percent, 'sample_seed': sample_seed, 'top_n': top_n,
        'top_max_distinct': top_max_distinct, 'max_columns_per_query': max_columns_per_query,
        'envelope': envelope, 'suggest': suggest, 'min_containment': min_containment,
        'packages': packages,
    }) -%}
    {%- if opts.envelope -%}
        {%- do dbt_schema_link.schema_link__envelope_begin(opts) -%}
    {%- endif -%}

    {%- set collected = dbt_schema_link.schema_link_collect_relations(opts.select, opts.exclude, opts.packages or false) -%}
    {%- set entries = [] -%}
    {%- set totals = {'columns': 0, 'not_profiled': 0, 'rows': 0} -%}
    {%- set sampled = [] -%}
    {%- set catalog = dbt_schema_link.schema_link_columns_by_relation(collected.relations | map(attribute='relation') | list) or {} -%}
    {%- for entry in collected.relations -%}
        {%- set rel = entry.relation -%}
        {%- set columns = catalog.get(dbt_schema_link.schema_link__relation_key(rel.database, rel.schema, rel.identifier)) -%}
        {%- set profile = dbt_schema_link.schema_link_profile_relation(rel, columns, opts) -%}
        {%- set doc = dbt_schema_link.schema_link__envelope_relation(entry, profile) -%}
        {%- if opts.envelope -%}
            {%- do dbt_schema_link.schema_link__envelope_line('relation', doc) -%}
        {%- endif -%}
        {%- do totals.update({
            'columns': totals.columns + (profile.columns | length),
            'not_profiled': totals.not_profiled + (profile.columns | selectattr('skipped') | list | length),
            'rows': totals.rows + dbt_schema_link.schema_link__row_count(profile),
        }) -%}
        {%- if profile.sampled -%}
            {%- do sampled.append(entry.name ~ ' (' ~ ('%g' | format(profile.sample_percent)) ~ '%)') -%}
        {%- endif -%}
        {%- do entries.append({
            'unique_id': entry.unique_id,
            'resource_type': entry.resource_type,
            'name': entry.name,
            'source_name': entry.source_name,
            'relation': entry.relation,
            'profile': dbt_schema_link.schema_link__profile_facts(profile) if opts.suggest else none,
        }) -%}
    {%- endfor -%}

    {%- set results = [] -%}
    {%- set accepted = [] -%}
    {%- if opts.suggest -%}
        {%- set declared = dbt_schema_link.schema_link__declared_relationships() -%}
        {%- set candidates = dbt_schema_link.schema_link_suggest_candidates(entries, declared) -%}
        {%- set results = dbt_schema_link.schema_link_run_containment(candidates) -%}
        {%- set by_uid = {} -%}
        {%- for e in entries -%}{%- do by_uid.update({e.unique_id: e}) -%}{%- endfor -%}
        {%- set best = {} -%}
        {%- set best_order = [] -%}
        {%- set type_rank = {'model': 0, 'snapshot': 1, 'seed': 2, 'source': 3} -%}
        {%- set prefixes = dbt_schema_link.schema_link__rules().table_prefixes -%}
        {%- for r in results -%}
            {%- if opts.envelope -%}
                {%- do dbt_schema_link.schema_link__envelope_line('containment', r) -%}
            {%- endif -%}
            {%- if r.child_distinct > 0 and (r.matched / r.child_distinct) >= opts.min_containment -%}
                {%- set child = by_uid[r.child] -%}
                {%- set parent = by_uid[r.parent] -%}
                {%- set key = r.child ~ '|' ~ r.child_column -%}
                {%- set option = {
                    'neg_ratio': 0 - (r.matched / r.child_distinct),
                    'layer_rank': 0 if dbt_schema_link.schema_link__layer(child.name, prefixes) == dbt_schema_link.schema_link__layer(parent.name, prefixes) else 1,
                    'type_rank': type_rank.get(parent.resource_type, 9),
                    'parent_name': parent.name,
                    'link': {
                        'child_entry': child, 'child_column': r.child_column,
                        'parent_entry': parent, 'parent_column': r.parent_column,
                        'child_distinct': r.child_distinct, 'matched': r.matched,
                    },
                } -%}
                {%- if key not in best -%}
                    {%- do best.update({key: []}) -%}
                    {%- do best_order.append(key) -%}
                {%- endif -%}
                {%- do best[key].append(option) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- for key in best_order -%}
            {%- set ranked = best[key] | sort(attribute='neg_ratio,layer_rank,type_rank,parent_name') -%}
            {%- do accepted.append(ranked[0].link) -%}
        {%- endfor -%}
    {%- endif -%}

    {%- if opts.envelope -%}
        {%- do dbt_schema_link.schema_link__envelope_line('end', {
            'relations': entries | length,
            'containment': results | length,
            'skipped': collected.skipped,
        }) -%}
    {%- endif -%}

    {%- set summary = 'dbt_schema_link: profiled ' ~ (entries | length) ~ ' relations, '
        ~ totals.columns ~ ' columns (' ~ totals.not_profiled ~ ' not profiled), '
        ~ totals.rows ~ ' rows, ' ~ (sampled | length) ~ ' sampled'
        ~ ((': ' ~ (sampled | join(', '))) if sampled else '') -%}
    {%- do log(summary, info=True) -%}
    {%- for s in collected.skipped -%}
        {%- do log('dbt_schema_link: skipped ' ~ s.unique_id ~ ': ' ~ s.reason, info=True) -%}
    {%- endfor -%}
    {%- if opts.suggest -%}
        {%- if accepted -%}
            {%- do log('dbt_schema_link: ' ~ (accepted | length) ~ ' suggested relationships (exact containment >= '
                ~ opts.min_containment ~ ' of ' ~ (results | length) ~ ' name/type candidates); add to your YAML:\n'
                ~ dbt_schema_link.schema_link_relationships_yaml(accepted), info=True) -%}
        {%- else -%}
            {%- do log('dbt_schema_link: no suggested relationships (' ~ (results | length)
                ~ ' name/type candidates checked)', info=True) -%}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
