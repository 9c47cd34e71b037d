"""Real editors drive `karyi lsp`: each run prints the editors' versions at its end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.editors.editor_runs import VERSIONS
from tests.support.fake_model_server import FakeModelServer, serve


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeModelServer]:
    """One fake model server per editor: its whole session of steps runs against it."""
    yield from serve()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """`neovim: NVIM v0.11.4` and the like, for the editors this run started."""
    for name, text in sorted(VERSIONS.items()):
        terminalreporter.write_line(f"editor {name}: {text}")
