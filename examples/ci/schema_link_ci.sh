#!/usr/bin/env bash
# The dbt-schema-link CI steps as a plain script (the same steps as github-actions.yml):
#   build (the on-run-end hook profiles what it builds) -> catalog -> link --check
#   -> write --check -> dbt test -s tag:schema_link -> links.md kept as an artifact.
# Every step runs; the script exits non-zero when any failed, so CI shows all of them.
#
#   PROJECT_DIR=path/to/project examples/ci/schema_link_ci.sh
#
# Settings (environment): PROJECT_DIR (default .), PROFILES_DIR, DBT_TARGET, DBT (the dbt
# executable, default dbt), SCHEMA_LINK (default dbt-schema-link), ARTIFACTS_DIR (where
# links.md is copied, default: left in <project>/target/schema_link).
set -uo pipefail

project_dir="${PROJECT_DIR:-.}"
dbt="${DBT:-dbt}"
schema_link="${SCHEMA_LINK:-dbt-schema-link}"
common=(--project-dir "$project_dir")
if [ -n "${PROFILES_DIR:-}" ]; then common+=(--profiles-dir "$PROFILES_DIR"); fi
if [ -n "${DBT_TARGET:-}" ]; then common+=(--target "$DBT_TARGET"); fi

failed=()
step() {
  local name="$1"; shift
  echo "::group::$name" >&2
  if "$@"; then echo "ok: $name" >&2; else failed+=("$name"); echo "FAILED: $name" >&2; fi
  echo "::endgroup::" >&2
}

step "dbt deps" "$dbt" deps "${common[@]}"
# The project's on-run-end hook (added once, and committed, by `dbt-schema-link init --on-run-end`)
# profiles what the build makes; switched on here for this build (or by the var in dbt_project.yml).
step "dbt build" "$dbt" build "${common[@]}" --vars '{schema_link_on_run_end: true}'
step "dbt docs generate" "$dbt" docs generate "${common[@]}"
# Takes the build's profiles from logs/dbt.log: no second scan of what the build just made.
step "dbt-schema-link link --check" "$schema_link" link --check "${common[@]}"
step "dbt-schema-link write --check" "$schema_link" write --check "${common[@]}"
step "dbt test -s tag:schema_link" "$dbt" test -s tag:schema_link "${common[@]}"

links_md="$project_dir/target/schema_link/links.md"
if [ -n "${ARTIFACTS_DIR:-}" ] && [ -f "$links_md" ]; then
  mkdir -p "$ARTIFACTS_DIR" && cp "$links_md" "$ARTIFACTS_DIR/"
fi

if [ ${#failed[@]} -gt 0 ]; then
  printf 'schema_link CI failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "schema_link CI passed" >&2
