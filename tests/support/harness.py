"""A turn-loop harness: real tools on real files, an instant scripted model, a store."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from karyi.agent.events import Event
from karyi.agent.review.approval import approve_all
from karyi.agent.session.checkpoints import Checkpoints
from karyi.agent.session.compaction import THRESHOLD, estimate_tokens
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.store import SessionStore
from karyi.agent.turn.loop import Agent
from karyi.agent.turn.spec import AgentSpec, TurnServices
from karyi.core.results import Permission, ToolResult
from karyi.protocol import get_dialect
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry
from karyi.tools.registry import Toolkit
from tests.support.scripted import ScriptedProvider

FOREVER = asyncio.Event()


class WriteNote(Tool):
    """A confirm-level tool that changes a file (checkpoints, rejection)."""

    name = "write_note"
    description = "write notes.txt"
    parameters = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    permission = Permission.CONFIRM
    changes_files = True

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        (ctx.workspace.root / "notes.txt").write_text(params["text"])
        return ToolResult.ok("written")


class Hang(Tool):
    name = "hang"
    description = "never returns"
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        await FOREVER.wait()
        return ToolResult.ok("")


def toolkit(profile: str = "karyi") -> Toolkit:
    reg = builtin_registry()
    for tool in (WriteNote(), Hang()):
        reg.register(profile, tool)
    return reg.toolkit(profile)


class Harness:
    def __init__(
        self,
        ctx: ToolContext,
        replies: list[Any],
        *,
        dialect: str = "toolsxml",
        profile: str = "karyi",
        approver: Any = approve_all,
        **spec: Any,
    ) -> None:
        self.store = SessionStore.for_workspace(ctx.workspace.root)
        self.provider = ScriptedProvider(replies)
        self.events: list[Event] = []
        self.conv = Conversation.start(self.store, dialect=dialect)
        self.agent = self.make(ctx, self.conv, dialect, profile, approver, **spec)

    def make(
        self,
        ctx: ToolContext,
        conv: Conversation,
        dialect: str,
        profile: str,
        approver: Any,
        **spec: Any,
    ) -> Agent:
        agent = Agent(
            AgentSpec("You are a test agent.", get_dialect(dialect), toolkit(profile), **spec),
            self.provider,
            ctx,
            conv,
            TurnServices(approver, checkpoints=Checkpoints(ctx.workspace.root)),
        )
        agent.events.subscribe(self.events.append)
        return agent

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def last_user(self, request: int) -> str:
        return self.provider.requests[request].messages[-1].content


async def window_with_room(ctx: ToolContext, tokens: int, **spec: Any) -> int:
    """A context window whose compaction budget leaves `tokens` beside the system prompt.

    Tests that fill the window on purpose size it from the prompt a harness's agent really
    sends, so that the prompt growing with every new tool does not change what they test.
    """
    probe = Harness(ctx, ["ok"], **spec)
    await probe.agent.run("probe")
    probe.store.close()
    system = estimate_tokens([], probe.provider.requests[0].messages[0].content)
    return int((system + tokens) / THRESHOLD)
