"""The registry: lookups that explain themselves, toolkits as per-agent subsets."""

from __future__ import annotations

import pytest

from karyi.tools.profiles import builtin_registry
from karyi.tools.registry import ToolLookupError, ToolRegistry
from tests.support.echo_tool import Echo


def test_registry_lookups_explain_themselves() -> None:
    reg = builtin_registry()
    with pytest.raises(ToolLookupError, match=r"unknown profile 'vcli' \(did you mean 'vecli'\?\)"):
        reg.profile("vcli")
    with pytest.raises(ToolLookupError, match="exists in several profiles"):
        reg.find("read_file")
    assert reg.find("ls").name == "ls"
    with pytest.raises(ToolLookupError, match="profile 'vecli' has no tool 'lss'"):
        reg.find("vecli.lss")


def test_toolkits_are_per_agent_subsets() -> None:
    reg = ToolRegistry()
    reg.register("p", Echo())
    kit = reg.toolkit("p", agent="helper")
    assert kit.agent == "helper" and kit.names() == ["echo"]
    assert kit.schema("echo") == Echo.parameters and kit.schema("nope") is None
    assert reg.toolkit("p", exclude=["echo"]).names() == []
    mixed = builtin_registry().toolkit("karyi", include=["vecli.ls"])
    assert mixed.names() == [*builtin_registry().profile("karyi"), "ls"]
    assert kit.unknown_message("ecko") == (
        "unknown tool 'ecko' (did you mean 'echo'?); available tools: echo"
    )
