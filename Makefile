# Two entry points (see README):
#   make demo   install, build the example shop project on DuckDB, discover its joins
#   make test   install and run the whole test suite (DuckDB, a throwaway PostgreSQL, local Spark,
#               the Snowflake emulator) on two workers, then the write-back on dbt 1.8 and 1.12
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXAMPLE := examples/shop
DBT := $(abspath $(BIN))/dbt

.PHONY: demo test install

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

demo: install
	$(BIN)/python $(EXAMPLE)/generate_seeds.py
	cd $(EXAMPLE) && $(DBT) deps --profiles-dir . && $(DBT) seed --profiles-dir . && \
		$(DBT) build --profiles-dir . && $(DBT) docs generate --profiles-dir .
	cd $(EXAMPLE) && $(DBT) run-operation link_schemas --profiles-dir . --args '{envelope: false}'
	$(BIN)/dbt-schema-link link --project-dir $(EXAMPLE)
	$(BIN)/dbt-schema-link write --project-dir $(EXAMPLE) --dry-run

# Two workers, one per core of the machines we run on: the suite is mostly dbt subprocesses on
# one core at a time. --dist loadscope keeps a module's tests (and its built project) on one
# worker, in collection order (--no-loadscope-reorder: the modules marked slow are collected
# first, tests/conftest.py); session fixtures (the PostgreSQL server, the example build) run once per worker.
TEST_WORKERS ?= 2

test: install
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder --durations=10
	# Write-back against the other supported dbt versions (1.8.x, 1.12.0), each in its own venv.
	PYTHON=$(abspath $(BIN))/python BASE_PYTHON=$(PYTHON) tests/writers/multiversion.sh 1.8 1.12
