"""Which session a task command talks to, so a client without Karyi's UI can have a
conversation (docs/editors.md#conversation).

The server remembers the workspace's current session: the last one a command ran a turn
in. `karyi.chat` and the task commands continue it unless they name a `sessionId` or
ask for `newSession: true`; `karyi.newChat` starts one. A current session that was
deleted meanwhile is replaced by a new one.
"""

from __future__ import annotations

from typing import Any

from karyi.lsp.server import KaryiServer


def session_for(ls: KaryiServer, args: dict[str, Any]) -> str:
    """The id of the session the command's turn runs in (loaded, or created now); it is
    the workspace's current session from now on."""
    host = ls.require_host()
    wanted = args.get("sessionId") or None
    if wanted is None and not args.get("newSession"):
        wanted = _current(ls)
    live = host.session(wanted)
    ls.current_session = live.id
    return live.id


def _current(ls: KaryiServer) -> str | None:
    from karyi.agent.session.store import SessionNotFound

    current = ls.current_session
    if current is None:
        return None
    try:
        ls.require_host().require(current)
    except SessionNotFound:
        ls.current_session = None
        return None
    return current
