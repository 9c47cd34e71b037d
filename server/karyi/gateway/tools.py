"""`biz_params.tool`: one call of the `gateway` profile, through the one executor.

The call is a `ToolCall` run by `agent.executor.run_calls`, like a call from a model:
schema validation, the permission verdict (`permissions.tools.NAME: deny`, command
rules, `shell` refused unless `gateway.enableShell`), `$KARYI{}` substitution and
redaction all apply. The approver allows: the HTTP client asked for this very call.
Calls from concurrent requests that touch the same file run one after the other, in
arrival order (the executor orders calls within one reply; this orders them across
requests), so `create_file` twice at once creates once and conflicts once.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from karyi.agent.review.approval import approve_all
from karyi.agent.runtime import Runtime
from karyi.agent.tool_context import tool_context
from karyi.agent.turn.call_order import resources_of
from karyi.agent.turn.executor import run_calls
from karyi.core.errors import ErrorCode, gateway_code
from karyi.core.results import ToolResult
from karyi.gateway.errors import TOOL_STATUS, GatewayError, error_body
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.profiles import default_toolkit
from karyi.tools.registry import Toolkit

PROFILE = "gateway"


@dataclass(frozen=True)
class ToolReply:
    """The HTTP status and body of one tool call."""

    status: int
    body: dict[str, Any]


class KeyedLocks:
    """An asyncio lock per resource key, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, keys: Iterable[str]) -> AsyncIterator[None]:
        """Hold every key's lock (taken in sorted order, so two holders never deadlock)."""
        ordered = sorted(set(keys))
        for key in ordered:
            lock, users = self._locks.get(key, (asyncio.Lock(), 0))
            self._locks[key] = (lock, users + 1)
        taken: list[asyncio.Lock] = []
        try:
            for key in ordered:
                lock = self._locks[key][0]
                await lock.acquire()
                taken.append(lock)
            yield
        finally:
            for lock in taken:
                lock.release()
            for key in ordered:
                lock, users = self._locks[key]
                if users <= 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)


def reply_for(result: ToolResult) -> ToolReply:
    """Success: the tool's own result shape (docs/gateway.md). Failure: the error envelope
    with the gateway's code, its status, the finer code as `cause`, and any partial result."""
    if result.success:
        if isinstance(result.data, dict):
            return ToolReply(200, result.data)
        return ToolReply(200, {"ok": True, "text": result.llm_content})
    error = result.error
    raw = error.code if error else ErrorCode.TOOL_ERROR.value
    message = error.message if error else result.llm_content
    code = gateway_code(raw)
    data = result.data if isinstance(result.data, dict) else None
    return ToolReply(TOOL_STATUS[ErrorCode(code)], error_body(code, message, cause=raw, data=data))


class ToolRunner:
    """Runs `biz_params.tool` calls against the runtime's workspace."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.toolkit: Toolkit = default_toolkit(runtime.registry, PROFILE)
        self.locks = KeyedLocks()

    def tools(self) -> list[Tool]:
        """The tools a request can name."""
        return list(self.toolkit)

    def enabled(self, tool: Tool) -> bool:
        """False for `shell` while the settings keep it disabled."""
        return tool.name != "shell" or self.runtime.settings.gateway.enable_shell

    def context(self, session_key: str) -> ToolContext:
        """A tool context for one request (`session_key`: whose reads and environment)."""
        return tool_context(self.runtime, session_key)

    async def run(self, name: str, params: dict[str, Any], session_key: str) -> ToolReply:
        """Run one call and shape its reply; an unknown name is `tool_not_found`."""
        tool = self.toolkit.get(name)
        if tool is None:
            raise GatewayError(ErrorCode.NOT_FOUND.value, self.toolkit.unknown_message(name))
        ctx = self.context(session_key)
        call = ToolCall(0, name, params, id=f"http-{uuid.uuid4().hex[:12]}")
        async with self.locks.hold(resources_of(tool, params, ctx)):
            executed = await run_calls([call], self.toolkit, ctx, approve_all)
        return reply_for(executed[0].result)
