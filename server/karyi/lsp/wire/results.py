"""What the language server sends: the custom requests' results and the notifications'
parameters, as TypedDicts of their JSON (docs/protocol.md, "The language server").

The handlers are annotated with them, so mypy checks that what they build is what is
declared here; typescript.py writes the extension's types from them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Required, TypedDict

from karyi.agent.events import Event
from karyi.agent.session.store import SessionInfo, ToolCallRecord
from karyi.core.images import ImageJson
from karyi.core.results import ToolResultJson
from karyi.llm.base import NativeCall
from karyi.lsp.wire.params import Mode
from karyi.tools.context import TodoItem
from karyi.tools.mcp.connection import ServerStatus

__all__ = ["ToolResultJson", "TurnUpdate"]


class TurnUpdate(TypedDict):
    """`karyi/turnUpdate`: one event of a session's running turn."""

    sessionId: str
    turnId: str
    event: Event


class SessionList(TypedDict):
    """`karyi/sessions`: every stored session, newest first."""

    sessions: Annotated[list[dict[str, Any]], list[SessionInfo]]


class StoredMessage(TypedDict):
    """A message of a stored session as `karyi/loadSession` shows it."""

    role: str
    content: str
    name: str | None
    toolCallId: str | None
    toolCalls: Annotated[list[dict[str, Any]], list[NativeCall]]
    images: list[ImageJson]


class LoadedSession(TypedDict):
    """`karyi/loadSession`: a session's messages, tool calls, turns and state, to show
    it again."""

    sessionId: str
    title: str
    messages: list[StoredMessage]
    calls: Annotated[list[dict[str, Any]], list[ToolCallRecord]]
    turns: list[dict[str, Any]]
    todos: Annotated[list[dict[str, Any]], list[TodoItem]]
    mode: Annotated[str, Mode]
    plan: str
    cost: float


class TurnRef(TypedDict, total=False):
    """The turn that took a checkpoint (nothing: none did)."""

    sessionId: str
    turnId: str


NO_TURN: TurnRef = {}


class CheckpointInfo(TurnRef):
    """A workspace snapshot, with the turn that took it (when one did)."""

    id: Required[str]
    label: Required[str]
    time: Required[float]


class CheckpointList(TypedDict):
    """`karyi/checkpoints`: the workspace's snapshots (a session's only, when named)."""

    checkpoints: list[CheckpointInfo]


class ToolEntry(TypedDict):
    """A tool the agent can call, and where it comes from."""

    name: str
    description: str
    source: Annotated[str, Literal["builtin", "discovered", "mcp"]]


class ToolsInfo(TypedDict):
    """`karyi/tools`: what the agent can call, and the MCP servers behind some of it."""

    tools: list[ToolEntry]
    servers: Annotated[list[dict[str, Any]], list[ServerStatus]]
    warnings: list[str]
