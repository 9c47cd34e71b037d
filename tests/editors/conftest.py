"""Real editors drive `karyi lsp`: each run prints the editors' versions at its end."""

from __future__ import annotations

import pytest

from tests.editors.editor_runs import VERSIONS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """`neovim: NVIM v0.11.4` and the like, for the editors this run started."""
    for name, text in sorted(VERSIONS.items()):
        terminalreporter.write_line(f"editor {name}: {text}")
