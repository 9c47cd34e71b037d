"""Every method and command the Karyi language server serves, in one table.

Each handler is a module-level function in the feature module it belongs to, named here
as `module:function` (a `Handler`, lsp/handler.py); `create_server` registers them on a
`KaryiServer` through pygls's public `feature` and `command` decorators. The methods are
described in docs/protocol.md ("The language server").

No feature module is imported here: each is imported the first time one of its
handlers is called, so `karyi lsp` answers `initialize` having loaded pygls, lsprotocol,
this table with its server type and stand-ins, and `lifecycle.py` with the two helpers it
reads the options with (docs/architecture.md#the-front-ends). The capability options a
method declares live here too, for the same reason.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from karyi.lsp.handler import Handler
from karyi.lsp.server import KaryiServer

FEATURES: dict[str, Handler] = {
    # lifecycle.py: `initialize`, answered before the agent stack is loaded, and
    # `initialized`, which has the host built in a thread
    types.INITIALIZE: Handler("lifecycle:initialize", sync=True),
    types.INITIALIZED: Handler("lifecycle:initialized"),
    # agent_host.py: the editor's settings and folders, shutdown
    types.WORKSPACE_DID_CHANGE_CONFIGURATION: Handler("agent_host:configuration_changed"),
    types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS: Handler("agent_host:folders_changed"),
    types.SHUTDOWN: Handler("agent_host:shutdown"),
    # documents.py: the editor's buffers, applied in the order they come
    types.TEXT_DOCUMENT_DID_OPEN: Handler("documents:opened", sync=True),
    types.TEXT_DOCUMENT_DID_CHANGE: Handler("documents:changed", sync=True),
    types.TEXT_DOCUMENT_DID_CLOSE: Handler("documents:closed", sync=True),
    # chat.py: turns and what the client answers during one
    "karyi/chat": Handler("chat:chat"),
    "karyi/cancel": Handler("chat:cancel"),
    "karyi/steer": Handler("chat:steer"),
    "karyi/confirmTool": Handler("chat:confirm_tool"),
    "karyi/fileDiffs": Handler("chat:file_diffs"),
    "karyi/provideValue": Handler("chat:provide_value"),
    "karyi/terminalInput": Handler("chat:terminal_input"),
    "karyi/setMode": Handler("chat:set_mode"),
    # models.py: the model picker
    "karyi/models": Handler("models:models"),
    "karyi/modelState": Handler("models:model_state_of"),
    "karyi/setModel": Handler("models:set_model"),
    # history.py: sessions and checkpoints
    "karyi/sessions": Handler("history:sessions"),
    "karyi/loadSession": Handler("history:load_session"),
    "karyi/deleteSession": Handler("history:delete_session"),
    "karyi/rewind": Handler("history:rewind"),
    "karyi/forkSession": Handler("history:fork_session"),
    "karyi/checkpoints": Handler("history:checkpoints"),
    "karyi/restoreCheckpoint": Handler("history:restore_checkpoint"),
    # toolinfo.py: tools, MCP servers, project rules
    "karyi/tools": Handler("toolinfo:tools"),
    "karyi/restartMcpServer": Handler("toolinfo:restart_mcp_server"),
    "karyi/rules": Handler("toolinfo:rules"),
    "karyi/commands": Handler("toolinfo:slash_commands"),
    "karyi/memory": Handler("toolinfo:memory"),
    "karyi/pinned": Handler("toolinfo:pinned"),
    # background_tasks.py: agents in their own worktrees (docs/parallel.md)
    "karyi/startTask": Handler("background_tasks:start_task"),
    "karyi/tasks": Handler("background_tasks:tasks"),
    "karyi/task": Handler("background_tasks:task"),
    "karyi/answerTask": Handler("background_tasks:answer_task"),
    "karyi/stopTask": Handler("background_tasks:stop_task"),
    "karyi/applyTask": Handler("background_tasks:apply_task"),
    "karyi/reviewTask": Handler("background_tasks:review_task"),
    "karyi/keepTask": Handler("background_tasks:keep_task"),
    "karyi/discardTask": Handler("background_tasks:discard_task"),
    # code_actions.py: the tasks offered where they fit
    types.TEXT_DOCUMENT_CODE_ACTION: Handler("code_actions:code_actions"),
    # own_diagnostics.py: what Karyi's own language servers report, pulled by the client
    types.TEXT_DOCUMENT_DIAGNOSTIC: Handler("own_diagnostics:pull"),
}
"""LSP method -> handler; a handler takes the server and the params."""

FEATURE_OPTIONS: dict[str, Any] = {
    types.TEXT_DOCUMENT_CODE_ACTION: types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]
    ),
    types.TEXT_DOCUMENT_DIAGNOSTIC: types.DiagnosticOptions(
        identifier="karyi", inter_file_dependencies=False, workspace_diagnostics=False
    ),
}
"""The capability options a method declares in the `initialize` result: the code action
kinds code_actions.py offers, and the pull diagnostics of own_diagnostics.py."""

COMMANDS: dict[str, Handler] = {
    # editor_commands.py: `workspace/executeCommand` for clients without Karyi's UI
    "karyi.chat": Handler("editor_commands:chat"),
    "karyi.newChat": Handler("editor_commands:new_chat"),
    "karyi.explainSelection": Handler("editor_commands:explain_selection"),
    "karyi.fixDiagnostics": Handler("editor_commands:fix_diagnostics"),
    "karyi.writeTests": Handler("editor_commands:write_tests"),
    "karyi.init": Handler("editor_commands:init"),
    "karyi.cancel": Handler("editor_commands:cancel"),
    "karyi.setMode": Handler("editor_commands:set_mode"),
    "karyi.acceptAll": Handler("editor_commands:accept_all"),
    "karyi.rejectAll": Handler("editor_commands:reject_all"),
    # code_review.py: findings as diagnostics (docs/review.md#in-the-editor)
    "karyi.review": Handler("code_review:review"),
    "karyi.dismissFinding": Handler("code_review:dismiss_finding"),
}
"""`workspace/executeCommand` command -> handler; a handler takes the server and the
command's arguments."""


def create_server() -> KaryiServer:
    """A server with every method and command of the tables registered."""
    server = KaryiServer()
    for method, handler in FEATURES.items():
        server.feature(method, FEATURE_OPTIONS.get(method))(handler.stand_in())
    for name, handler in COMMANDS.items():
        server.command(name)(handler.stand_in())
    return server
