# omniira-evennia: the two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.omniira-installed

.PHONY: demo demo-stop test test-fast test-postgres lint bench clean-demo venv chromium

venv: $(STAMP)

# torch goes first and pinned: a bare torch requirement pulls a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e ".[dev,local]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) tools/demo.py start

demo-stop:
	@if [ -x $(PY) ]; then $(PY) tools/demo.py stop; else echo "no demo to stop"; fi

# The browser tests drive Debian's Chromium (no browser download from elsewhere).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

FAST := -m "not e2e and not realmodel and not browser"

# Everything on SQLite, then the suite again on a throwaway PostgreSQL 18 + pgvector (the
# end-to-end, real-model and browser tests run the demo game, which uses SQLite).
test: $(STAMP) chromium
	$(PY) -m pytest
	OMNIIRA_TEST_DB=postgres $(PY) -m pytest $(FAST)

test-fast: $(STAMP)
	$(PY) -m pytest $(FAST)

test-postgres: $(STAMP)
	OMNIIRA_TEST_DB=postgres $(PY) -m pytest $(FAST)

lint: $(STAMP)
	$(VENV)/bin/isort --check --profile black -l 100 omniira_evennia tests tools bench
	$(VENV)/bin/black --check -l 100 omniira_evennia tests tools bench

clean-demo: demo-stop
	rm -rf demo

# busy_server.py and rollover.py start the demo game on ports 4300-4316 against a scripted
# LLM (about 15 minutes together).
bench: $(STAMP)
	$(PY) bench/local_model_turns.py
	$(PY) bench/retrieval.py
	$(PY) bench/retrieval.py --backend postgres --no-turns --sizes 1000 10000
	$(PY) bench/retrieval_eval.py
	$(PY) bench/busy_server.py
	$(PY) bench/rollover.py
	$(PY) bench/report.py
