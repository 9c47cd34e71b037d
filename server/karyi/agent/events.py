"""Every step of a turn as a typed event on one stream that front ends subscribe to.

The CLI prints them, the LSP server turns them into `karyi/turnUpdate` notifications,
the gateway into server-sent events. Each event has one canonical JSON form
(`to_dict()`, with a `type` field) that all of them use.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from karyi.core.results import ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Confirmation
from karyi.tools.context import TodoItem
from karyi.workspace.editor import PlannedWrite
from karyi.workspace.hunks import HunkJson

log = logging.getLogger(__name__)

TextChannel = Literal["text", "thinking", "answer"]
HookStatus = Literal["ok", "blocked", "reported", "failed"]
MODE = {"typescript": "Mode"}
"""A session's mode, `plan` or `act` (a plain str in the agent; `Mode` on the wire)."""


class CallJson(TypedDict):
    """A tool call in an event's JSON: as the model wrote it (`error`: why it is not a
    valid call, then it is never executed)."""

    index: int
    id: str
    name: str
    params: dict[str, Any]
    error: str | None


class DraftFile(TypedDict):
    """A file of an edit still being written (`toolDraft`): its hunks so far, no whole
    texts."""

    uri: str
    path: str
    created: bool
    added: int
    removed: int
    hunks: list[HunkJson]


def call_json(call: ToolCall) -> CallJson:
    """`call`'s JSON form in events."""
    return {
        "index": call.index,
        "id": call.id,
        "name": call.name,
        "params": call.params,
        "error": call.error,
    }


def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_json") and callable(value.to_json):
        return value.to_json()
    if isinstance(value, ToolResult):
        return value.to_dict()
    if isinstance(value, ToolCall):
        return call_json(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def camel(name: str) -> str:
    """`final_answer` -> `finalAnswer`: event fields in JSON follow LSP's casing."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class Event:
    """Base of all agent events."""

    kind: str = "event"

    def to_dict(self) -> dict[str, Any]:
        """`{"type": kind, ...fields}`: event fields in camelCase; nested calls and tool
        results in their own JSON forms (a result is `ToolResult.to_dict()`)."""
        body = _jsonable(self)
        assert isinstance(body, dict)
        return {"type": self.kind, **{camel(k): v for k, v in body.items()}}


@dataclass(frozen=True)
class TurnStarted(Event):
    """A user message started a turn."""

    kind = "turnStarted"
    session_id: str
    turn_id: str
    message: str
    mode: str = field(default="act", metadata=MODE)
    """`plan` or `act` (docs/workflow.md#plan-mode)."""


@dataclass(frozen=True)
class Step(Event):
    """A model call began (step 1 is the first call of the turn)."""

    kind = "step"
    step: int
    model: str


@dataclass(frozen=True)
class Text(Event):
    """Model text: `text`, `thinking`, or `answer`."""

    kind = "text"
    text: str
    channel: TextChannel = "text"


@dataclass(frozen=True)
class ToolPending(Event):
    """The model is writing a call (parameters still streaming)."""

    kind = "toolPending"
    index: int
    name: str


@dataclass(frozen=True)
class ToolDraft(Event):
    """An edit the model is still writing, as far as it arrived (docs/protocol.md,
    "Drafts"): each file's change so far, for a preview that grows. Sent at most every
    `DRAFT_INTERVAL` seconds, once the call's file is known and its find text matches;
    `done` (no files) when the call is complete: its proposal replaces the draft."""

    kind = "toolDraft"
    index: int
    tool: str
    call_id: str
    files: tuple[PlannedWrite, ...] = field(metadata={"typescript": "DraftFile[]"})
    done: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The hunks of each file, without the whole texts a proposal carries."""
        files: list[DraftFile] = []
        for w in self.files:
            diff = w.diff()
            files.append(
                {
                    "uri": w.path.as_uri(),
                    "path": w.display,
                    "created": diff.created,
                    "added": diff.added,
                    "removed": diff.removed,
                    "hunks": [h.to_json() for h in diff.hunks],
                }
            )
        return {
            "type": self.kind,
            "index": self.index,
            "tool": self.tool,
            "callId": self.call_id,
            "done": self.done,
            "files": files,
        }


@dataclass(frozen=True)
class ToolQueued(Event):
    """A complete call, checked and scheduled."""

    kind = "toolQueued"
    call: ToolCall
    description: str


@dataclass(frozen=True)
class ToolAwaitingPermission(Event):
    """A call waits for the user's permission."""

    kind = "toolAwaitingPermission"
    call: ToolCall
    description: str
    confirmation: Confirmation | None
    reason: str = ""


@dataclass(frozen=True)
class ToolRunning(Event):
    """A call started executing."""

    kind = "toolRunning"
    call: ToolCall


@dataclass(frozen=True)
class ToolOutput(Event):
    """Live output of a running call (a command's terminal output)."""

    kind = "toolOutput"
    call_id: str
    text: str


@dataclass(frozen=True)
class ToolDone(Event):
    """A call finished (successfully or not), with its result and how long it took."""

    kind = "toolDone"
    call: ToolCall
    result: ToolResult
    decision: str
    seconds: float


@dataclass(frozen=True)
class FileChanged(Event):
    """A call changed files (on disk, or in the editor and then on disk)."""

    kind = "fileChanged"
    call: ToolCall
    files: tuple[PlannedWrite, ...]


@dataclass(frozen=True)
class ValueRequested(Event):
    """`get_value` waits for the user to give a secret (the front end asks; never the model)."""

    kind = "valueRequested"
    call_id: str
    key: str
    reason: str
    note: str
    exists: bool


@dataclass(frozen=True)
class Steered(Event):
    """A message the user sent while the turn ran reached the model, here: after the
    results of the last calls, before the next model request (docs/sessions.md#steer)."""

    kind = "steered"
    text: str


@dataclass(frozen=True)
class Notice(Event):
    """Something the user should know: retries, changed files, compaction, checkpoints."""

    kind = "notice"
    topic: str
    message: str


@dataclass(frozen=True)
class Usage(Event):
    """Token usage so far in this turn."""

    kind = "usage"
    input_tokens: int
    output_tokens: int
    cached_tokens: int = 0
    """Of the input tokens, how many were read from the provider's prompt cache."""
    turn_cost: float | None = None
    """What the turn's model calls cost so far, in USD (None: the model has no price)."""
    session_cost: float | None = None
    """What the session's model calls cost so far, this turn included, in USD."""


@dataclass(frozen=True)
class Mode(Event):
    """The session switched between `plan` and `act`; `plan` is what the next act turn
    will carry (empty: nothing)."""

    kind = "mode"
    session_id: str
    mode: str = field(metadata=MODE)
    plan: str = ""


@dataclass(frozen=True)
class Hook(Event):
    """A user-configured hook ran (docs/workflow.md#hooks). `status`: `ok`, `blocked`
    (it stopped a call or a prompt), `reported` (an afterTool hook's exit 2: its words
    go to the model), `failed` (any other exit, a timeout: the agent went on)."""

    kind = "hook"
    event: str
    command: str
    tool: str
    status: HookStatus
    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float


@dataclass(frozen=True)
class Todos(Event):
    """The model wrote its task list (`todo_write`): the whole list, as it now stands."""

    kind = "todos"
    items: tuple[TodoItem, ...]


@dataclass(frozen=True)
class Error(Event):
    """The turn could not go on (provider failure, limits); the session is intact."""

    kind = "error"
    error_kind: str
    message: str


@dataclass(frozen=True)
class TurnFinished(Event):
    """The turn ended."""

    kind = "turnFinished"
    turn_id: str
    stop_reason: str
    final_answer: str | None
    input_tokens: int = 0
    output_tokens: int = 0
    steps: int = 0
    cached_tokens: int = 0
    turn_cost: float | None = None
    session_cost: float | None = None


@dataclass(frozen=True)
class Subagent(Event):
    """An event of a subagent, run by the parent's call `call_id`, on the parent's stream.

    Call ids inside `event` are scoped by the parent call (`<callId>/<id>`), so they are
    unique in the session and are what a front end answers a nested approval with.
    """

    kind = "subagent"
    agent: str
    call_id: str
    event: Event

    def to_dict(self) -> dict[str, Any]:
        """`{"type": "subagent", "agent", "callId", "event": <the inner event's JSON>}`."""
        return {
            "type": self.kind,
            "agent": self.agent,
            "callId": self.call_id,
            "event": self.event.to_dict(),
        }


Listener = Callable[[Event], None]


@dataclass
class EventStream:
    """Fan-out of events to subscribers; a failing subscriber never stops the turn.

    `redact`, when set (the agent sets it to its vault's redactor), is applied to every
    event before any subscriber sees it: the one chokepoint between the core and every
    front end, so no secret value reaches a stream, structured fields included.
    """

    _listeners: list[Listener] = field(default_factory=list)
    redact: Callable[[Event], Event] | None = None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add a listener; returns a function that removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: Event) -> None:
        """Deliver `event` (redacted) to every listener, in subscription order."""
        if self.redact is not None:
            event = self.redact(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("event listener failed on %s", event.kind)
