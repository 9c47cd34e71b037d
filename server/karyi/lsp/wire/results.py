"""What the language server sends: the custom requests' results and the notifications'
parameters, as TypedDicts of their JSON (docs/protocol.md, "The language server").

The handlers are annotated with them, so mypy checks that what they build is what is
declared here; `result_types` reads which method answers which from those annotations,
and typescript.py writes the extension's types from them.
"""

from __future__ import annotations

import functools
import typing
from typing import Annotated, Any, Literal, Required, TypedDict

from karyi.agent.background.records import TaskRecord
from karyi.agent.events import Event
from karyi.agent.prompting.memory_view import MemoryFileJson
from karyi.agent.prompting.rules import RuleJson
from karyi.agent.prompting.slash_commands import SlashCommandJson
from karyi.agent.session.store import SessionInfo
from karyi.agent.session.transcript import TranscriptJson
from karyi.core.results import ToolResultJson
from karyi.lsp.wire.params import METHODS, Mode
from karyi.settings.plugins import PluginJson
from karyi.tools.context import TodoItem
from karyi.tools.mcp.status import ServerStatus
from karyi.tools.skill_files import SkillJson
from karyi.workspace.editor import FileProposalJson

__all__ = ["ToolResultJson", "TurnUpdate"]


class TurnUpdate(TypedDict):
    """`karyi/turnUpdate`: one event of a session's running turn."""

    sessionId: str
    turnId: str
    event: Annotated[dict[str, Any], Event]


class TerminalOutput(TypedDict):
    """`karyi/terminalOutput`: what the agent's terminal printed (docs/protocol.md)."""

    sessionId: str
    data: str


class ModeState(TypedDict):
    """`karyi/setMode`: the session's mode now, and the plan its next act turn carries."""

    sessionId: str
    mode: Annotated[str, Mode]
    plan: str


class Acknowledged(TypedDict):
    """`karyi/confirmTool`, `karyi/provideValue`, `karyi/terminalInput`: the answer was
    taken (always `ok: true`; a refusal is an error instead)."""

    ok: bool


class CallDiffs(TypedDict):
    """The files one tool call changes (or would change), as edit proposals."""

    toolCallId: str
    files: list[FileProposalJson]


class FileDiffs(TypedDict):
    """`karyi/fileDiffs`: the calls' file changes waiting for approval, and those the
    session applied (the latest ones)."""

    pending: list[CallDiffs]
    applied: list[CallDiffs]


class Cancelled(TypedDict):
    """`karyi/cancel`: whether a running turn was told to stop."""

    cancelled: bool


class Restored(TypedDict):
    """`karyi/restoreCheckpoint`: the checkpoint put back, and the one taken just before
    (to undo the restore with)."""

    restored: str
    undoCheckpoint: str


class ChatUsage(TypedDict):
    """The tokens of a turn, and what it cost in USD (null: the model has no price)."""

    inputTokens: int
    outputTokens: int
    cachedTokens: int
    cost: float | None


class ChatResult(TypedDict):
    """`karyi/chat`: how the turn ended (its events came as `karyi/turnUpdate`s).
    `unsent`: what `karyi/steer` sent into the turn that it ended before reading; send
    it as the next message."""

    sessionId: str
    mode: Annotated[str, Mode]
    turnId: str
    stopReason: str
    finalAnswer: str | None
    usage: ChatUsage
    unsent: list[str]


class ModelState(TypedDict):
    """The session's model and its context use (`karyi/modelState`, `karyi/setModel`);
    `sessionId` null: no session yet (the configured model)."""

    sessionId: str | None
    model: str
    contextWindow: int
    contextUsed: int
    acceptsImages: bool


class ModelEntry(TypedDict):
    """A model the picker offers, and where it was found."""

    id: str
    source: Annotated[str, Literal["settings", "server"]]


class ModelList(ModelState):
    """`karyi/models`: the models on offer (docs/models.md#the-model-picker)."""

    models: list[ModelEntry]
    note: str


class SessionList(TypedDict):
    """`karyi/sessions`: every stored session, newest first."""

    sessions: Annotated[list[dict[str, Any]], list[SessionInfo]]


class LoadedSession(TypedDict):
    """`karyi/loadSession`: a session as the user saw it (its transcript,
    docs/sessions.md) and its state: the task list, the mode, the plan, the cost."""

    sessionId: str
    title: str
    transcript: TranscriptJson
    todos: Annotated[list[dict[str, Any]], list[TodoItem]]
    mode: Annotated[str, Mode]
    plan: str
    cost: float


class RewindFile(TypedDict):
    """A file a rewind of the code would change: `effect` on it, and whether a rewound
    call changed it (else it is the user's, kept unless named in `overwrite`)."""

    path: str
    effect: Literal["modified", "created", "deleted"]
    byAgent: bool


class RewindResult(TypedDict):
    """`karyi/rewind`: what the rewind does (`dryRun`) or did.

    `prompt` is the message rewound to, for the input; `turns` how many turns leave the
    conversation; `checkpoint` the snapshot the code goes back to (null: nothing to
    restore); `restored` and `kept` the files put back and the user's files left as they
    are; `undoCheckpoint` the snapshot taken just before (null: the code was not touched)."""

    sessionId: str
    turnId: str
    prompt: str
    turns: int
    checkpoint: str | None
    files: list[RewindFile]
    done: bool
    conversation: bool
    restored: list[str]
    kept: list[str]
    undoCheckpoint: str | None


class Forked(TypedDict):
    """`karyi/forkSession`: the new session's id and title."""

    sessionId: str
    title: str


class TurnRef(TypedDict, total=False):
    """The turn that took a checkpoint (nothing: none did)."""

    sessionId: str
    turnId: str


NO_TURN: TurnRef = {}


class CheckpointInfo(TurnRef):
    """A workspace snapshot, with the turn that took it (when one did)."""

    id: Required[str]
    label: Required[str]
    time: Required[float]


class Deleted(TypedDict):
    """`karyi/deleteSession`: the session forgotten and deleted from the store."""

    deleted: str


class CheckpointList(TypedDict):
    """`karyi/checkpoints`: the workspace's snapshots (a session's only, when named)."""

    checkpoints: list[CheckpointInfo]


class ToolEntry(TypedDict):
    """A tool the agent can call, and where it comes from."""

    name: str
    description: str
    source: Annotated[str, Literal["builtin", "discovered", "mcp"]]


class ToolsInfo(TypedDict):
    """`karyi/tools`: what the agent can call, the MCP servers behind some of it, the
    skills it may load and the installed plugins (docs/extensions.md)."""

    tools: list[ToolEntry]
    servers: Annotated[list[dict[str, Any]], list[ServerStatus]]
    skills: list[SkillJson]
    plugins: list[PluginJson]
    warnings: list[str]


class SlashCommandList(TypedDict):
    """`karyi/commands`: the slash commands a message may start with."""

    commands: list[Annotated[SlashCommandJson, SlashCommand]]


class SlashCommand(SlashCommandJson):
    """A slash command a message may start with (docs/workflow.md)."""

    scope: Annotated[str, Literal["builtin", "workspace", "user"]]


class RuleList(TypedDict):
    """`karyi/rules`: the rule files in force for a session (or for a new one)."""

    rules: list[Annotated[RuleJson, RuleInfo]]


class RuleInfo(RuleJson):
    """A project rule file in force (docs/context.md#rules)."""

    scope: Annotated[str, Literal["user", "project", "folder", "memory", "auto memory"]]


class MemoryFileList(TypedDict):
    """`karyi/memory`: the memory files `/memory` shows and opens (docs/extensions.md#memory)."""

    files: list[Annotated[MemoryFileJson, MemoryFile]]


class MemoryFile(MemoryFileJson):
    """A memory file, whether or not it exists yet."""

    scope: Annotated[str, Literal["user", "workspace", "auto"]]


class PinnedSettings(TypedDict):
    """`karyi/pinned`: the settings the organisation's managed file pins
    (docs/security.md#managed-settings); an empty list without one."""

    file: str
    settings: list[PinnedSetting]


class PinnedSetting(TypedDict):
    """One pinned setting: the dotted key and its managed value as JSON text."""

    key: str
    value: str


class TaskList(TypedDict):
    """`karyi/tasks`: every background task's record (docs/parallel.md)."""

    tasks: Annotated[list[dict[str, Any]], list[TaskRecord]]


class FileTexts(TypedDict):
    """A file a task changed, before and after (null: it did not exist on that side)."""

    path: str
    uri: str
    before: str | None
    after: str | None


class TaskDetail(TypedDict):
    """`karyi/task`: the record (its keys too) with its diff and each changed file
    before and after, for the editor's per-hunk review."""

    diff: str
    fileTexts: list[FileTexts]


TaskJson = Annotated[dict[str, Any], TaskRecord]
"""A task's record as its `to_dict()` makes it: `karyi/startTask`, `karyi/stopTask`,
`karyi/keepTask` and `karyi/discardTask` answer with it (docs/protocol.md's `Task`)."""

McpServerJson = Annotated[dict[str, Any], ServerStatus]
"""`karyi/restartMcpServer`: the server's state after the restart."""


class Answered(TypedDict):
    """`karyi/answerTask`: the waiting task that was given its answer (it resumes)."""

    answered: str


class TaskReview(TypedDict):
    """`karyi/reviewTask`: each changed file as the edit proposal applying the task would
    make (the merge with the working tree as it is now), for the per-hunk review; `notes`
    name the files left out."""

    task: TaskJson
    files: list[FileProposalJson]
    notes: list[str]


class ApplyResult(TypedDict):
    """`karyi/applyTask`: what the three-way merge did."""

    task: TaskJson
    merged: list[str]
    conflicts: list[str]
    notes: list[str]


EXTENDS: dict[type, type] = {TaskDetail: TaskRecord}
"""Results whose JSON also has every key of another type's (written `extends` in
TypeScript; in Python the handler merges the two)."""


@functools.cache
def result_types() -> dict[str, Any]:
    """Every request's result type by method, in the order of params.METHODS: the return
    annotation of its handler in lsp/features.py's table, the one place it is written
    (the extension's `Results`, what `KaryiServer.request` resolves to, and what
    tests/lsp check the JSON against). Importing it loads every handler's module."""
    from karyi.lsp.features import FEATURES  # the table, whose handlers import this module

    def returns(method: str) -> Any:
        return typing.get_type_hints(FEATURES[method].load(), include_extras=True)["return"]

    return {method: returns(method) for method, cls in METHODS.values() if cls is not None}
