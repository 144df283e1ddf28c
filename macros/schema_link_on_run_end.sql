{#- on-run-end hook: profile the relations this run built and carry the profiles out in the dbt
    log as the `dbt_schema_link/profiles` envelope, so that `dbt-schema-link link` afterwards
    takes them from the log instead of scanning those relations again.

    A project opts in with `dbt-schema-link init --on-run-end`, which adds the hook line and the
    switch to the project's own dbt_project.yml (the package declares no hook, so a project that
    has not opted in runs none):

        on-run-end:
          - "{{ dbt_schema_link.on_run_end() }}"
        vars:
          schema_link_on_run_end: true          # or [dev, ci]: only in these targets; false: off

    Called from the root project's hook, this macro runs in the root project's context: every
    call inside the package is therefore qualified (`dbt_schema_link.<macro>`) or dispatched.
    Read-only (the same SELECT and catalog queries as link_schemas, through
    schema_link_profile_relation), and only for the models, seeds and snapshots of the root
    project and of the installed packages in scope (vars.schema_link.packages, default all) whose
    result in this run is `success`. Returns no SQL. The `begin` line carries
    `hook`, `invocation_id` and `target` besides what link_schemas prints, so the CLI knows which
    build a profile came from. -#}
{% macro on_run_end(run_results=none) %}
    {{ return(adapter.dispatch('schema_link_on_run_end', 'dbt_schema_link')(run_results)) }}
{% endmacro %}

{% macro schema_link__on_run_end_enabled() %}
    {%- set value = var('schema_link_on_run_end', false) -%}
    {%- if value is none or value is sameas true or value is sameas false -%}
        {{ return(value is sameas true) }}
    {%- elif value is string and (value | lower) in ['true', 'yes', '1', 'false', 'no', '0', ''] -%}
        {{ return((value | lower) in ['true', 'yes', '1']) }}
    {%- elif value is string -%}
        {{ return(target.name in (value.split(',') | map('trim') | list)) }}
    {%- elif value is iterable and value is not mapping -%}
        {{ return(target.name in (value | map('string') | list)) }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error('dbt_schema_link: var schema_link_on_run_end must be true, false or a list '
        ~ 'of target names, got ' ~ value) }}
{% endmacro %}

{#- Which installed packages' nodes the hook profiles too, as `dbt-schema-link` reads them
    (vars: {schema_link: {packages: all | root | [names]}}, default all): true, false or names. -#}
{% macro schema_link__hook_packages() %}
    {%- set settings = var('schema_link', {}) -%}
    {%- set value = settings.get('packages', 'all') if settings is mapping else 'all' -%}
    {%- if value is none or value == 'all' -%}{{ return(true) }}{%- endif -%}
    {%- if value == 'root' -%}{{ return(false) }}{%- endif -%}
    {{ return(value) }}
{% endmacro %}

{#- unique_ids of the models, seeds and snapshots this run built successfully: the root
    project's and those of the packages in scope (never this package's own projects) -#}
{% macro schema_link__built_nodes(run_results, packages=false) %}
    {%- set built = [] -%}
    {%- for r in run_results or [] -%}
        {%- set node = r.node -%}
        {%- if node is not none and (r.status | string | lower) in ['success', 'runstatus.success']
            and (node.resource_type | string | lower) in ['model', 'seed', 'snapshot', 'nodetype.model',
                                                          'nodetype.seed', 'nodetype.snapshot']
            and (node.package_name == project_name
                 or (node.package_name not in ['dbt_schema_link', 'dbt_schema_link_integration_tests']
                     and dbt_schema_link.schema_link__package_wanted(node.package_name, packages))) -%}
            {%- do built.append(node.unique_id) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(built) }}
{% endmacro %}

{% macro default__schema_link_on_run_end(run_results=none) %}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- if not dbt_schema_link.schema_link__on_run_end_enabled() -%}
        {{ return('') }}
    {%- endif -%}
    {%- set packages = dbt_schema_link.schema_link__hook_packages() -%}
    {%- set built = dbt_schema_link.schema_link__built_nodes(run_results if run_results is not none else results, packages) -%}
    {%- if built | length == 0 -%}
        {{ return('') }}
    {%- endif -%}
    {%- set started = modules.datetime.datetime.now() -%}
    {#- the default options, as `dbt-schema-link link` uses by default: other ones there re-profile -#}
    {%- set opts = dbt_schema_link.schema_link_resolve_options({'suggest': false, 'envelope': true}) -%}
    {%- set collected = dbt_schema_link.schema_link_collect_relations(built, none, packages) -%}
    {%- do dbt_schema_link.schema_link__envelope_begin(opts, {
        'hook': 'on_run_end',
        'invocation_id': invocation_id,
        'target': target.name,
        'run_started_at': run_started_at | string,
    }) -%}

    {%- set skipped = collected.skipped | list -%}
    {%- set catalog = dbt_schema_link.schema_link_columns_by_relation(collected.relations | map(attribute='relation') | list) or {} -%}
    {%- set totals = {'relations': 0, 'columns': 0} -%}
    {%- for entry in collected.relations -%}
        {%- set rel = entry.relation -%}
        {%- set columns = catalog.get(dbt_schema_link.schema_link__relation_key(rel.database, rel.schema, rel.identifier)) -%}
        {%- if columns is none -%}
            {%- set columns = adapter.get_columns_in_relation(rel) -%}
        {%- endif -%}
        {%- if columns | length == 0 -%}
            {#- checked here: a query that fails inside a hook would fail the user's build -#}
            {%- do skipped.append({'unique_id': entry.unique_id, 'reason': 'the warehouse reports no columns'}) -%}
        {%- else -%}
            {%- set profile = dbt_schema_link.schema_link_profile_relation(rel, columns, opts) -%}
            {%- set doc = dbt_schema_link.schema_link__envelope_relation(entry, profile) -%}
            {%- do dbt_schema_link.schema_link__envelope_line('relation', doc) -%}
            {%- do totals.update({'relations': totals.relations + 1,
                                  'columns': totals.columns + (profile.columns | length)}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do dbt_schema_link.schema_link__envelope_line('end', {
        'relations': totals.relations,
        'containment': 0,
        'skipped': skipped,
    }) -%}
    {%- set seconds = (modules.datetime.datetime.now() - started).total_seconds() -%}
    {%- do log('dbt_schema_link: on-run-end profiled ' ~ totals.relations ~ ' relations built by this run ('
        ~ totals.columns ~ ' columns) in ' ~ ('%.2f' | format(seconds)) ~ ' s', info=True) -%}
    {%- for s in skipped -%}
        {%- do log('dbt_schema_link: on-run-end skipped ' ~ s.unique_id ~ ': ' ~ s.reason, info=True) -%}
    {%- endfor -%}
    {{ return('') }}
{% endmacro %}
