"""`session/fork` (the unstable schema): a new session with every turn of another so far,
opened on this connection; the session forked is not changed (docs/acp.md#fork)."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from acp.schema import ForkSessionResponse

from karyi.acp.errors import invalid
from karyi.acp.mcp import ClientServer
from karyi.acp.opening import Openings
from karyi.acp.session_modes import session_modes
from karyi.agent.session.rewind import HistoryError
from karyi.agent.turn.timeline import fork_at

if TYPE_CHECKING:
    from karyi.acp.session import AcpSession


class Connection(Protocol):
    """What forking needs of the ACP connection (the agent in agent.py)."""

    sessions: dict[str, AcpSession]
    openings: Openings

    async def reopen(
        self, cwd: str, servers: list[ClientServer] | None, extra: list[str] | None, sid: str
    ) -> AcpSession: ...

    def later(self, job: Coroutine[Any, Any, None]) -> None: ...


async def fork_session(
    agent: Connection,
    cwd: str,
    session_id: str,
    servers: list[ClientServer] | None,
    extra: list[str] | None,
) -> ForkSessionResponse:
    """Fork `session_id` (open on this connection, or stored in `cwd`'s workspace) and
    open the fork in `cwd`. A session opened only to be forked is closed again; one in
    the middle of a turn is forked with the turns it has finished."""
    source = agent.sessions.get(session_id) or await agent.openings.wait(session_id)
    opened_here = source is None
    if source is None:
        source = await agent.reopen(cwd, [], extra, session_id)  # no MCP servers to fork
    try:
        new_id = await fork_at(source.live.agent)
    except HistoryError as exc:
        raise invalid("sessionId", str(exc)) from None
    finally:
        if opened_here:
            agent.sessions.pop(session_id, None)
            await source.close()
    fork = await agent.reopen(cwd, servers, extra, new_id)
    agent.later(fork.announce())
    return ForkSessionResponse(
        session_id=new_id, modes=session_modes(fork.mode), config_options=list(fork.options())
    )
