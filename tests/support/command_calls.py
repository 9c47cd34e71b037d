"""Running tool calls through the executor, as the command, secret and system tool tests
do: settings with a long inactivity window, calls by index, a recording approver."""

from __future__ import annotations

import copy
from typing import Any

from karyi.agent.review.approval import ApprovalRequest, Decision, approve_all
from karyi.agent.turn.executor import Executed, run_calls
from karyi.protocol.calls import ToolCall
from karyi.settings import DEFAULTS, Settings
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry
from karyi.tools.registry import Toolkit

SECRET = "s3cr3t-Value-42"
"""The value of the secure variable TOKEN in the `sctx` fixture's vault."""


def settings(**changes: Any) -> Settings:
    """Default settings with a 30 s inactivity window and `changes` (`"shell.x": v`)."""
    values = copy.deepcopy(DEFAULTS)
    values["shell"]["inactivitySeconds"] = 30
    for key, value in changes.items():
        head, _, tail = key.partition(".")
        if tail:
            values[head][tail] = value
        else:
            values[head] = value
    return Settings(values)


def kit(profile: str) -> Toolkit:
    """The built-in toolkit of `profile`."""
    return builtin_registry().toolkit(profile)


def call(index: int, tool: str, **params: Any) -> ToolCall:
    """A parsed call of `tool` at `index` in the reply."""
    return ToolCall(index=index, name=tool, params=params, id=f"c{index}")


class Recorder:
    """An approver that records what it was asked and answers a fixed way."""

    def __init__(self, allow: bool) -> None:
        self.allow = allow
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        """Record the request; allow or refuse as told."""
        self.asked.append(request)
        return Decision(self.allow)


async def run(
    ctx: ToolContext, profile: str, *calls: ToolCall, approver: Any = None
) -> list[Executed]:
    """Run `calls` with `profile`'s toolkit through the executor (approving all by default)."""
    return await run_calls(list(calls), kit(profile), ctx, approver or approve_all)
