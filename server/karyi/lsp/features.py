"""Every method and command the Karyi language server serves, in one table.

Each handler is a module-level function in the feature module it belongs to (lifecycle,
documents, chat, history, toolinfo, commands, code_actions); `create_server` registers
them on a `KaryiServer` through pygls's public `feature` and `command` decorators. The
methods are described in docs/protocol.md ("The language server").

Only this module imports the feature modules; they import `karyi_server.py`, never this.
Nothing here loads the agent stack: `karyi lsp` answers `initialize` before it is built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types

from karyi.lsp import (
    background_tasks,
    chat,
    code_actions,
    documents,
    editor_commands,
    history,
    lifecycle,
    models,
    own_diagnostics,
    toolinfo,
)
from karyi.lsp.server import KaryiServer

Handler = Callable[..., Any]

FEATURES: dict[str, Handler] = {
    # lifecycle.py: start-up, the editor's settings and folders, shutdown
    types.INITIALIZE: lifecycle.initialize,
    types.INITIALIZED: lifecycle.initialized,
    types.WORKSPACE_DID_CHANGE_CONFIGURATION: lifecycle.configuration_changed,
    types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS: lifecycle.folders_changed,
    types.SHUTDOWN: lifecycle.shutdown,
    # documents.py: the editor's buffers
    types.TEXT_DOCUMENT_DID_OPEN: documents.opened,
    types.TEXT_DOCUMENT_DID_CHANGE: documents.changed,
    types.TEXT_DOCUMENT_DID_CLOSE: documents.closed,
    # chat.py: turns and what the client answers during one
    "karyi/chat": chat.chat,
    "karyi/cancel": chat.cancel,
    "karyi/confirmTool": chat.confirm_tool,
    "karyi/fileDiffs": chat.file_diffs,
    "karyi/provideValue": chat.provide_value,
    "karyi/terminalInput": chat.terminal_input,
    "karyi/setMode": chat.set_mode,
    # models.py: the model picker
    "karyi/models": models.models,
    "karyi/modelState": models.model_state_of,
    "karyi/setModel": models.set_model,
    # history.py: sessions and checkpoints
    "karyi/sessions": history.sessions,
    "karyi/loadSession": history.load_session,
    "karyi/deleteSession": history.delete_session,
    "karyi/checkpoints": history.checkpoints,
    "karyi/restoreCheckpoint": history.restore_checkpoint,
    # toolinfo.py: tools, MCP servers, project rules
    "karyi/tools": toolinfo.tools,
    "karyi/restartMcpServer": toolinfo.restart_mcp_server,
    "karyi/rules": toolinfo.rules,
    "karyi/commands": toolinfo.slash_commands,
    # background_tasks.py: agents in their own worktrees (docs/parallel.md)
    "karyi/startTask": background_tasks.start_task,
    "karyi/tasks": background_tasks.tasks,
    "karyi/task": background_tasks.task,
    "karyi/answerTask": background_tasks.answer_task,
    "karyi/stopTask": background_tasks.stop_task,
    "karyi/applyTask": background_tasks.apply_task,
    "karyi/reviewTask": background_tasks.review_task,
    "karyi/keepTask": background_tasks.keep_task,
    "karyi/discardTask": background_tasks.discard_task,
    # code_actions.py: the tasks offered where they fit
    types.TEXT_DOCUMENT_CODE_ACTION: code_actions.code_actions,
    # own_diagnostics.py: what Karyi's own language servers report, pulled by the client
    types.TEXT_DOCUMENT_DIAGNOSTIC: own_diagnostics.pull,
}
"""LSP method -> handler; a handler takes the server and the params."""

FEATURE_OPTIONS: dict[str, Any] = {
    types.TEXT_DOCUMENT_CODE_ACTION: code_actions.OPTIONS,
    types.TEXT_DOCUMENT_DIAGNOSTIC: own_diagnostics.OPTIONS,
}
"""The capability options a method declares in the `initialize` result."""

COMMANDS: dict[str, Handler] = {
    # commands.py: `workspace/executeCommand` for clients without Karyi's UI
    "karyi.chat": editor_commands.chat,
    "karyi.newChat": editor_commands.new_chat,
    "karyi.explainSelection": editor_commands.explain_selection,
    "karyi.fixDiagnostics": editor_commands.fix_diagnostics,
    "karyi.writeTests": editor_commands.write_tests,
    "karyi.init": editor_commands.init,
    "karyi.cancel": editor_commands.cancel,
    "karyi.setMode": editor_commands.set_mode,
    "karyi.acceptAll": editor_commands.accept_all,
    "karyi.rejectAll": editor_commands.reject_all,
}
"""`workspace/executeCommand` command -> handler; a handler takes the server and the
command's arguments."""


def create_server() -> KaryiServer:
    """A server with every method and command of the tables registered."""
    server = KaryiServer()
    for method, handler in FEATURES.items():
        server.feature(method, FEATURE_OPTIONS.get(method))(handler)
    for name, handler in COMMANDS.items():
        server.command(name)(handler)
    return server
