# One target per thing a person does. Every target that runs code depends on the
# virtualenv, so `make site` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Offline by default when the shared mirror sits next to the checkout; otherwise the
# pipeline reads the public upstream. Override with `make site MLPERF_SOURCE=...`.
MIRROR := $(abspath ../shared/mlperf-mirror)
MLPERF_SOURCE ?= $(if $(wildcard $(MIRROR)),$(MIRROR),)
export MLPERF_SOURCE
export DAGSTER_HOME ?= $(abspath data/dagster_home)

.PHONY: venv bytecode test test-fast lint site serve ui bench lighthouse browser-deps axe clean vendor vendor-check

venv: $(STAMP)

# The project's own modules compiled ahead (pip does it for installed packages, not
# for this editable checkout). Where PYTHONDONTWRITEBYTECODE is set, Python otherwise
# compiles all of pipeline/ again in every process: ~0.3 s for each `update`, `site`
# and MkDocs child. Up-to-date files are skipped; a stale file is never used.
bytecode: venv
	@$(BIN)/python -m compileall -q pipeline benchmarks

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Debian's Chromium drives the browser test; Playwright's own browser download is
# not reachable here, so we point it at /usr/bin/chromium.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# axe-core, the accessibility engine of tests/browser/test_a11y.py: a test tool, not
# committed. Fetched once from the npm registry (pinned version, its sha512 integrity
# checked) into build/vendor/, and its sha256 checked on every later run.
axe: venv
	$(BIN)/python -m tests.browser.axe

# actionlint checks the workflows (.github/workflows) the way GitHub reads them:
# expressions, job outputs, permissions, action inputs.
WORKFLOWS := $(wildcard .github/workflows/*.yml)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/actionlint $(WORKFLOWS)

# Unit tests only (hand-written records, no Dagster run, no browser), on two
# pytest-xdist workers; modules marked slow are left out.
test-fast: venv bytecode
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest -q -n 2 tests/unit -m "not slow"

# Two workers (pytest-xdist, one per core), whole files per worker so each module's
# fixtures are built once; the site is built once and its pages visited in several
# files, spread over the workers. Files go out in collection order, the longest
# first (tests/conftest.py LONGEST_FIRST), not xdist's most-tests-first.
test: venv browser-deps axe bytecode
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/actionlint $(WORKFLOWS)
	$(BIN)/pytest -n 2 --dist loadfile --no-loadscope-reorder

site: venv bytecode
	mkdir -p $(DAGSTER_HOME)
	$(BIN)/mlperf-ledger site

serve: venv
	$(BIN)/python -m http.server --directory build/site --bind 127.0.0.1 8000

ui: venv bytecode
	mkdir -p $(DAGSTER_HOME)
	$(BIN)/dagster dev

bench: venv bytecode
	$(BIN)/python -m benchmarks.bench $(BENCH_ARGS)

# Readers' speed on a phone: Lighthouse 12's mobile profile on the built site (make
# site first), a page of each kind, three runs each (benchmarks/lighthouse.py).
lighthouse: venv bytecode browser-deps
	$(BIN)/python -m benchmarks.lighthouse $(LIGHTHOUSE_ARGS)

# Browser libraries the site serves itself (Tabulator, for the Explorer page) are
# committed under site/assets/vendor/, so `make site` and `make test` need no network.
# These re-create or verify them from the npm registry: pinned version, sha512 checked.
vendor: venv
	$(BIN)/python -m pipeline.render.vendor

vendor-check: venv
	$(BIN)/python -m pipeline.render.vendor --check

clean:
	rm -rf build .pytest_cache .ruff_cache
