"""The time spine MetricFlow needs before any semantic model parses: found, or (only when asked)
created as a minimal daily `metricflow_time_spine` model, with its YAML `time_spine:` config from
dbt 1.9 (before that the model name alone marks it)."""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml.comments import CommentedMap

from dbt_schema_link.artifacts.records import Project, Relation, ResourceType
from dbt_schema_link.project_config import configured_paths
from dbt_schema_link.writers.entries import ensure_column, ensure_entry, entry_file
from dbt_schema_link.writers.options import WriteOptions
from dbt_schema_link.writers.records import ChangeKind, FileChange, WritePlan
from dbt_schema_link.writers.syntax import DbtSyntax
from dbt_schema_link.writers.workspace import Workspace
from dbt_schema_link.writers.yaml_io import YamlRefused, map_add

TIME_SPINE_MODEL = "metricflow_time_spine"
TIME_SPINE_COLUMN = "date_day"
TIME_SPINE_SQL = """\
-- Written by dbt-schema-link (--create-time-spine): the daily time spine MetricFlow needs for
-- semantic models. Widen the date range to cover your data.
select cast(date_day as date) as {column}
from (
    {{{{ dbt.date_spine('day', "cast('2000-01-01' as date)", "cast('2035-01-01' as date)") }}}}
) as spine
"""


def model_paths(project_dir: Path) -> list[str]:
    return configured_paths(project_dir, "model-paths", "models")


def create_time_spine(ws: Workspace, project: Project, project_dir: Path, syntax: DbtSyntax,
                      options: WriteOptions, plan: WritePlan) -> bool:
    """Plan the spine model (and its YAML); False, with a note, when it cannot be created."""
    root = model_paths(project_dir)[0]
    sql_path = (project_dir / root / f"{TIME_SPINE_MODEL}.sql").resolve()
    if sql_path.exists():
        plan.notes.append(
            f"time spine not created: {ws.display(sql_path)} exists but is not in the manifest; run `dbt parse` and retry"
        )
        return False
    ws.add_file(FileChange(
        path=sql_path, display=ws.display(sql_path), old=None,
        new=TIME_SPINE_SQL.format(column=TIME_SPINE_COLUMN).encode("utf-8"), kind=ChangeKind.SQL,
        actions=("create the daily time spine model",),
    ))
    if not syntax.time_spine_yaml:
        return True
    spine = Relation(unique_id=f"model.{project.project_name}.{TIME_SPINE_MODEL}", resource_type=ResourceType.MODEL,
                     name=TIME_SPINE_MODEL, package_name=project.project_name, database=None, schema=None,
                     identifier=TIME_SPINE_MODEL, relation_name=None,
                     original_file_path=f"{root}/{TIME_SPINE_MODEL}.sql")
    target = entry_file(spine, project_dir, options.new_file_pattern)
    try:
        if isinstance(target, str):
            raise YamlRefused(target)
        yfile = ws.open(target.path)
        entry = ensure_entry(yfile, spine)
        time_spine = CommentedMap()
        time_spine["standard_granularity_column"] = TIME_SPINE_COLUMN
        map_add(entry, "time_spine", time_spine)
        column = ensure_column(yfile, entry, TIME_SPINE_COLUMN)
        map_add(column, "granularity", "day")
        yfile.actions.append("time spine config")
    except YamlRefused as exc:
        ws.extra.pop(sql_path, None)
        plan.notes.append(f"time spine not created: {exc}")
        return False
    return True

