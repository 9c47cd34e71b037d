"""`karyi acp`'s loop: the SDK's agent-side connection on stdin/stdout, until the
client closes it; then every session's runtime is closed (no process outlives it)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, cast

from acp import run_agent
from acp.interfaces import Agent

from karyi.acp.agent import KaryiAgent


async def _serve(flags: Mapping[str, Any]) -> None:
    agent = KaryiAgent(flags)
    try:
        # The SDK routes only the methods an agent defines; the optional ones Karyi
        # leaves out (modes, forks, …) answer "method not found".
        await run_agent(cast(Agent, agent))
    finally:
        await agent.close()


def serve(flags: Mapping[str, Any]) -> None:
    """Serve ACP on stdio (stdout carries only the protocol; logs go to stderr)."""
    asyncio.run(_serve(flags))
