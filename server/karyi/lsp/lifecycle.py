"""`initialize`: the client's options and folders noted, the answer sent at once.

This is the one handler `karyi lsp` runs before the editor has its answer, so it
imports nothing of the agent stack: the host (settings, workspace, tools, providers) is
built by `agent_host.py` after the client has the server's capabilities
(`KaryiServer.ready`), and every Karyi request waits until it is built.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from karyi.core.plain_json import plain
from karyi.lsp.editor_context import uri_path
from karyi.lsp.server import KaryiServer

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
    folders = workspace_folders(params)
    editor = ls.init_options.get("settings") or {}
    given = editor if isinstance(editor, dict) else {}
    ls.build = lambda: _build_host(ls, folders, given)


async def _build_host(ls: KaryiServer, folders: list[Path], editor: dict[str, Any]) -> None:
    """Load the agent stack and build the host (agent_host.py), after the answer."""
    try:
        from karyi.lsp.agent_host import build_host

        await build_host(ls, folders, editor)
    except Exception as exc:  # say why every later request fails, instead of hanging
        log.exception("karyi could not start")
        ls.startup_error = str(exc) or type(exc).__name__
        ls.log(f"karyi could not start: {ls.startup_error}", types.MessageType.Error)
