"""The request and response bodies of `POST /agent/process`, as pydantic models.

The request follows docs/gateway.md (`input`, `session_id`, `user_id`, `channel`, `stream`,
`biz_params.tool`), plus the gateway's answers to a paused turn
(`biz_params.permission`) and `biz_params.cancel`. Validation is strict: a wrong type is
refused with the field's path, never coerced (`"stream": "yes"` is an error, not true).
The response models are what the OpenAPI schema publishes; tests hold every response
to them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from karyi.gateway.errors import CODES

SESSION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$"
"""Client session ids: letters, digits and `._:@-`, up to 128 characters."""


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class _Open(BaseModel):
    """Message objects from agent frameworks carry ids and statuses: extra keys are kept
    out of the turn but do not fail the request."""

    model_config = ConfigDict(strict=True, extra="allow")


class TextPart(_Open):
    """One text part of a message's content (the only kind a turn accepts)."""

    type: Literal["text"]
    text: str


def _text_as_parts(value: Any) -> Any:
    return [{"type": "text", "text": value}] if isinstance(value, str) else value


class InputMessage(_Open):
    """A user message of the request's `input` list (`content` may be a plain string)."""

    role: Literal["user"] = "user"
    type: Literal["message"] = "message"
    content: Annotated[
        list[TextPart],
        BeforeValidator(_text_as_parts, json_schema_input_type=str | list[TextPart]),
    ]


class ToolRequest(_Strict):
    """`biz_params.tool`: which tool to run, and its input object."""

    name: str = Field(min_length=1, description="read_file | create_file | update_file | shell")
    input: dict[str, Any] = Field(default_factory=dict, description="the tool's parameters")


class PermissionAnswer(_Strict):
    """`biz_params.permission`: the answer to a call a paused turn is waiting on."""

    tool_call_id: str = Field(min_length=1)
    outcome: Literal["allow", "allow_always", "reject"]
    feedback: str | None = Field(None, description="told to the model with a rejection")


class BizParams(_Strict):
    """What the request asks for besides a turn on `input`."""

    tool: ToolRequest | None = None
    permission: PermissionAnswer | None = None
    cancel: bool = Field(False, description="cancel the session's running turn")
    follow: bool = Field(
        False,
        description="follow the session's latest turn again (after a lost connection): its "
        "events after the Last-Event-ID header (or those no response showed yet), then how "
        "it ends or pauses",
    )


class AgentRequest(_Strict):
    """The body of `POST /agent/process`."""

    input: list[InputMessage] = Field(default_factory=list)
    session_id: str | None = Field(None, pattern=SESSION_ID_PATTERN)
    user_id: str | None = Field(None, max_length=256)
    channel: str | None = Field(None, max_length=256)
    stream: bool = False
    biz_params: BizParams | None = None

    def text(self) -> str:
        """The text of every message in `input`, in order, as one user message."""
        parts = [part.text for message in self.input for part in message.content]
        return "\n\n".join(p for p in parts if p.strip())


# -- responses ------------------------------------------------------------------------


class ReadFileResult(_Strict):
    """The gateway's `read_file` success."""

    ok: Literal[True]
    path: str
    size: int
    truncated: bool
    content: str
    text: str


class CreateFileResult(_Strict):
    """The gateway's `create_file` success."""

    ok: Literal[True]
    path: str
    size: int
    text: str


class UpdateFileResult(_Strict):
    """The gateway's `update_file` success."""

    ok: Literal[True]
    path: str
    mode: Literal["overwrite", "append"]
    size: int
    text: str


class ShellResult(_Strict):
    """The gateway's `shell` success (`exit_code` null when a signal ended the command)."""

    ok: Literal[True]
    command: str
    exit_code: int | None
    output: str
    text: str
    sandboxed: bool


class Usage(_Strict):
    """Tokens the turn used."""

    input_tokens: int
    output_tokens: int
    cached_tokens: int = Field(
        0, description="of the input tokens, those read from the prompt cache"
    )


class OutputText(_Strict):
    """A text part of the answer."""

    type: Literal["text"]
    text: str


class OutputMessage(_Strict):
    """The answer as a message, in the shape of `input`'s messages."""

    role: Literal["assistant"]
    type: Literal["message"]
    content: list[OutputText]


class TurnFailure(_Strict):
    """Why a turn stopped early (provider failure, limits)."""

    kind: str
    message: str


StopReason = Literal["end_turn", "final_answer", "max_steps", "mistake_limit", "cancelled", "error"]


class TurnResponse(_Strict):
    """A turn that ended."""

    status: Literal["completed"]
    session_id: str
    turn_id: str
    stop_reason: StopReason
    answer: str | None
    steps: int
    usage: Usage
    output: list[OutputMessage]
    error: TurnFailure | None


class FileChangeView(_Strict):
    """One file an edit would change: its text before and after, and the diff."""

    uri: str
    path: str
    original: str
    proposed: str
    unified: str
    added: int
    removed: int
    created: bool
    deleted: bool


class ConfirmationView(_Strict):
    """What to show the user before answering: a command, a diff, a URL, changed files."""

    kind: str
    title: str
    details: str
    diff: str | None
    url: str | None
    sandboxed: bool | None = None
    """For a command: whether it runs in the OS sandbox."""
    always: bool = True
    """Whether `allow_always` is honoured (not for a command leaving the sandbox)."""
    files: list[FileChangeView] = []


class PendingCall(_Strict):
    """A call the turn is waiting on."""

    tool_call_id: str
    tool: str
    params: dict[str, Any]
    description: str
    reason: str
    confirmation: ConfirmationView | None


class PendingResponse(_Strict):
    """A turn paused on a permission: answer with `biz_params.permission`."""

    status: Literal["pending_permission"]
    session_id: str
    turn_id: str
    pending: list[PendingCall]


class ErrorDetail(_Strict):
    """The machine code, the sentence, and the finer code a tool failed with."""

    code: str = Field(json_schema_extra={"enum": list(CODES)})
    message: str
    cause: str | None = None


class ErrorResponse(_Strict):
    """Every failure: `data` is a tool's partial result (a timed-out command's output);
    `pending` lists the calls a paused session waits on."""

    ok: Literal[False]
    error: ErrorDetail
    data: dict[str, Any] | None = None
    pending: list[PendingCall] | None = None


class ToolInfo(_Strict):
    """A tool `biz_params.tool` can name."""

    name: str
    description: str
    parameters: dict[str, Any]
    enabled: bool


class Health(_Strict):
    """`GET /health`."""

    ok: Literal[True]
    version: str


TOOL_RESULTS: tuple[type[BaseModel], ...] = (
    ReadFileResult,
    CreateFileResult,
    UpdateFileResult,
    ShellResult,
)
