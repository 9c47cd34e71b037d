"""`initialize` and `initialized`: the client's options and folders noted, the answer
sent at once, the agent host built after it in a thread.

`initialize` is the one handler `karyi lsp` runs before the editor has its answer, so
this module imports nothing of the agent stack: the host (settings, workspace, tools,
providers) is built by `agent_host.py` after the client has the server's capabilities
(`KaryiServer.ready`), in a thread, so the editor's first notifications are handled
while it is built, and every Karyi request waits until it is built (the stand-ins of
handler.py await `KaryiServer.ready`).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from karyi.core.collector import fewer_collections
from karyi.core.plain_json import plain
from karyi.lsp.editor_context import uri_path
from karyi.lsp.server import KaryiServer

if TYPE_CHECKING:
    from karyi.agent.host import AgentHost

log = logging.getLogger(__name__)


def workspace_folders(params: types.InitializeParams) -> list[Path]:
    """The client's folders, first one the workspace root; the cwd when it sent none."""
    uris = [f.uri for f in params.workspace_folders or []]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    paths = [Path(uri_path(u)) for u in uris]
    if not paths and params.root_path:
        paths = [Path(params.root_path)]
    return [p.resolve() for p in paths] or [Path.cwd().resolve()]


def initialize(ls: KaryiServer, params: types.InitializeParams) -> None:
    """`initialize`: note the client's options and folders; pygls answers with the
    capabilities at once, and the host is built later (see `KaryiServer.ready`)."""
    options = plain(params.initialization_options) or {}
    ls.init_options = options if isinstance(options, dict) else {}
    karyi = ls.init_options.get("karyi") or {}
    ls.ui = bool(karyi.get("ui")) if isinstance(karyi, dict) else False
    ls.editor_diagnostics = bool(karyi.get("diagnostics")) if isinstance(karyi, dict) else False
    ls.editor_navigation = bool(karyi.get("navigation")) if isinstance(karyi, dict) else False
    folders = workspace_folders(params)
    editor = ls.init_options.get("settings") or {}
    given = editor if isinstance(editor, dict) else {}
    ls.build = lambda: _build_host(ls, folders, given)


async def initialized(ls: KaryiServer, params: types.InitializedParams) -> None:
    """`initialized`: the host is built (off the event loop: `KaryiServer.ready`), then
    the editor's settings pulled and the files watched (agent_host.py)."""
    await ls.ready()
    if ls.host is not None:  # when the build failed, agent_host.py may not even import
        from karyi.lsp.agent_host import after_initialized

        await after_initialized(ls)


async def _build_host(ls: KaryiServer, folders: list[Path], editor: dict[str, Any]) -> None:
    """Load the agent stack and build the host in a thread (agent_host.py), after the
    answer: the event loop goes on reading the editor's notifications meanwhile (pygls
    keeps its documents; `install_host` gives the store what they are by then)."""
    try:
        host = await asyncio.to_thread(_build_in_thread, ls, folders, editor)
        from karyi.lsp.agent_host import install_host

        install_host(ls, host)
    except Exception as exc:  # say why every later request fails, instead of hanging
        log.exception("karyi could not start")
        ls.startup_error = str(exc) or type(exc).__name__
        ls.log(f"karyi could not start: {ls.startup_error}", types.MessageType.Error)


def _build_in_thread(ls: KaryiServer, folders: list[Path], editor: dict[str, Any]) -> AgentHost:
    with fewer_collections():  # the agent stack lives as long as the server
        from karyi.lsp.agent_host import build_host

        return build_host(ls, folders, editor)
