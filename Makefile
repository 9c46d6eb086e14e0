# The two commands of the README: `make run` and `make test`. Everything else is a helper.
# `make test` is ruff, mypy (strict; pyproject.toml), the migrations check, the docs site built
# strictly (a broken link fails) and pytest, its test files spread over one process a core (at
# most four; a file's tests stay in one process), in an order drawn anew each run.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# How long a stopping server lets open responses finish before it cuts them (SIGTERM, Ctrl-C);
# open A2E streams end at once (learnportal/lifespan.py), so it rarely waits that long.
GRACEFUL_SECONDS ?= 10
export DJANGO_DEBUG ?= 1
# Development settings for manage.py typed in a plain shell: DJANGO_DEBUG=1 and a generated
# secret key, written once (gitignored), read by learnportal/settings.py, never overriding.
ENV_FILE := .env
# The documentation site (mkdocs.yml): built here (gitignored, under var/), served on DOCS_PORT.
SITE_DIR ?= var/site
DOCS_PORT ?= 8001
export NO_MKDOCS_2_WARNING := 1  # mkdocs-material's banner about its successor, on every build

.PHONY: run test bench lint migrate demo venv dev sdk-venv docs docs-serve clean

# `venv` is what the server needs (pyproject's dependencies, no more); `dev` adds the test and
# lint toolchain (the `dev` extra), which only `make test`, `make lint` and `make bench` install.
venv: $(VENV)/.installed
dev: $(VENV)/.dev-installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet .
	touch $@

$(VENV)/.dev-installed: $(VENV)/.installed
	$(PY) -m pip install --quiet ".[dev]"
	touch $@

# The A2E reference SDK, vendored at a pinned commit (tests/sdk/README.md), in a venv of its own
# for tests/sdk (it is no dependency of the product); .ci/run makes it before `make test`.
export A2E_SDK_VENV ?= /tmp/learnportal-a2e-sdk
SDK_SOURCE := tests/sdk/a2e-python-sdk

sdk-venv: $(A2E_SDK_VENV)/.installed

$(A2E_SDK_VENV)/.installed: tests/sdk/requirements.txt $(SDK_SOURCE)/pyproject.toml \
		clients/python/pyproject.toml
	test -x $(A2E_SDK_VENV)/bin/python || $(PYTHON) -m venv $(A2E_SDK_VENV)
	$(A2E_SDK_VENV)/bin/python -m pip install --quiet -r tests/sdk/requirements.txt
	@# Built from a copy, so that the build leaves nothing in the checkout.
	rm -rf $(A2E_SDK_VENV)/src && cp -r $(SDK_SOURCE) $(A2E_SDK_VENV)/src
	$(A2E_SDK_VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation \
		$(A2E_SDK_VENV)/src
	@# LearnPortal's client beside it, as an agent author installs both (tests/sdk checks it).
	$(A2E_SDK_VENV)/bin/python -m pip install --quiet ./clients/python
	touch $@

$(ENV_FILE): | venv
	$(PY) -m core.env $@

$(VENV)/.bench-installed: $(VENV)/.dev-installed
	$(PY) -m pip install --quiet ".[dev,bench]"
	touch $@

migrate: venv $(ENV_FILE)
	$(PY) manage.py migrate --no-input -v 0

demo: migrate
	$(PY) manage.py seed_demo --if-empty

run: demo
	@echo ""
	@echo "LearnPortal is at http://$(HOST):$(PORT)/  (agents: ws://$(HOST):$(PORT)/ws/learn/)"
	@echo "Log in at http://$(HOST):$(PORT)/login/ with a demo login (username / password):"
	@$(PY) manage.py seed_demo --logins
	@echo ""
	@# The webhooks worker beside the server (it sends the outbox; requests never do): stopped
	@# with the server, whichever way that ends.
	$(PY) manage.py webhooks_worker & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT; \
	$(VENV)/bin/uvicorn learnportal.asgi:application --host $(HOST) --port $(PORT) \
		--no-access-log --ws-max-size 67108864 --workers $${WEB_CONCURRENCY:-1} \
		--timeout-graceful-shutdown $(GRACEFUL_SECONDS)

test: dev $(ENV_FILE)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) manage.py makemigrations --check --dry-run -v 0
	$(VENV)/bin/mkdocs build --strict --quiet --site-dir $(SITE_DIR)
	@# A new order every run (pytest-randomly), its seed said first: `make test SEED=N` replays it.
	@seed=$(or $(SEED),$$(date +%s)); echo "pytest in random order, seed $$seed (make test SEED=$$seed)"; \
	$(PY) -m pytest -q -n auto --maxprocesses 4 --dist loadfile -p randomly --randomly-seed=$$seed

bench: migrate $(VENV)/.bench-installed
	$(PY) -m bench
	$(PY) -m bench.adapt
	$(PY) -m bench.workspace
	$(PY) -m bench.components
	$(PY) -m bench.projects
	$(PY) -m bench.loop
	$(PY) -m bench.traces
	$(PY) -m bench.comparisons
	$(PY) -m bench.judges

docs: dev $(ENV_FILE)
	$(VENV)/bin/mkdocs build --strict --quiet --site-dir $(SITE_DIR)
	@echo "The docs are in $(SITE_DIR)/ (open $(SITE_DIR)/index.html)"

docs-serve: dev $(ENV_FILE)
	$(VENV)/bin/mkdocs serve --strict --dev-addr $(HOST):$(DOCS_PORT)

lint: dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

clean:
	rm -rf var/*.sqlite3* var/staticfiles $(SITE_DIR)
