"""Building one ACP session: its runtime (the session's `cwd` is the workspace root, the
client's MCP servers join the settings), its host and live session, the client's editor
and terminals. Blocking work (settings files, the session store, the model client), so
the agent runs it in a worker thread and keeps answering meanwhile
(docs/acp.md#start-up)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp.interfaces import Client
from acp.schema import ClientCapabilities

from karyi.acp.capabilities import shows_booleans
from karyi.acp.editor import client_editor
from karyi.acp.elicitation import FormAsker
from karyi.acp.errors import could_not_open, invalid
from karyi.acp.mcp import settings_entries
from karyi.acp.session import AcpSession
from karyi.acp.stored import lenient_provider
from karyi.acp.terminals import TerminalMirror
from karyi.acp.where import Where
from karyi.agent.host import AgentHost
from karyi.agent.models import ModelCatalog
from karyi.agent.runtime import Runtime
from karyi.agent.session.store import SessionNotFound
from karyi.settings import load_settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Wiring:
    """What every session of one connection shares."""

    client: Client
    caps: ClientCapabilities
    flags: Mapping[str, Any]
    catalog: ModelCatalog


def build_session(
    wiring: Wiring, where: Where, session_id: str | None, new_id: str | None = None
) -> AcpSession:
    """A stored session (`session_id`) or a new one (with the id `new_id`); RequestError
    saying why when it cannot be opened (nothing is left running then)."""
    try:
        runtime = _runtime(where, wiring.flags)
    except Exception as exc:  # settings or the workspace that cannot be read
        raise could_not_open(session_id or new_id or "", exc) from None
    elicitation = wiring.caps.elicitation
    if elicitation is not None and elicitation.form is not None:
        runtime.ask_value = FormAsker(wiring.client)  # plain values only (elicitation.py)
    try:
        editor = client_editor(wiring.client, wiring.caps, runtime.workspace.documents)
        runtime.editor = editor or runtime.editor
        host = AgentHost(
            runtime,
            provider_factory=lambda: lenient_provider(runtime, runtime.settings),
            model_factory=lambda settings: lenient_provider(runtime, settings),
            catalog=wiring.catalog,
        )
        live = host.session(session_id, new_id=new_id)
    except SessionNotFound:
        runtime.close()
        raise invalid("sessionId", f"no stored session {session_id!r} in {where.root}") from None
    except Exception as exc:
        runtime.close()
        raise could_not_open(session_id or new_id or "", exc) from None
    if editor is not None:
        editor.session_id = live.id
    terminals = None
    if wiring.caps.terminal:
        terminals = TerminalMirror(wiring.client, runtime.workspace.root, live.id)
    booleans = shows_booleans(wiring.caps)
    return AcpSession(wiring.client, runtime, host, live, editor, terminals, booleans=booleans)


def _runtime(where: Where, flags: Mapping[str, Any]) -> Runtime:
    root = where.root.resolve()
    settings = load_settings(root, flags=flags)
    for warning in settings.warnings:
        log.warning("karyi settings: %s", warning)
    given = settings_entries(where.servers)
    # The client's servers go where every server goes: the runtime's MCP manager, which
    # starts only what Settings.mcp_refusal lets through (a managed entry is never
    # replaced by a client's server of the same name).
    pinned = "mcpServers" in settings.managed
    mcp = {**given, **settings.mcp_servers} if pinned else {**settings.mcp_servers, **given}
    # Each additional directory is a workspace folder, as a repeated `--workspace`.
    folders = [p for p in dict.fromkeys(Path(d).resolve() for d in where.extra) if p != root]
    return Runtime.open(root, settings.with_values(mcpServers=mcp), folders)
