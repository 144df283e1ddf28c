#!/usr/bin/env bash
# Run the real-client write-back checks against the other dbt versions we support, each from its
# own virtual environment: dbt-core 1.8.x (legacy test syntax, column meta at top level) and
# 1.12.0 (also the in-model semantic spec). The Python side runs in the project's venv; only the
# `dbt` executable changes (SCHEMA_LINK_DBT). DuckDB only. About 3-5 minutes with warm venvs.
#
#   tests/writers/multiversion.sh            # both versions
#   tests/writers/multiversion.sh 1.8        # one of them
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
BASE_PYTHON=${BASE_PYTHON:-python3}
VENVS=${SCHEMA_LINK_VENVS:-$HOME/.cache/dbt-schema-link/venvs}
mkdir -p "$VENVS"

venv() {  # venv NAME PACKAGES...: create once, reuse afterwards
  local name=$1; shift
  if [ ! -x "$VENVS/$name/bin/dbt" ]; then
    "$BASE_PYTHON" -m venv "$VENVS/$name"
    "$VENVS/$name/bin/pip" install --quiet "$@"
  fi
  echo "$VENVS/$name/bin/dbt"
}

run() {  # run VERSION
  local dbt specs
  case "$1" in
    1.8)  dbt=$(venv dbt18 "dbt-core==1.8.*" "dbt-duckdb==1.8.*"); specs=legacy ;;
    # dbt-core >= 1.12.1 needs a parser wheel that installs from outside the registry (docs/dbt_facts.md, "Installing dbt")
    1.12) dbt=$(venv dbt112 "dbt-core==1.12.0" "dbt-core-experimental-parser==2.0.0a4" "dbt-duckdb>=1.11,<1.12"); specs=legacy,model ;;
    *) echo "unknown dbt version $1 (use 1.8 or 1.12)" >&2; exit 2 ;;
  esac
  echo "== dbt $("$dbt" --version 2>/dev/null | sed -n 's/.*installed: *//p' | head -1) ($dbt)"
  SCHEMA_LINK_DBT=$dbt SCHEMA_LINK_SEMANTIC_SPECS=$specs \
    "$PY" -m pytest "$ROOT/tests/writers/test_real_dbt.py" -k duckdb -q -p no:cacheprovider
  # documentation write-back (meta placement differs before 1.10); DuckDB only already
  SCHEMA_LINK_DBT=$dbt "$PY" -m pytest "$ROOT/tests/writers/test_docs_lineage.py" -q -p no:cacheprovider
  # a project built from a package: its links as singular data tests in the root project
  SCHEMA_LINK_DBT=$dbt "$PY" -m pytest "$ROOT/tests/test_packages.py" -q -p no:cacheprovider \
    -k "profiled_and_linked or data_tests or orphan_keys"
  # composite keys: the package's composite relationships test written, passing, failing on an orphan
  SCHEMA_LINK_DBT=$dbt "$PY" -m pytest "$ROOT/tests/composite/test_composite_duckdb.py" -q -p no:cacheprovider -k write
}

for version in "${@:-1.8 1.12}"; do
  for v in $version; do run "$v"; done
done
