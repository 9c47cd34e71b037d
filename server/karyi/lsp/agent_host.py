"""The language server's agent host: built after `initialize` is answered, given the
editor's settings and folders as they change, closed at `shutdown`.

`lifecycle.py` answers `initialize` without any of this; `KaryiServer.ready` starts
the build on `initialized` (or the first request that comes before it): this module is
imported and `build_host` runs in a thread, so the event loop keeps reading the editor's
notifications meanwhile; `install_host` then hands the host to the server on the loop
(docs/architecture.md#the-front-ends).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types

from karyi.agent.host import AgentHost
from karyi.agent.runtime import Runtime
from karyi.core.plain_json import plain
from karyi.llm.factory import import_sdk
from karyi.lsp.approvals import ask_with_message_request
from karyi.lsp.background_tasks import start_recovery
from karyi.lsp.diagnostics import EditorProblems
from karyi.lsp.documents import doc_path
from karyi.lsp.editor_context import uri_path
from karyi.lsp.edits import LspEditor
from karyi.lsp.navigation import EditorNavigation
from karyi.lsp.server import KaryiServer
from karyi.settings import Settings, load_settings


def show_pinned(ls: KaryiServer, settings: Settings) -> None:
    """Tell the editor which settings the organisation's managed file pins, so a user
    who changes one of them in the editor knows why it has no effect
    (docs/security.md#managed-settings)."""
    if settings.managed:
        keys = ", ".join(settings.pinned)
        ls.log(f"karyi settings: pinned by your organisation ({settings.managed_source}): {keys}")
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"Karyi: {len(settings.pinned_values())} settings are pinned by your "
                "organisation; `karyi settings` lists them.",
            )
        )


def _settings(server: KaryiServer, root: Path, editor: dict[str, Any]) -> Settings:
    settings = load_settings(root, editor=editor)
    for warning in settings.warnings:
        server.log(f"karyi settings: {warning}", types.MessageType.Warning)
    return settings


async def after_initialized(ls: KaryiServer) -> None:
    """What `initialized` does once the host is built: pull the editor's settings, mark
    the background tasks a killed server left, watch the files."""
    await refresh_configuration(ls)
    if ls.host is not None:
        # the first session opened (History, a restart) need not wait for the model's SDK
        ls.spawn(asyncio.to_thread(import_sdk, ls.host.runtime.settings))
        start_recovery(ls)
        await ls.host.runtime.workspace.documents.start_watching()


async def configuration_changed(
    ls: KaryiServer, params: types.DidChangeConfigurationParams
) -> None:
    """`workspace/didChangeConfiguration`: apply the editor's new `karyi.*` settings."""
    await refresh_configuration(ls, plain(params.settings))


def _paths(folders: Sequence[types.WorkspaceFolder]) -> list[Path]:
    return [Path(uri_path(f.uri)).resolve() for f in folders]


async def folders_changed(ls: KaryiServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    """`workspace/didChangeWorkspaceFolders`: every folder the editor has is a root
    (docs/context.md#workspace-folders); the first one stays the root."""
    await ls.ready()
    if ls.host is None:
        return
    workspace = ls.host.runtime.workspace
    removed = set(_paths(params.event.removed))
    added = _paths(params.event.added)
    folders = [f for f in workspace.folders[1:] if f not in removed] + added
    await workspace.set_folders(folders, ls.host.runtime.settings.allowed_roots)
    names = ", ".join(workspace.policy.folder_names)
    ls.log(f"karyi: workspace folders {names}")


async def shutdown(ls: KaryiServer, *args: Any) -> None:
    """`shutdown`: stop watching, close the host (and every process it started)."""
    await ls.ready()
    if ls.host is not None:
        await ls.host.runtime.workspace.documents.stop_watching()
        await ls.host.close()
        ls.host = None


def build_host(ls: KaryiServer, folders: list[Path], editor: dict[str, Any]) -> AgentHost:
    """Load the settings and open the runtime (called in a thread: it sends nothing to
    the client and touches none of pygls's state). A failure is `lifecycle.py`'s to report."""
    settings = load_settings(folders[0], editor=editor)
    runtime = Runtime.open(folders[0], settings, folders[1:])
    runtime.editor = LspEditor(ls)
    if ls.editor_diagnostics:
        runtime.editor_problems = EditorProblems(
            ls, lambda: runtime.settings.diagnostics.wait_seconds
        )
    if ls.editor_navigation:
        runtime.editor_navigation = EditorNavigation(ls)
    host = AgentHost(runtime, ask=None if ls.ui else ask_with_message_request(ls))
    if ls.ui:
        runtime.ask_value = host.ask_value
    return host


def install_host(ls: KaryiServer, host: AgentHost) -> None:
    """On the event loop: the documents the editor opened or changed while the host was
    built go into its store as pygls holds them now (so none is lost, and the last
    change wins), then the server has its host. Nothing runs between the two."""
    runtime = host.runtime
    for problem in runtime.settings.warnings:
        ls.log(f"karyi settings: {problem}", types.MessageType.Warning)
    show_pinned(ls, runtime.settings)
    docs = runtime.workspace.documents
    for doc in list(ls.workspace.text_documents.values()):
        if (path := doc_path(doc.uri)) is not None:
            docs.open_buffer(path, doc.source, doc.version or 0)
    ls.host = host
    root, model = runtime.workspace.root, runtime.settings.model
    ls.log(f"karyi {ls.version}: workspace {root}, model {model}")
    if (recovered := runtime.workspace.take_recovered()) is not None:
        warning = types.ShowMessageParams(type=types.MessageType.Warning, message=recovered)
        ls.window_show_message(warning)  # an edit a crash cut off was rolled back


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
    initial = ls.init_options.get("settings")
    if isinstance(initial, dict):  # the pulled section overlays what initialize gave
        editor = {**initial, **editor}
    root = host.runtime.workspace.root
    settings = _settings(ls, root, editor)
    host.apply_settings(settings)
    ls.log(f"karyi: settings applied (model {settings.model}, dialect {settings.dialect})")
