"""Every method and command of lsp/features.py's table, sent malformed params: each request
gets exactly one answer, InvalidParams (-32602) naming the field; notifications get none
and leave the server serving (docs/protocol.md, "Errors")."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from karyi.core.plain_json import plain
from karyi.lsp.features import COMMANDS, FEATURES
from tests.lsp.conftest import Start, request

NOTIFICATIONS = {
    types.INITIALIZED,
    types.WORKSPACE_DID_CHANGE_CONFIGURATION,
    types.TEXT_DOCUMENT_DID_OPEN,
    types.TEXT_DOCUMENT_DID_CHANGE,
    types.TEXT_DOCUMENT_DID_CLOSE,
    types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS,
}

BAD_REQUESTS: dict[str, list[tuple[Any, str]]] = {
    # method: [(params, a word the error message must contain)]
    "karyi/chat": [
        ({}, "message"),
        ({"message": 5}, "message"),
        ("hi", "object"),
        ({"message": "hi", "images": [{"data": "iVBOR"}]}, "images"),
        ({"message": "hi", "images": "x"}, "images"),
    ],
    "karyi/cancel": [({}, "sessionId"), ({"sessionId": "nope"}, "nope")],
    "karyi/steer": [
        ({"sessionId": "s"}, "message"),
        ({"sessionId": "nope", "message": "x"}, "nope"),
    ],
    "karyi/confirmTool": [({"sessionId": "s"}, "toolCallId"), ([1], "object")],
    "karyi/fileDiffs": [({"sessionId": 1}, "sessionId")],
    "karyi/provideValue": [({"key": "K"}, "sessionId")],
    "karyi/terminalInput": [({"sessionId": "s"}, "data")],
    "karyi/sessions": [({"x": 1}, "x")],
    "karyi/loadSession": [({}, "sessionId"), ({"sessionId": "nope"}, "nope")],
    "karyi/deleteSession": [({"sessionId": ""}, "sessionId")],
    "karyi/rewind": [
        ({"sessionId": "s"}, "turnId"),
        ({"sessionId": "s", "turnId": "t", "restore": "x"}, "restore"),
    ],
    "karyi/forkSession": [
        ({"sessionId": ""}, "sessionId"),
        ({"sessionId": "s", "turnId": None}, "turnId"),
    ],
    "karyi/checkpoints": [({"sessionId": 5}, "sessionId")],
    "karyi/restoreCheckpoint": [({}, "checkpointId")],
    "karyi/tools": [({"y": True}, "y")],
    "karyi/restartMcpServer": [({"name": 3}, "name")],
    "karyi/rules": [({"sessionId": 5}, "sessionId")],
    "karyi/commands": [({"x": 1}, "x")],
    "karyi/memory": [({"x": 1}, "x")],
    "karyi/pinned": [({"x": 1}, "x")],
    "karyi/setMode": [({"mode": "fly"}, "mode"), ({"mode": "act", "plan": 3}, "plan")],
    "karyi/startTask": [({}, "task"), ({"task": "x", "ref": 3}, "ref")],
    "karyi/tasks": [({"x": 1}, "x")],
    "karyi/task": [({}, "taskId")],
    "karyi/answerTask": [({"taskId": "t"}, "allow"), ({"taskId": "t", "allow": "y"}, "allow")],
    "karyi/stopTask": [({"taskId": 1}, "taskId")],
    "karyi/applyTask": [({}, "taskId"), ({"taskId": "t", "acceptedHunks": "h1"}, "acceptedHunks")],
    "karyi/reviewTask": [({"taskId": 3}, "taskId")],
    "karyi/keepTask": [({"taskId": ""}, "taskId")],
    "karyi/discardTask": [({"id": "t"}, "taskId")],
    "karyi/models": [({"sessionId": 5}, "sessionId"), ({"sessionId": "nope"}, "nope")],
    "karyi/modelState": [({"sessionId": 5}, "sessionId"), ({"sessionId": "nope"}, "nope")],
    "karyi/setModel": [({}, "model"), ({"model": "no-prefix"}, "model"), ({"model": 3}, "model")],
    types.TEXT_DOCUMENT_CODE_ACTION: [
        ({"textDocument": 5}, "textDocument"),
        (
            {
                "textDocument": {"uri": "file:///x.py"},
                "range": {"start": {"line": "a", "character": 0}, "end": 0},
                "context": {"diagnostics": []},
            },
            "range.start.line",
        ),
    ],
    types.TEXT_DOCUMENT_DIAGNOSTIC: [({"textDocument": 5}, "textDocument")],
    types.SHUTDOWN: [],  # takes no params: anything is accepted
    types.INITIALIZE: [],  # covered by test_initialize_with_malformed_params
}

BAD_ARGUMENTS: list[Any] = [[[1, 2]], [5], [{"uri": 5}], [{"range": "x"}]]


def count_answers(client: LanguageClient) -> Counter[Any]:
    """How many answers the client received per request id."""
    answers: Counter[Any] = Counter()
    original = client.protocol._handle_response

    def counted(msg_id: Any, result: Any = None, error: Any = None) -> None:
        answers[msg_id] += 1
        original(msg_id, result, error)

    client.protocol._handle_response = counted  # type: ignore[method-assign]
    return answers


async def raw_request(client: LanguageClient, method: str, params: Any) -> Any:
    """Send `params` as they are (pygls's client would convert a standard method's)."""
    msg_id = str(uuid.uuid4())
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    client.protocol._request_futures[msg_id] = future
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
    client.protocol._send_data(message)
    return await future


async def invalid(client: LanguageClient, method: str, params: Any) -> JsonRpcException:
    """The error answering `method`; fails when the request got a result."""
    try:
        result = await asyncio.wait_for(raw_request(client, method, params), 30)
    except JsonRpcException as exc:
        return exc
    raise AssertionError(f"{method} {params!r} answered {result!r}, not an error")


def test_the_cases_cover_the_table() -> None:
    assert set(FEATURES) == set(BAD_REQUESTS) | NOTIFICATIONS


async def test_every_method_answers_malformed_params_once(lsp: Start) -> None:
    client = await lsp()
    answers = count_answers(client)
    for method, cases in BAD_REQUESTS.items():
        for params, word in cases:
            exc = await invalid(client, method, params)
            assert exc.code == -32602, (method, params, exc)
            assert word in exc.message, (method, params, exc.message)
    for method in NOTIFICATIONS - {types.INITIALIZED}:
        message = {"jsonrpc": "2.0", "method": method, "params": {"textDocument": 5}}
        client.protocol._send_data(message)
    assert plain(await request(client, "karyi/sessions", {})) == {"sessions": []}
    assert set(answers.values()) == {1}


async def test_every_command_answers_malformed_arguments_once(lsp: Start) -> None:
    client = await lsp()
    answers = count_answers(client)
    for command in COMMANDS:
        for arguments in BAD_ARGUMENTS:
            params = {"command": command, "arguments": arguments}
            exc = await invalid(client, types.WORKSPACE_EXECUTE_COMMAND, params)
            assert exc.code == -32602, (command, arguments, exc)
            assert command in exc.message, (command, arguments, exc.message)
    exc = await invalid(client, types.WORKSPACE_EXECUTE_COMMAND, {"command": "karyi.chat"})
    assert (exc.code, "message" in exc.message) == (-32602, True)
    exc = await invalid(
        client,
        types.WORKSPACE_EXECUTE_COMMAND,
        {"command": "karyi.cancel", "arguments": [{"sessionId": "nope"}]},
    )
    assert (exc.code, "nope" in exc.message) == (-32602, True)
    exc = await invalid(client, types.WORKSPACE_EXECUTE_COMMAND, {"command": 7})
    assert (exc.code, "command name '7'" in exc.message.lower()) == (-32602, True)
    assert set(answers.values()) == {1}


async def test_a_request_after_shutdown_is_answered_invalid_request(lsp: Start) -> None:
    client = await lsp()
    await client.shutdown_async(None)
    exc = await invalid(client, "karyi/sessions", {})
    assert exc.code == -32600
    client.protocol.notify(types.EXIT, None)
    await client.stop()


async def test_initialize_with_malformed_params(_isolated_config: Path) -> None:
    env = {**os.environ, "KARYI_CONFIG_DIR": str(_isolated_config)}
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "karyi", "lsp", "--stdio"], server_env=env
    )
    client = await config.start()
    try:
        exc = await invalid(client, types.INITIALIZE, {"capabilities": 5, "processId": "x"})
        assert exc.code == -32602
        assert "capabilities" in exc.message and "processId" in exc.message
    finally:
        client.protocol.notify(types.EXIT, None)
        await client.stop()
