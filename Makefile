# Zary: the whole set-up is `make run` (development server + Celery worker) and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run test lint typecheck pytest bench verify browser migrate demo clean help

help:
	@echo "make run    - install, migrate, load demo data, start web server + Celery worker"
	@echo "make test   - install test tools, run ruff, mypy (engine/) and the whole pytest suite"
	@echo "make bench  - benchmarks under tests/benchmarks/ (ratios against a reference)"
	@echo "make verify - long checks: the engine against GNU Backgammon, the whole API under Schemathesis"

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "Zary needs Python 3.11 (set PYTHON=/path/to/python3.11)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(DEV_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@ $(RUNTIME_STAMP)

migrate: $(RUNTIME_STAMP)
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py load_demo

run: demo
	@scripts/run-dev

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

browser: $(DEV_STAMP)
	@scripts/ensure-browser

# pytest processes (pytest-xdist): both cores of the reference machine; 0 runs in one process.
PYTEST_WORKERS ?= 2

pytest: $(DEV_STAMP) browser
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(DEV_STAMP)
	@scripts/ensure-wrk
	@set -e; for bench in tests/benchmarks/bench_*.py; do \
		echo "== $$bench"; $(BIN)/python -m tests.benchmarks.$$(basename $$bench .py); \
	done

verify: $(DEV_STAMP)
	$(BIN)/python -m tests.engine.differential --positions 100000
	API_FUZZ_COVERAGE=1 API_FUZZ_STATEFUL=1 API_FUZZ_EXAMPLES=50 $(BIN)/python -m pytest tests/config/test_api_fuzz.py -q

clean:
	rm -rf $(VENV) var db.sqlite3 .pytest_cache .mypy_cache .ruff_cache
