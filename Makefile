# Every target sets up what it needs: `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench install clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

DEMO := build/demo

run: $(STAMP)
	rm -rf $(DEMO) && mkdir -p build && cp -r examples/demo $(DEMO)
	$(BIN)/karyi run --workspace $(DEMO) --model script:examples/demo/fix.yaml --yes \
		"The boiling point test fails in src/; fix the bug and run the tests."

lint: $(STAMP)
	$(BIN)/ruff check server tests benches
	$(BIN)/ruff format --check server tests benches
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benches/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
