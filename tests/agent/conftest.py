"""Fixtures of the agent tests: a toolkit of the logging test tools, reset per test."""

from __future__ import annotations

import pytest

from karyi.tools.registry import Toolkit, ToolRegistry
from tests.support.steps import GATES, LOG, STARTED, Change, Program, Risky, Scan, Step


@pytest.fixture(autouse=True)
def _reset() -> None:
    LOG.clear()
    GATES.clear()
    STARTED.clear()


@pytest.fixture
def kit() -> Toolkit:
    reg = ToolRegistry()
    reg.register("t", Step())
    reg.register("t", Risky())
    reg.register("t", Program())
    reg.register("t", Change())
    reg.register("t", Scan())
    return reg.toolkit("t")
