"""Tools from a discovery command written here, run through the call command."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from karyi.agent.runtime import Runtime
from karyi.core.results import Permission
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.tools.discovery import DiscoveryError, declarations_of, discover
from karyi.workspace.workspace import Workspace

SCRIPT = """
import json, os, sys
mode = sys.argv[1]
if mode == "discover":
    print(open(os.environ.get("DECLS", "decls.json")).read())
elif mode == "call":
    name = sys.argv[2]
    args = json.load(sys.stdin)
    if name == "add":
        print(args["a"] + args["b"])
    elif name == "warn":
        print("done")
        print("careful: deprecated", file=sys.stderr)
    elif name == "boom":
        print("partial")
        print("it broke", file=sys.stderr)
        sys.exit(3)
    elif name == "sleep":
        import time
        time.sleep(60)
"""

ADD = {
    "name": "add",
    "description": "Add two numbers.",
    "parameters": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}


def simple(name: str) -> dict[str, Any]:
    return {"name": name, "description": f"{name} tool"}


def settings_for(tmp_path: Path, decls: Any, **tools: Any) -> Settings:
    script = tmp_path / "tools.py"
    script.write_text(SCRIPT)
    (tmp_path / "decls.json").write_text(decls if isinstance(decls, str) else json.dumps(decls))
    base = f"cd {shlex.quote(str(tmp_path))} && {shlex.quote(sys.executable)} tools.py"
    values = {
        "discoveryCommand": f"{base} discover",
        "callCommand": f"{base} call",
        "timeoutSeconds": 10,
        **tools,
    }
    return Settings().with_values(tools=values)


async def test_every_declaration_shape_is_accepted() -> None:
    wrapped = [{"functionDeclarations": [ADD]}, {"functionDeclarations": [simple("b")]}]
    assert [d["name"] for d in declarations_of(wrapped)] == ["add", "b"]
    assert declarations_of({"function_declarations": [ADD]}) == [ADD]
    assert declarations_of({"functionDeclarations": [ADD]}) == [ADD]
    assert declarations_of([ADD]) == [ADD]
    with pytest.raises(DiscoveryError, match="got an object with keys tools"):
        declarations_of({"tools": []})


async def test_discovered_tools_run_through_the_call_command(tmp_path: Path, ws_root: Path) -> None:
    settings = settings_for(tmp_path, {"functionDeclarations": [ADD, simple("warn")]})
    found = await discover(settings, ws_root, taken=set())
    assert [t.name for t in found.tools] == ["add", "warn"] and found.warnings == []
    add, warn = found.tools
    assert add.permission is Permission.CONFIRM
    confirmation = add.confirmation({"a": 1, "b": 2}, _ctx(ws_root, settings))
    assert confirmation is not None and confirmation.details.endswith(
        'call add <<< {"a": 1, "b": 2}'
    )
    ctx = _ctx(ws_root, settings)
    result = await add.run({"a": 2, "b": 40}, ctx)
    assert result.success and result.llm_content == "42\n"
    assert add.validate({"a": "x", "b": 1}) == "a: expected integer, got string 'x'"
    warned = await warn.run({}, ctx)
    assert warned.success
    assert warned.llm_content == ("Stdout: done\nStderr: careful: deprecated\nExit Code: 0")


async def test_a_failing_call_is_reported_to_the_model(tmp_path: Path, ws_root: Path) -> None:
    settings = settings_for(tmp_path, [simple("boom"), simple("sleep")])
    boom, sleep = (await discover(settings, ws_root, set())).tools
    ctx = _ctx(
        ws_root, settings.with_values(tools={**settings.values["tools"], "timeoutSeconds": 0.5})
    )
    result = await boom.run({}, ctx)
    assert not result.success and result.error is not None
    assert result.llm_content == "Stdout: partial\nStderr: it broke\nExit Code: 3"
    slow = await sleep.run({}, ctx)
    assert slow.error is not None and slow.error.code == "timeout"
    assert "Error: did not finish within 0.5s (tools.timeoutSeconds)" in slow.llm_content


@pytest.mark.parametrize(
    ("decls", "message"),
    [
        ("this is not json", "its output is not JSON (Expecting value at line 1 column 1)"),
        ('{"tools": []}', "expected a JSON array of function declarations, or an object"),
        ("42", "expected a JSON array of function declarations, got int"),
    ],
)
async def test_a_discovery_command_that_prints_garbage(
    tmp_path: Path, ws_root: Path, decls: str, message: str
) -> None:
    with pytest.raises(DiscoveryError, match=re.escape(message)):
        await discover(settings_for(tmp_path, decls), ws_root, set())


async def test_a_discovery_command_that_hangs_or_fails(tmp_path: Path, ws_root: Path) -> None:
    hangs = settings_for(tmp_path, [], discoveryCommand="sleep 60", timeoutSeconds=0.5)
    with pytest.raises(DiscoveryError, match=r"did not finish within 0.5s"):
        await discover(hangs, ws_root, set())
    fails = settings_for(tmp_path, [], discoveryCommand="echo nope >&2; exit 4")
    with pytest.raises(DiscoveryError, match="exited with code 4: nope"):
        await discover(fails, ws_root, set())


async def test_bad_declarations_are_skipped_and_the_rest_kept(
    tmp_path: Path, ws_root: Path
) -> None:
    decls = [
        ADD,
        {"description": "no name"},
        {"name": "bad", "parameters": {"type": "object", "properties": {"x": {"type": 5}}}},
        {"name": "read"},
        "oops",
    ]
    found = await discover(settings_for(tmp_path, decls), ws_root, taken={"read"})
    assert [t.name for t in found.tools] == ["add"]
    assert found.warnings == [
        "tools.discoveryCommand: skipped a declaration: name: expected 1-64 letters, digits, "
        "_ . - (starting with a letter or _), got None",
        "tools.discoveryCommand: skipped a declaration: bad: parameters is not valid JSON "
        "Schema at properties/x/type: 5 is not valid under any of the given schemas",
        "tools.discoveryCommand: skipped 'read': a tool of that name exists",
        "tools.discoveryCommand: skipped a declaration: a declaration must be an object, got str",
    ]


async def test_the_runtime_registers_them_and_rediscovery_replaces(
    tmp_path: Path, ws_root: Path
) -> None:
    settings = settings_for(tmp_path, [ADD, simple("warn")])
    runtime = Runtime.open(ws_root, settings)
    try:
        tools, warnings = await runtime.extra_tools()
        assert [t.name for t in tools] == ["add", "warn"] and warnings == []
        assert list(runtime.registry.profile("discovered")) == ["add", "warn"]
        (tmp_path / "decls.json").write_text(json.dumps([simple("boom")]))
        assert await runtime.rediscover() == []
        assert list(runtime.registry.profile("discovered")) == ["boom"]
        (tmp_path / "decls.json").write_text("garbage")
        warnings = await runtime.rediscover()
        assert warnings[0].startswith("tools.discoveryCommand failed: its output is not JSON")
        assert list(runtime.registry.profile("discovered")) == []
    finally:
        await runtime.aclose()


def _ctx(root: Path, settings: Settings) -> ToolContext:
    return ToolContext(Workspace.open(root), settings)
