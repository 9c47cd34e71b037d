"""Which profile has which tool: the coding agent's extras."""

from __future__ import annotations

from karyi.tools.profiles import default_toolkit
from tests.support.tool_calls import REG


def test_default_coding_toolkit_has_the_search_tools() -> None:
    kit = default_toolkit(REG, "karyi")
    assert {"grep", "glob", "read_many_files"} <= set(kit.names())
