# Every target sets up what it needs: `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXT        := client-vscode
EXT_STAMP  := $(EXT)/node_modules/.installed

.PHONY: run test lint bench install clean vsix vscode-test vscode-unit vscode-e2e vscode-screenshots

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

lint: $(STAMP) $(EXT_STAMP)
	$(BIN)/ruff check server tests benches
	$(BIN)/ruff format --check server tests benches
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	node $(EXT)/scripts/check-cycles.mjs

test: lint vscode-test
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benches/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
	rm -rf $(EXT)/node_modules $(EXT)/dist $(EXT)/out $(EXT)/*.vsix

# ---- the VS Code extension (client-vscode/) -----------------------------------------
EXT_SRC    := $(shell find $(EXT)/src $(EXT)/media -type f 2>/dev/null) $(EXT)/package.json $(EXT)/esbuild.mjs
EXT_VER     = $(shell node -p "require('./$(EXT)/package.json').version")
VSIX        = $(EXT)/karyi-$(EXT_VER).vsix

$(EXT_STAMP): $(EXT)/package-lock.json
	cd $(EXT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The packaged extension: bundles built with esbuild, packed with vsce 3 (vsce 4 needs Node 22).
vsix: $(EXT_STAMP) $(EXT_SRC)
	cd $(EXT) && node esbuild.mjs --production
	cd $(EXT) && npx --yes @vscode/vsce@3 package --no-dependencies --allow-missing-repository \
		--out karyi-$(EXT_VER).vsix

vscode-unit: $(EXT_STAMP)
	cd $(EXT) && npx tsc --noEmit -p .
	cd $(EXT) && node esbuild.mjs --tests && node --test out/unit/

# Real VS Code (code-server 4.100.3 from npm) in headless Debian Chromium; the setup
# script installs what is missing (apt: chromium, ripgrep, libkrb5-dev) and caches
# code-server under ~/.cache/karyi-vscode-e2e.
vscode-e2e: $(STAMP) vsix
	cd $(EXT) && node esbuild.mjs --tests
	cd $(EXT) && node test/e2e/run.mjs "$$(bash test/e2e/setup.sh)" karyi-$(EXT_VER).vsix

vscode-test: vscode-unit vscode-e2e

# Re-take the README's screenshots (docs/images/vscode-*.png) with the e2e tests.
vscode-screenshots: $(STAMP) vsix
	cd $(EXT) && node esbuild.mjs --tests
	cd $(EXT) && KARYI_E2E_SCREENSHOTS=$(CURDIR)/docs/images node test/e2e/run.mjs "$$(bash test/e2e/setup.sh)" karyi-$(EXT_VER).vsix
