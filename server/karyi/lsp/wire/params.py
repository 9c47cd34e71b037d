"""Parameters of Karyi's custom LSP methods (docs/protocol.md, "The language server").

Attribute names are the JSON names in snake_case (`session_id` is `sessionId`). A field
without a default is required; `X | None` may be null unless its metadata says
`nullable: False` (then it may only be left out); `min_length` and `minimum` are checked
too, and a class with `closed = True` takes no other fields (a method's parameters never
do).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import attrs

Mode = Literal["plan", "act"]
ImageType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]
ConfirmOutcome = Literal["allowOnce", "allowAlways", "reject", "rejectAlways"]
Scope = Literal["session", "workspace", "user"]
Restore = Literal["code", "conversation", "both"]

NONEMPTY: dict[str, Any] = {"min_length": 1}
OMIT_ONLY: dict[str, Any] = {"nullable": False}
"""Optional but never null: leave it out instead."""


@attrs.frozen(kw_only=True)
class Position:
    """A position in a document (LSP: zero-based line, UTF-16 character)."""

    line: int = attrs.field(metadata={"minimum": 0})
    character: int = attrs.field(metadata={"minimum": 0})


@attrs.frozen(kw_only=True)
class Range:
    """A range in a document (LSP)."""

    start: Position
    end: Position


@attrs.frozen(kw_only=True)
class ChatContext:
    """What the editor shows the agent with a message: the file, the selection and its
    text, diagnostics, mentioned files."""

    uri: str | None = attrs.field(default=None, metadata=OMIT_ONLY)
    selection: Range | None = attrs.field(default=None, metadata=OMIT_ONLY)
    text: str | None = attrs.field(default=None, metadata=OMIT_ONLY)
    diagnostics: list[Any] | None = attrs.field(default=None, metadata=OMIT_ONLY)
    files: list[str] | None = attrs.field(default=None, metadata=OMIT_ONLY)


@attrs.frozen(kw_only=True)
class ImageParam:
    """A picture sent with a message (docs/images.md): base64 `data`; its type is read
    from its bytes, `mimeType` only has to agree."""

    closed: ClassVar[bool] = True
    mime_type: ImageType | None = attrs.field(default=None, metadata=OMIT_ONLY)
    data: str = attrs.field(metadata=NONEMPTY)
    name: str | None = attrs.field(default=None, metadata=OMIT_ONLY)


@attrs.frozen(kw_only=True)
class ChatParams:
    """`karyi/chat`: run a turn (in a new session without `sessionId`)."""

    session_id: str | None = None
    message: str = attrs.field(metadata=NONEMPTY)
    mode: Mode | None = attrs.field(default=None, metadata=OMIT_ONLY)
    plan: str | None = None
    images: list[ImageParam] | None = attrs.field(
        default=None, metadata={"nullable": False, "max_items": 8}
    )
    context: ChatContext | None = None


@attrs.frozen(kw_only=True)
class SteerParams:
    """`karyi/steer`: a message into the session's running turn, read by the model at
    its next tool boundary (docs/sessions.md#steer)."""

    session_id: str = attrs.field(metadata=NONEMPTY)
    message: str = attrs.field(metadata=NONEMPTY)


@attrs.frozen(kw_only=True)
class CancelParams:
    """`karyi/cancel`: end the session's running turn."""

    session_id: str = attrs.field(metadata=NONEMPTY)


@attrs.frozen(kw_only=True)
class SetModelParams:
    """`karyi/setModel`: the session's model from its next turn (docs/models.md#picker)."""

    session_id: str | None = None
    model: str = attrs.field(metadata={"pattern": "^[A-Za-z][\\w-]*:.+$"})


@attrs.frozen(kw_only=True)
class SetModeParams:
    """`karyi/setMode`: plan or act, optionally with the plan the next act turn carries."""

    session_id: str | None = None
    mode: Mode
    plan: str | None = None


@attrs.frozen(kw_only=True)
class ModifiedContent:
    """The user's own final text of one file of a proposal (`uri` may be its path)."""

    closed: ClassVar[bool] = True
    uri: str = attrs.field(metadata=NONEMPTY)
    text: str


@attrs.frozen(kw_only=True)
class DocumentVersion:
    """A document as the client holds it when it sends the request that names it."""

    closed: ClassVar[bool] = True
    uri: str = attrs.field(metadata=NONEMPTY)
    version: int


@attrs.frozen(kw_only=True)
class ConfirmParams:
    """`karyi/confirmTool`: the user's answer to a permission question."""

    session_id: str = attrs.field(metadata=NONEMPTY)
    tool_call_id: str = attrs.field(metadata=NONEMPTY)
    outcome: ConfirmOutcome
    scope: Scope | None = attrs.field(default=None, metadata=OMIT_ONLY)
    accepted_hunks: list[str] | None = None
    feedback: str | None = None
    modified_content: list[ModifiedContent] | None = None
    documents: list[DocumentVersion] | None = None
    """The proposal's files as the client holds them once it took its preview out: the
    server waits until it has seen these versions before it runs the tool."""


@attrs.frozen(kw_only=True)
class FileDiffsParams:
    """`karyi/fileDiffs`: the diffs the session's calls applied (one call's, or all)."""

    session_id: str = attrs.field(metadata=NONEMPTY)
    tool_call_id: str | None = None


@attrs.frozen(kw_only=True)
class ProvideValueParams:
    """`karyi/provideValue`: a secret value the agent asked for (null: refused)."""

    session_id: str = attrs.field(metadata=NONEMPTY)
    key: str = attrs.field(metadata=NONEMPTY)
    value: str | None = None
    save: bool | None = attrs.field(default=None, metadata=OMIT_ONLY)
    note: str | None = None


@attrs.frozen(kw_only=True)
class NoParams:
    """A method that takes no parameters (`{}`)."""


@attrs.frozen(kw_only=True)
class SessionParams:
    """A method about one stored session."""

    session_id: str = attrs.field(metadata=NONEMPTY)


@attrs.frozen(kw_only=True)
class RewindParams:
    """`karyi/rewind`: take a session back to before one of its turns (docs/sessions.md#rewind).

    `restore`: the code, the conversation or both; `overwrite`: files no rewound call
    changed that may be put back all the same (else they are kept); `dryRun`: only say
    what it would do."""

    session_id: str = attrs.field(metadata=NONEMPTY)
    turn_id: str = attrs.field(metadata=NONEMPTY)
    restore: Restore = "both"
    overwrite: list[str] = attrs.field(factory=list)
    dry_run: bool = False


@attrs.frozen(kw_only=True)
class ForkSessionParams:
    """`karyi/forkSession`: a new session with the turns up to and including `turnId`
    (left out: every turn; docs/sessions.md#fork)."""

    session_id: str = attrs.field(metadata=NONEMPTY)
    turn_id: str | None = attrs.field(default=None, metadata=OMIT_ONLY)


@attrs.frozen(kw_only=True)
class OptionalSessionParams:
    """A method about the workspace, or one session of it."""

    session_id: str | None = None


@attrs.frozen(kw_only=True)
class RestoreCheckpointParams:
    """`karyi/restoreCheckpoint`: put the workspace back as a checkpoint holds it."""

    checkpoint_id: str = attrs.field(metadata=NONEMPTY)


@attrs.frozen(kw_only=True)
class RestartMcpServerParams:
    """`karyi/restartMcpServer`: start one MCP server again."""

    name: str = attrs.field(metadata=NONEMPTY)


@attrs.frozen(kw_only=True)
class TerminalInputParams:
    """`karyi/terminalInput`: keys the user typed into the agent's terminal."""

    session_id: str = attrs.field(metadata=NONEMPTY)
    data: str


@attrs.frozen(kw_only=True)
class StartTaskParams:
    """`karyi/startTask`: a background task in its own worktree (docs/parallel.md)."""

    task: str = attrs.field(metadata=NONEMPTY)
    ref: str | None = None
    check: str | None = None
    model: str | None = None


@attrs.frozen(kw_only=True)
class TaskParams:
    """A method about one background task (its id, or a unique prefix of it)."""

    task_id: str = attrs.field(metadata=NONEMPTY)


@attrs.frozen(kw_only=True)
class ApplyTaskParams:
    """`karyi/applyTask`: the task's changes into the working tree; with `acceptedHunks`
    or `modifiedContent`, the answer to its per-hunk review (`karyi/reviewTask`)."""

    task_id: str = attrs.field(metadata=NONEMPTY)
    accepted_hunks: list[str] | None = None
    modified_content: list[ModifiedContent] | None = None


@attrs.frozen(kw_only=True)
class AnswerTaskParams:
    """`karyi/answerTask`: the user's answer to the question a waiting task asks."""

    task_id: str = attrs.field(metadata=NONEMPTY)
    allow: bool
    feedback: str | None = None


METHODS: dict[str, tuple[str, type | None]] = {
    "chat": ("karyi/chat", ChatParams),
    "cancel": ("karyi/cancel", CancelParams),
    "steer": ("karyi/steer", SteerParams),
    "models": ("karyi/models", OptionalSessionParams),
    "modelState": ("karyi/modelState", OptionalSessionParams),
    "setModel": ("karyi/setModel", SetModelParams),
    "confirmTool": ("karyi/confirmTool", ConfirmParams),
    "fileDiffs": ("karyi/fileDiffs", FileDiffsParams),
    "provideValue": ("karyi/provideValue", ProvideValueParams),
    "sessions": ("karyi/sessions", NoParams),
    "loadSession": ("karyi/loadSession", SessionParams),
    "deleteSession": ("karyi/deleteSession", SessionParams),
    "rewind": ("karyi/rewind", RewindParams),
    "forkSession": ("karyi/forkSession", ForkSessionParams),
    "checkpoints": ("karyi/checkpoints", OptionalSessionParams),
    "restoreCheckpoint": ("karyi/restoreCheckpoint", RestoreCheckpointParams),
    "tools": ("karyi/tools", NoParams),
    "rules": ("karyi/rules", OptionalSessionParams),
    "diagnostics": ("karyi/diagnostics", None),
    "navigate": ("karyi/navigate", None),
    "restartMcpServer": ("karyi/restartMcpServer", RestartMcpServerParams),
    "terminalInput": ("karyi/terminalInput", TerminalInputParams),
    "setMode": ("karyi/setMode", SetModeParams),
    "commands": ("karyi/commands", NoParams),
    "memory": ("karyi/memory", NoParams),
    "pinned": ("karyi/pinned", NoParams),
    "startTask": ("karyi/startTask", StartTaskParams),
    "tasks": ("karyi/tasks", NoParams),
    "task": ("karyi/task", TaskParams),
    "answerTask": ("karyi/answerTask", AnswerTaskParams),
    "stopTask": ("karyi/stopTask", TaskParams),
    "applyTask": ("karyi/applyTask", ApplyTaskParams),
    "reviewTask": ("karyi/reviewTask", TaskParams),
    "keepTask": ("karyi/keepTask", TaskParams),
    "discardTask": ("karyi/discardTask", TaskParams),
    "taskUpdate": ("karyi/taskUpdate", None),
    "turnUpdate": ("karyi/turnUpdate", None),
    "terminalOutput": ("karyi/terminalOutput", None),
}
"""Every custom method by its short name: its LSP name and, for a request the client
sends, its parameters (None: the server sends it, its shape is in `protocol/index.ts`)."""
