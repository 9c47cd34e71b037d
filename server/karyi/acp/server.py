"""`karyi acp`'s loop: the SDK's agent-side connection on stdin/stdout, until the
client closes it; then every session's runtime is closed (no process outlives it)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, cast

from acp import AgentSideConnection
from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES
from acp.interfaces import Agent
from acp.meta import AGENT_METHODS
from acp.router import MessageRouter
from acp.schema import DeleteSessionRequest, LogoutRequest
from acp.stdio import stdio_streams
from acp.utils import normalize_result

from karyi.acp.agent import KaryiAgent


def route_unrouted(conn: AgentSideConnection, agent: KaryiAgent) -> None:
    """Route `session/delete` (stable since schema 1.20) and `logout` to the agent: the
    SDK (0.12.1) has their schemas but no routes. Its router is the connection's handler."""
    router = conn._conn._handler  # the SDK keeps no public handle on its router
    if not isinstance(router, MessageRouter):
        raise TypeError("the ACP SDK's connection no longer routes through a MessageRouter")
    router.route_request(
        AGENT_METHODS["session_delete"],
        DeleteSessionRequest,
        agent,
        "delete_session",
        adapt_result=normalize_result,
    )
    router.route_request(
        AGENT_METHODS["logout"], LogoutRequest, agent, "logout", adapt_result=normalize_result
    )


async def _serve(flags: Mapping[str, Any]) -> None:
    agent = KaryiAgent(flags)
    reader, writer = await stdio_streams(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    # `session/resume` and `session/close` are stable in the protocol (schema 1.22) but
    # behind the SDK's "unstable" switch, as `session/fork` (still unstable) is.
    conn = AgentSideConnection(
        cast(Agent, agent), writer, reader, listening=False, use_unstable_protocol=True
    )
    route_unrouted(conn, agent)
    try:
        await conn.listen()
    finally:
        await asyncio.shield(conn.close())
        await agent.close()


def serve(flags: Mapping[str, Any]) -> None:
    """Serve ACP on stdio (stdout carries only the protocol; logs go to stderr)."""
    asyncio.run(_serve(flags))
