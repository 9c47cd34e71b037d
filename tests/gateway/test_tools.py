"""`biz_params.tool`: every tool's success shape (docs/gateway.md) and every error code with its
HTTP status, over HTTP to the app in-process; every response is held to the schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from karyi.agent.runtime import Runtime
from karyi.core.results import ToolResult
from karyi.gateway.app import create_app
from karyi.settings import Settings
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from tests.gateway.conftest import Make, Rig
from tests.gateway.schema_check import conforms


def error(response: httpx.Response) -> tuple[int, str]:
    """(status, error code)."""
    return response.status_code, response.json()["error"]["code"]


async def test_read_file_success_shape(rig: Rig) -> None:
    r = await rig.tool("read_file", {"path": "src/main.py"})
    assert r.status_code == 200
    assert r.json() == {
        "ok": True,
        "path": "src/main.py",
        "size": 12,
        "truncated": False,
        "content": "print('hi')\n",
        "text": "print('hi')\n",
    }


async def test_read_file_echoes_an_absolute_path_as_given(rig: Rig, ws_root: Path) -> None:
    path = str(ws_root / "README.md")
    r = await rig.tool("read_file", {"path": path})
    assert (r.status_code, r.json()["path"], r.json()["content"]) == (
        200,
        path,
        "# Demo\n\nHello.\n",
    )


async def test_read_file_truncates_at_one_mebibyte(rig: Rig, ws_root: Path) -> None:
    (ws_root / "big.txt").write_text("x" * (1024 * 1024 + 10))
    r = await rig.tool("read_file", {"path": "big.txt"})
    body = r.json()
    assert (body["size"], body["truncated"], len(body["content"])) == (
        1024 * 1024 + 10,
        True,
        1024 * 1024,
    )


async def test_create_file_success_shape(rig: Rig, ws_root: Path) -> None:
    r = await rig.tool("create_file", {"path": "notes/new.txt", "content": "héllo"})
    assert r.status_code == 200
    assert r.json() == {
        "ok": True,
        "path": "notes/new.txt",
        "size": 6,
        "text": "created notes/new.txt (6 bytes)",
    }
    assert (ws_root / "notes" / "new.txt").read_text() == "héllo"


async def test_update_file_overwrite_is_the_default(rig: Rig, ws_root: Path) -> None:
    r = await rig.tool("update_file", {"path": "README.md", "content": "new\n"})
    assert r.status_code == 200
    assert r.json() == {
        "ok": True,
        "path": "README.md",
        "mode": "overwrite",
        "size": 4,
        "text": "updated README.md with mode=overwrite",
    }
    assert (ws_root / "README.md").read_text() == "new\n"


async def test_update_file_append(rig: Rig, ws_root: Path) -> None:
    r = await rig.tool("update_file", {"path": "README.md", "content": "More.\n", "mode": "append"})
    assert r.json() == {
        "ok": True,
        "path": "README.md",
        "mode": "append",
        "size": 21,
        "text": "updated README.md with mode=append",
    }
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHello.\nMore.\n"


async def test_shell_success_shape(make: Make, ws_root: Path) -> None:
    rig = make(gateway={"enableShell": True})
    r = await rig.tool("shell", {"command": "pwd", "cwd": "src", "timeout_seconds": 20})
    assert r.status_code == 200
    body = r.json()
    assert {k: body[k] for k in ("ok", "command", "exit_code")} == {
        "ok": True,
        "command": "pwd",
        "exit_code": 0,
    }
    assert body["output"].strip() == str(ws_root / "src")
    assert body["text"].startswith(str(ws_root / "src"))


async def test_shell_reports_a_failing_command_as_a_result(make: Make) -> None:
    rig = make(gateway={"enableShell": True})
    r = await rig.tool("shell", {"command": "echo oops >&2; exit 3"})
    body = r.json()
    assert (r.status_code, body["ok"], body["exit_code"], body["output"].strip()) == (
        200,
        True,
        3,
        "oops",
    )


# -- error codes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("read_file", {}, "read_file: missing required parameter 'path'"),
        ("read_file", {"path": 3}, "read_file: path: expected string"),
        ("read_file", {"path": "a", "extra": 1}, "read_file: unknown parameter 'extra'"),
        ("create_file", {"path": "a.txt"}, "create_file: missing required parameter 'content'"),
        (
            "update_file",
            {"path": "README.md", "content": "x", "mode": "prepend"},
            "update_file: mode: expected one of 'overwrite', 'append', got 'prepend'",
        ),
        ("read_file", {"path": ""}, "path: expected a non-empty path"),
        ("read_file", {"path": "src"}, "src is a directory, not a file"),
    ],
)
async def test_invalid_tool_input_is_400(
    rig: Rig, name: str, params: dict[str, Any], message: str
) -> None:
    r = await rig.tool(name, params)
    assert error(r) == (400, "invalid_tool_input")
    assert message in r.json()["error"]["message"]


async def test_a_binary_file_is_invalid_input_with_its_cause(rig: Rig, ws_root: Path) -> None:
    (ws_root / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    r = await rig.tool("read_file", {"path": "blob.bin"})
    assert error(r) == (400, "invalid_tool_input")
    assert r.json()["error"]["cause"] == "binary_file"


async def test_forbidden_path_is_403(rig: Rig) -> None:
    r = await rig.tool("read_file", {"path": "../outside.txt"})
    assert error(r) == (403, "tool_forbidden_path")
    assert "'..' leads outside the workspace" in r.json()["error"]["message"]


async def test_missing_file_is_404(rig: Rig) -> None:
    r = await rig.tool("read_file", {"path": "nope.txt"})
    assert error(r) == (404, "tool_not_found")
    r = await rig.tool("update_file", {"path": "nope.txt", "content": "x"})
    assert r.json()["error"] == {
        "code": "tool_not_found",
        "message": "nope.txt: no such file; use create_file",
    }


async def test_unknown_tool_is_404_with_the_tools_that_exist(rig: Rig) -> None:
    r = await rig.tool("read_fil", {"path": "a"})
    assert error(r) == (404, "tool_not_found")
    assert r.json()["error"]["message"] == (
        "unknown tool 'read_fil' (did you mean 'read_file'?); "
        "available tools: read_file, create_file, update_file, shell"
    )


async def test_tools_of_other_profiles_are_unknown_here(rig: Rig) -> None:
    r = await rig.tool("write_file", {"path": "a", "content": "x"})
    assert error(r) == (404, "tool_not_found")


async def test_creating_an_existing_file_is_409_and_changes_nothing(
    rig: Rig, ws_root: Path
) -> None:
    r = await rig.tool("create_file", {"path": "README.md", "content": "x"})
    assert error(r) == (409, "tool_conflict")
    assert r.json()["error"]["message"] == "README.md already exists; use update_file"
    assert (ws_root / "README.md").read_text() == "# Demo\n\nHello.\n"


async def test_overwriting_a_file_changed_since_this_session_read_it_is_409(
    rig: Rig, ws_root: Path
) -> None:
    await rig.tool("read_file", {"path": "README.md"}, session_id="s1")
    (ws_root / "README.md").write_text("changed by someone else\n")
    r = await rig.tool("update_file", {"path": "README.md", "content": "mine\n"}, session_id="s1")
    assert error(r) == (409, "tool_conflict")
    assert (ws_root / "README.md").read_text() == "changed by someone else\n"
    other = await rig.tool("update_file", {"path": "README.md", "content": "x\n"}, session_id="s2")
    assert other.status_code == 200


async def test_shell_is_disabled_by_default(rig: Rig) -> None:
    r = await rig.tool("shell", {"command": "touch made-by-shell"})
    assert error(r) == (403, "tool_disabled")
    assert r.json()["error"] == {
        "code": "tool_disabled",
        "message": "shell is disabled on this server (settings gateway.enableShell is false)",
        "cause": "permission_denied",
    }


async def test_a_tool_denied_in_settings_is_disabled(make: Make) -> None:
    rig = make(permissions={"tools": {"create_file": "deny"}})
    r = await rig.tool("create_file", {"path": "x.txt", "content": "x"})
    assert error(r) == (403, "tool_disabled")


async def test_command_deny_rules_apply_to_the_shell(make: Make, ws_root: Path) -> None:
    rig = make(
        gateway={"enableShell": True},
        permissions={"commands": {"allow": [], "confirm": [], "deny": ["rm *"]}},
    )
    (ws_root / "keep.txt").write_text("x")
    r = await rig.tool("shell", {"command": "echo hi && rm keep.txt"})
    assert error(r) == (403, "tool_disabled")
    assert (ws_root / "keep.txt").exists()


async def test_a_timed_out_command_is_a_tool_error_with_its_output(make: Make) -> None:
    rig = make(gateway={"enableShell": True})
    r = await rig.tool("shell", {"command": "echo started; sleep 30", "timeout_seconds": 0.5})
    assert error(r) == (422, "tool_error")
    body = r.json()
    assert body["error"]["cause"] == "timeout"
    assert body["data"]["output"].strip() == "started"
    assert body["data"]["exit_code"] is None


async def test_a_cwd_outside_the_workspace_is_forbidden(make: Make) -> None:
    rig = make(gateway={"enableShell": True})
    r = await rig.tool("shell", {"command": "pwd", "cwd": "/etc"})
    assert error(r) == (403, "tool_forbidden_path")


class Boom(Tool):
    """A tool that breaks while executing (a bug in a tool, an OS failure)."""

    name = "boom"
    description = "breaks"
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        raise OSError(28, "No space left on device")


async def test_a_tool_that_fails_while_executing_is_422_not_500(ws_root: Path) -> None:
    runtime = Runtime.open(ws_root, Settings())
    runtime.registry.register("gateway", Boom())
    app = create_app(runtime)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        body = {"biz_params": {"tool": {"name": "boom", "input": {}}}}
        r = await client.post("/agent/process", json=body)
    await app.state.gateway.close()
    conforms(app.openapi(), r)
    assert error(r) == (422, "tool_error")
    assert r.json()["error"]["message"] == (
        "boom failed: OSError: [Errno 28] No space left on device"
    )


async def test_secure_variables_are_substituted_and_redacted(rig: Rig, ws_root: Path) -> None:
    rig.runtime.vault.remember("DB_PASSWORD", "hunter2-very-secret")
    r = await rig.tool("create_file", {"path": "env.txt", "content": "pw=$KARYI{DB_PASSWORD}\n"})
    assert r.status_code == 200
    assert (ws_root / "env.txt").read_text() == "pw=hunter2-very-secret\n"
    r = await rig.tool("read_file", {"path": "env.txt"})
    assert r.json()["content"] == "pw=$KARYI{DB_PASSWORD}\n"
    assert "hunter2" not in r.text


async def test_an_unknown_secure_variable_is_invalid_input(rig: Rig, ws_root: Path) -> None:
    r = await rig.tool("create_file", {"path": "env.txt", "content": "$KARYI{NOPE}"})
    assert error(r) == (400, "invalid_tool_input")
    assert not (ws_root / "env.txt").exists()


async def test_the_tool_list_says_which_are_enabled(rig: Rig) -> None:
    r = await rig.client.get("/agent/tools")
    assert r.status_code == 200
    listed = {t["name"]: t["enabled"] for t in r.json()}
    assert listed == {"read_file": True, "create_file": True, "update_file": True, "shell": False}
    conforms(rig.openapi, r, "/agent/tools")


async def test_invalid_unicode_in_a_tool_input_is_a_precise_400(rig: Rig) -> None:
    body = {
        "input": [],
        "biz_params": {"tool": {"name": "read_file", "input": {"path": "a\ud800"}}},
    }
    r = await rig.send(json.dumps(body).encode())  # ASCII JSON with a \\ud800 escape
    assert (r.status_code, r.json()["error"]) == (
        400,
        {
            "code": "invalid_request",
            "message": "biz_params.tool.input.path: the string holds a lone surrogate "
            "(not valid Unicode)",
        },
    )
