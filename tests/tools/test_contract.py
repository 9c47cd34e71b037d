"""The tool contract: results, validation messages, registry, toolkits, profiles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from karyi.core.errors import ErrorCode, ToolFailure, gateway_code
from karyi.core.results import Permission, ToolResult
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.profiles import PROFILES, builtin_registry, default_toolkit
from karyi.tools.registry import ToolLookupError, ToolRegistry


class Echo(Tool):
    name = "echo"
    description = "Echo text back."
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "what to say"},
            "times": {"type": "integer", "minimum": 1},
            "mode": {"type": "string", "enum": ["loud", "quiet"]},
        },
        "required": ["text"],
        "additionalProperties": False,
    }

    def check(self, params: Mapping[str, Any]) -> str | None:
        return "text: must not be 'forbidden'" if params["text"] == "forbidden" else None

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        if params["text"] == "fail":
            raise ToolFailure(ErrorCode.CONFLICT, "echo: conflict")
        if params["text"] == "crash":
            raise RuntimeError("boom")
        return ToolResult.ok(params["text"] * params.get("times", 1), data={"n": 1})


def test_result_to_dict_success() -> None:
    r = ToolResult.ok("content", display="**shown**", data=[1], status="running", elapsed=0.5)
    assert r.to_dict() == {
        "success": True,
        "llm_content": "content",
        "display": "**shown**",
        "data": [1],
        "error": None,
        "metadata": {"elapsed": 0.5},
        "status": "running",
    }


def test_result_to_dict_failure() -> None:
    r = ToolResult.fail(ErrorCode.NOT_FOUND, "x: no such file")
    assert r.to_dict() == {
        "success": False,
        "llm_content": "x: no such file",
        "display": "x: no such file",
        "data": None,
        "error": {"code": "tool_not_found", "message": "x: no such file"},
        "metadata": {},
    }


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "missing required parameter 'text' (string: what to say)"),
        ({"text": 5}, "text: expected string: what to say, got integer 5"),
        ({"text": "a", "times": "2"}, "times: expected integer, got string '2'"),
        ({"text": "a", "times": 0}, "times: 0 is less than the minimum of 1"),
        ({"text": "a", "mode": "shout"}, "mode: expected one of 'loud', 'quiet', got 'shout'"),
        (
            {"text": "a", "colour": "red"},
            "unknown parameter 'colour'; expected only: mode, text, times",
        ),
        ({"text": "forbidden"}, "text: must not be 'forbidden'"),
        ([], "parameters must be an object, got array"),
    ],
)
def test_validation_names_the_field_and_what_was_expected(params: Any, message: str) -> None:
    assert Echo().validate(params) == message


async def test_run_turns_every_failure_into_a_result(ctx: ToolContext) -> None:
    echo = Echo()
    assert (await echo.run({"text": "hi", "times": 2}, ctx)).llm_content == "hihi"
    bad = await echo.run({"text": 1}, ctx)
    assert bad.error is not None and bad.error.code == "invalid_tool_input"
    assert bad.error.message.startswith("echo: text: expected string")
    conflict = await echo.run({"text": "fail"}, ctx)
    assert conflict.error is not None and conflict.error.code == "tool_conflict"
    crash = await echo.run({"text": "crash"}, ctx)
    assert crash.error is not None and crash.error.code == "tool_error"
    assert crash.error.message == "echo failed: RuntimeError: boom"


def test_gateway_codes_fold_into_the_seed_six() -> None:
    assert gateway_code("unknown_tool") == "tool_not_found"
    assert gateway_code("binary_file") == "invalid_tool_input"
    assert gateway_code("tool_conflict") == "tool_conflict"
    assert gateway_code("something_new") == "tool_error"


def test_every_profile_exists_and_every_tool_schema_is_valid() -> None:
    reg = builtin_registry()
    assert reg.profiles() == list(PROFILES)
    for _profile, tool in reg.all_tools():
        assert tool.description and tool.parameters["type"] == "object"
        tool.validate({})  # compiles the schema; raises if the schema itself is invalid
        assert tool.permission in (Permission.AUTO, Permission.CONFIRM)


def test_profiles_keep_each_seeds_names() -> None:
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
