"""Lifecycle: initialize (workspace, settings, the client's UI), configuration, shutdown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from karyi.agent.host import AgentHost
from karyi.agent.runtime import Runtime
from karyi.lsp.approvals import ask_with_message_request
from karyi.lsp.context import uri_path
from karyi.lsp.edits import LspEditor
from karyi.lsp.params import plain
from karyi.lsp.server import KaryiServer
from karyi.settings import Settings, load_settings


def workspace_folders(params: types.InitializeParams) -> list[Path]:
    """The client's folders, first one the workspace root; the cwd when it sent none."""
    uris = [f.uri for f in params.workspace_folders or []]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    paths = [Path(uri_path(u)) for u in uris]
    if not paths and params.root_path:
        paths = [Path(params.root_path)]
    return [p.resolve() for p in paths] or [Path.cwd().resolve()]


def _settings(
    server: KaryiServer, root: Path, editor: dict[str, Any], extra: list[Path]
) -> Settings:
    settings = load_settings(root, editor=editor)
    roots = settings.allowed_roots + [str(p) for p in extra if str(p) not in settings.allowed_roots]
    for warning in settings.warnings:
        server.log(f"karyi settings: {warning}", types.MessageType.Warning)
    return settings.with_values(allowedRoots=roots)


def register(server: KaryiServer) -> None:
    """Add the lifecycle handlers."""

    @server.feature(types.INITIALIZE)
    def initialize(ls: KaryiServer, params: types.InitializeParams) -> None:
        options = plain(params.initialization_options) or {}
        ls.init_options = options if isinstance(options, dict) else {}
        karyi = ls.init_options.get("karyi") or {}
        ls.ui = bool(karyi.get("ui")) if isinstance(karyi, dict) else False
        folders = workspace_folders(params)
        editor = ls.init_options.get("settings") or {}
        settings = _settings(
            ls, folders[0], editor if isinstance(editor, dict) else {}, folders[1:]
        )
        runtime = Runtime.open(folders[0], settings)
        runtime.editor = LspEditor(ls)
        ls.host = AgentHost(runtime, ask=None if ls.ui else ask_with_message_request(ls))
        if ls.ui:
            runtime.ask_value = ls.host.ask_value
        ls.log(f"karyi {ls.version}: workspace {folders[0]}, model {settings.model}")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: KaryiServer, params: types.InitializedParams) -> None:
        await refresh_configuration(ls)
        if ls.host is not None:
            await ls.host.runtime.workspace.documents.start_watching()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(
        ls: KaryiServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await refresh_configuration(ls, plain(params.settings))

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: KaryiServer, *args: Any) -> None:
        if ls.host is not None:
            await ls.host.runtime.workspace.documents.stop_watching()
            await ls.host.close()
            ls.host = None


async def refresh_configuration(ls: KaryiServer, pushed: Any = None) -> None:
    """Pull `karyi.*` settings from the client (or take pushed ones) and apply them."""
    host = ls.host
    if host is None:
        return
    editor: Any = None
    caps = ls.client_capabilities.workspace
    if caps is not None and caps.configuration:
        try:
            result = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="karyi")])
            )
            editor = plain(result[0]) if result else None
        except Exception as exc:  # a client that fails here must not take the server down
            ls.log(f"karyi: workspace/configuration failed: {exc}", types.MessageType.Warning)
    if editor is None and isinstance(pushed, dict):
        editor = pushed.get("karyi", pushed)
    if not isinstance(editor, dict) or not editor:
        return
    root = host.runtime.workspace.root
    extra = [Path(r) for r in host.runtime.settings.allowed_roots]
    host.apply_settings(_settings(ls, root, editor, extra))
