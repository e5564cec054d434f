# OFC Table — every command creates the virtual environment when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run play test lint bench bench-ai bench-latency gallery clean

$(STAMP): pyproject.toml setup.py engine/_fastai.c
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/ofc-bot

play: $(STAMP)
	$(VENV)/bin/ofc-bot play

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict engine renderer bot cogs

test: lint
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m bench.engine
	$(PY) -m bench.render
	$(PY) -m bench.solver --no-stay
	$(PY) -m bench.rollouts
	$(PY) -m bench.boards
	$(PY) -m bench.review

bench-ai: $(STAMP)
	$(PY) -m bench.ai

bench-latency: $(STAMP)
	$(PY) -m bench.latency

gallery: $(STAMP)
	$(PY) -m renderer.gallery docs/images

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
