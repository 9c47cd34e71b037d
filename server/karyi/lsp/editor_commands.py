"""The agent for every LSP client: tasks as `workspace/executeCommand`.

A client without Karyi's UI runs `karyi.chat` and the task commands; it sees progress
through work-done progress, the answer through `window/showMessage`, each step in the
log, permissions through `window/showMessageRequest`, and edits through
`workspace/applyEdit`. `code_actions.py` offers the tasks where they fit.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from karyi.agent.prompting.tasks import TASKS as ALL_TASKS
from karyi.lsp.chat import run_chat
from karyi.lsp.command_args import EXPECTED, command_args
from karyi.lsp.conversation import session_for
from karyi.lsp.editor_context import uri_path
from karyi.lsp.errors import rpc
from karyi.lsp.server import KaryiServer
from karyi.lsp.wire.results import ChatResult

if TYPE_CHECKING:
    from karyi.agent.events import Event

TASKS = {task.command: task.prompt for task in ALL_TASKS} | {"karyi.init": "/init"}


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
    ls: KaryiServer, title: str, args: dict[str, Any], message: str, context: dict[str, Any] | None
) -> ChatResult:
    """Run a turn in the session `args` choose (lsp/conversation.py) with work-done
    progress whose first message names the session, then show its answer as a message."""
    session_id = session_for(ls, args)
    token = f"karyi-{uuid.uuid4().hex[:8]}"
    window = ls.client_capabilities.window
    progress = window is not None and bool(window.work_done_progress)
    if progress:
        await ls.work_done_progress.create_async(token)
        begin = types.WorkDoneProgressBegin(
            title=title, message=f"session {session_id}", cancellable=False
        )
        ls.work_done_progress.begin(token, begin)
    ls.log(f"karyi: session {session_id}")
    on_event = _progress_listener(ls, token if progress else None)
    try:
        result = await run_chat(ls, session_id, message, context, extra_listener=on_event)
    finally:
        if progress:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
    answer = result["finalAnswer"] or f"Karyi stopped: {result['stopReason'].replace('_', ' ')}"
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=answer))
    return result


def _progress_listener(ls: KaryiServer, token: str | None) -> Callable[[Event], None]:
    """Each queued tool as a progress report (when `token` is set), each result in the log."""
    from karyi.agent.events import Error, Notice, ToolDone, ToolQueued

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
            if event.result.success:  # a report after each call: editors reload files on it
                text = f"{event.call.name} done"
        elif isinstance(event, Notice | Error):
            ls.log(f"karyi: {event.to_dict().get('message', '')}")
        if text and token is not None:
            ls.work_done_progress.report(token, types.WorkDoneProgressReport(message=text))

    return on_event


@rpc
async def chat(ls: KaryiServer, *args: Any) -> ChatResult:
    """`karyi.chat`: a turn on the user's message in the workspace's current session (a
    new one with `newSession: true`), answered with `window/showMessage`."""
    a = command_args("karyi.chat", args)
    if not a.get("message"):
        raise JsonRpcInvalidParams(
            f"karyi.chat: message: the message is missing (expected {EXPECTED['karyi.chat']})"
        )
    return await _with_progress(ls, "Karyi", a, a["message"], None)


@rpc
async def new_chat(ls: KaryiServer, *args: Any) -> ChatResult | dict[str, Any]:
    """`karyi.newChat`: start a new session (the current one from now on); with a
    message, its first turn."""
    a = command_args("karyi.newChat", args)
    if a.get("message"):
        return await _with_progress(ls, "Karyi", {"newSession": True}, a["message"], None)
    session_id = session_for(ls, {"newSession": True})
    ls.window_show_message(
        types.ShowMessageParams(
            type=types.MessageType.Info, message=f"Karyi: new session {session_id}"
        )
    )
    return {"sessionId": session_id}


@rpc
async def explain_selection(ls: KaryiServer, *args: Any) -> ChatResult:
    """`karyi.explainSelection`: the task of explaining the selected code."""
    return await _run_task(ls, "karyi.explainSelection", args)


@rpc
async def fix_diagnostics(ls: KaryiServer, *args: Any) -> ChatResult:
    """`karyi.fixDiagnostics`: the task of fixing the file's reported problems."""
    return await _run_task(ls, "karyi.fixDiagnostics", args)


@rpc
async def write_tests(ls: KaryiServer, *args: Any) -> ChatResult:
    """`karyi.writeTests`: the task of writing tests for the selected code."""
    return await _run_task(ls, "karyi.writeTests", args)


@rpc
async def init(ls: KaryiServer, *args: Any) -> ChatResult:
    """`karyi.init`: the task of writing the repository's AGENTS.md (the `/init` command)."""
    return await _run_task(ls, "karyi.init", args)


async def _run_task(ls: KaryiServer, command: str, args: tuple[Any, ...]) -> ChatResult:
    a = command_args(command, args)
    context: dict[str, Any] = {"uri": a.get("uri"), "diagnostics": a.get("diagnostics") or []}
    if a.get("range") and a.get("uri"):
        context["selection"] = a["range"]
        context["text"] = _selected_text(ls, a["uri"], a["range"])
    title = f"Karyi: {command.split('.')[-1]}"
    return await _with_progress(ls, title, a, TASKS[command], context)


@rpc
async def cancel(ls: KaryiServer, *args: Any) -> dict[str, Any]:
    """`karyi.cancel`: cancel the turn of one session, or of every loaded one."""
    a = command_args("karyi.cancel", args)
    host = ls.require_host()
    if a.get("sessionId"):
        host.require(a["sessionId"])
    sessions = [a["sessionId"]] if a.get("sessionId") else [s.id for s in host.loaded()]
    return {"cancelled": [sid for sid in sessions if host.cancel(sid)]}


@rpc
async def set_mode(ls: KaryiServer, *args: Any) -> dict[str, Any]:
    """`karyi.setMode`: plan or act (docs/workflow.md#plan-mode) for one session, or for
    every loaded idle one; the mode a client without Karyi's UI can switch."""
    a = command_args("karyi.setMode", args)
    mode = a.get("mode") or a.get("message")
    if mode not in ("plan", "act"):
        raise JsonRpcInvalidParams(f"karyi.setMode: mode: expected {EXPECTED['karyi.setMode']}")
    host = ls.require_host()
    sessions = [host.session(a["sessionId"])] if a.get("sessionId") else host.loaded()
    changed = [live.id for live in sessions if not live.agent.busy]
    for live in sessions:
        if not live.agent.busy:
            live.agent.set_mode(mode)
    message = f"Karyi: {mode} mode"
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
    return {"mode": mode, "sessions": changed}


@rpc
async def accept_all(ls: KaryiServer, *args: Any) -> dict[str, Any]:
    """`karyi.acceptAll`: allow every pending permission request."""
    return _decide_all(ls, command_args("karyi.acceptAll", args), allow=True)


@rpc
async def reject_all(ls: KaryiServer, *args: Any) -> dict[str, Any]:
    """`karyi.rejectAll`: reject every pending permission request."""
    return _decide_all(ls, command_args("karyi.rejectAll", args), allow=False)


def _decide_all(ls: KaryiServer, a: dict[str, Any], *, allow: bool) -> dict[str, Any]:
    from karyi.agent.review.approval import Decision

    host = ls.require_host()
    sessions = [a["sessionId"]] if a.get("sessionId") else [s.id for s in host.loaded()]
    answered = []
    for sid in sessions:
        for pending in host.pending(sid):
            host.answer(sid, pending.request.call.id, Decision(allow))
            answered.append(pending.request.call.id)
    return {"answered": answered}
