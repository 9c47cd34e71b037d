"""Which profile has which tool, under which names; the coding agent's extras."""

from __future__ import annotations

from karyi.core.results import Permission
from karyi.tools.profiles import PROFILES, builtin_registry, default_toolkit
from tests.support.tool_calls import REG


def test_default_coding_toolkit_has_the_search_tools() -> None:
    kit = default_toolkit(REG, "karyi")
    assert {"grep", "glob", "read_many_files"} <= set(kit.names())


def test_every_profile_exists_and_every_tool_schema_is_valid() -> None:
    reg = builtin_registry()
    assert reg.profiles() == list(PROFILES)
    for _profile, tool in reg.all_tools():
        assert tool.description and tool.parameters["type"] == "object"
        tool.validate({})  # compiles the schema; raises if the schema itself is invalid
        assert tool.permission in (Permission.AUTO, Permission.CONFIRM)


def test_profiles_keep_their_own_names() -> None:
    reg = builtin_registry()
    assert "read" in reg.profile("karyi")
    assert {"read_file", "list_file", "get_file_info"} <= set(reg.profile("agentxml"))
    assert {"ls", "read_file"} <= set(reg.profile("vecli"))
    assert "read_file" in reg.profile("gateway")
    # one name, three tools, one file layer
    params = {
        r: reg.find(f"{r}.read_file").parameters["required"]
        for r in ("agentxml", "vecli", "gateway")
    }
    assert params == {"agentxml": ["filePath"], "vecli": ["absolute_path"], "gateway": ["path"]}


def test_default_toolkit_for_karyi_adds_only_existing_extras() -> None:
    reg = builtin_registry()
    kit = default_toolkit(reg, "karyi")
    own = list(reg.profile("karyi"))
    assert kit.names()[: len(own)] == own
    assert kit.names()[len(own) :] == [
        "grep",
        "glob",
        "read_many_files",
        "web_fetch",
        "web_search",
        "save_memory",
        "call_subagent",
    ]
