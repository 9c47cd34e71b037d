"""The agent for every LSP client: tasks as `workspace/executeCommand`, code actions.

A client without Karyi's UI runs `karyi.chat` and the task commands; it sees progress
through work-done progress, the answer through `window/showMessage`, each step in the
log, permissions through `window/showMessageRequest`, and edits through
`workspace/applyEdit`. `textDocument/codeAction` offers the tasks where they fit.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from karyi.lsp.chat import run_chat
from karyi.lsp.context import uri_path
from karyi.lsp.errors import rpc
from karyi.lsp.params import RANGE, plain
from karyi.lsp.server import KaryiServer

if TYPE_CHECKING:
    from karyi.agent.events import Event

TASKS = {
    "karyi.explainSelection": "Explain what the selected code does, how it fits into the file, "
    "and anything surprising about it. Do not change any file.",
    "karyi.fixDiagnostics": "Fix the problems reported in the current file (listed below), "
    "then check that they are gone.",
    "karyi.writeTests": "Write tests for the selected code in the style of the project's "
    "existing tests, then run them.",
}
TASK_ARGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "uri": {"type": "string"},
        "range": RANGE,
        "diagnostics": {"type": "array"},
        "sessionId": {"type": ["string", "null"]},
        "message": {"type": "string"},
    },
}


def _args(command: str, args: Any) -> dict[str, Any]:
    items = plain(args) or []
    first = items[0] if items else {}
    if isinstance(first, str):
        first = {"message": first}
    if not isinstance(first, dict):
        raise ValueError(f"{command}: expected one object argument")
    from karyi.core.schema import ParamValidator

    errors = ParamValidator(TASK_ARGS_SCHEMA, noun="argument").errors(first)
    if errors:
        from pygls.exceptions import JsonRpcInvalidParams

        raise JsonRpcInvalidParams(f"{command}: " + "; ".join(errors))
    return first


def _selected_text(ls: KaryiServer, uri: str, rng: dict[str, Any] | None) -> str:
    try:
        text = ls.workspace.get_text_document(uri).source
    except Exception:
        try:
            text = Path(uri_path(uri)).read_text(encoding="utf-8")
        except OSError:
            return ""
    if rng is None:
        return ""
    lines = text.splitlines(keepends=True)
    start, end = rng["start"], rng["end"]
    chunk = lines[start["line"] : end["line"] + 1]
    if not chunk:
        return ""
    chunk[-1] = (
        chunk[-1][: end["character"]]
        if start["line"] != end["line"]
        else chunk[-1][start["character"] : end["character"]]
    )
    if start["line"] != end["line"]:
        chunk[0] = chunk[0][start["character"] :]
    return "".join(chunk)


async def _with_progress(
    ls: KaryiServer,
    title: str,
    session_id: str | None,
    message: str,
    context: dict[str, Any] | None,
) -> dict[str, Any]:
    token = f"karyi-{uuid.uuid4().hex[:8]}"
    window = ls.client_capabilities.window
    progress = window is not None and bool(window.work_done_progress)
    if progress:
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=title, cancellable=False)
        )

    from karyi.agent.events import Notice, ToolDone, ToolQueued, TurnError

    def on_event(event: Event) -> None:
        text = None
        if isinstance(event, ToolQueued):
            text = event.description
        elif isinstance(event, ToolDone):
            status = (
                "done"
                if event.result.success
                else f"failed: {event.result.error.message if event.result.error else ''}"
            )
            ls.log(f"karyi: {event.call.name} {status}")
        elif isinstance(event, Notice | TurnError):
            ls.log(f"karyi: {event.to_dict().get('message', '')}")
        if text and progress:
            ls.work_done_progress.report(token, types.WorkDoneProgressReport(message=text))

    try:
        result = await run_chat(ls, session_id, message, context, extra_listener=on_event)
    finally:
        if progress:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
    answer = result["finalAnswer"] or f"Karyi stopped: {result['stopReason'].replace('_', ' ')}"
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=answer))
    return result


def register(server: KaryiServer) -> None:
    """Add the commands and the code action provider."""

    @server.command("karyi.chat")
    @rpc
    async def chat(ls: KaryiServer, *args: Any) -> dict[str, Any]:
        a = _args("karyi.chat", args)
        if not a.get("message"):
            raise ValueError("karyi.chat: the message is missing")
        return await _with_progress(ls, "Karyi", a.get("sessionId"), a["message"], None)

    def task(command: str) -> None:
        @server.command(command)
        @rpc
        async def run(ls: KaryiServer, *args: Any) -> dict[str, Any]:
            a = _args(command, args)
            context: dict[str, Any] = {
                "uri": a.get("uri"),
                "diagnostics": a.get("diagnostics") or [],
            }
            if a.get("range") and a.get("uri"):
                context["selection"] = a["range"]
                context["text"] = _selected_text(ls, a["uri"], a["range"])
            return await _with_progress(
                ls, f"Karyi: {command.split('.')[-1]}", a.get("sessionId"), TASKS[command], context
            )

    for command in TASKS:
        task(command)

    @server.command("karyi.cancel")
    @rpc
    async def cancel(ls: KaryiServer, *args: Any) -> dict[str, Any]:
        a = _args("karyi.cancel", args)
        host = ls.require_host()
        sessions = [a["sessionId"]] if a.get("sessionId") else [s.id for s in host.loaded()]
        return {"cancelled": [sid for sid in sessions if host.cancel(sid)]}

    def decide_all(command: str, allow: bool) -> None:
        @server.command(command)
        @rpc
        async def run(ls: KaryiServer, *args: Any) -> dict[str, Any]:
            a = _args(command, args)
            from karyi.agent.approval import Decision

            host = ls.require_host()
            sessions = [a["sessionId"]] if a.get("sessionId") else [s.id for s in host.loaded()]
            answered = []
            for sid in sessions:
                for pending in host.pending(sid):
                    host.answer(sid, pending.request.call.id, Decision(allow))
                    answered.append(pending.request.call.id)
            return {"answered": answered}

    decide_all("karyi.acceptAll", True)
    decide_all("karyi.rejectAll", False)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]
        ),
    )
    def code_actions(ls: KaryiServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        rng = ls.protocol._converter.unstructure(params.range)
        actions: list[types.CodeAction] = []
        if params.context.diagnostics:
            diags = ls.protocol._converter.unstructure(params.context.diagnostics)
            actions.append(
                types.CodeAction(
                    title="Fix with Karyi",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=list(params.context.diagnostics),
                    command=types.Command(
                        title="Fix with Karyi",
                        command="karyi.fixDiagnostics",
                        arguments=[{"uri": uri, "range": rng, "diagnostics": diags}],
                    ),
                )
            )
        if params.range.start != params.range.end:
            for title, command in (
                ("Ask Karyi to explain this", "karyi.explainSelection"),
                ("Ask Karyi to write tests for this", "karyi.writeTests"),
            ):
                actions.append(
                    types.CodeAction(
                        title=title,
                        kind=types.CodeActionKind.Refactor,
                        command=types.Command(
                            title=title, command=command, arguments=[{"uri": uri, "range": rng}]
                        ),
                    )
                )
        return actions
