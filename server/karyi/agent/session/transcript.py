"""A session as the user saw it: its turns as data, for every front end to render.

The store keeps what the model was sent (the expanded user message, the dialect's
markup, the results fed back); a front end must show none of that. The transcript is
built once, here and in agent/session/transcript_build.py, from the store with the
session's dialect: each turn is what the user typed (with the editor's context and
pictures), then the assistant's prose and thinking, each tool call with its parameters,
the user's decision, a summary of its result and the lines it changed, and notices
(a checkpoint taken, the history compacted). The language server's `karyi/loadSession`,
ACP's `session/load` and `karyi run --session` all render this (docs/sessions.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from karyi.core.images import Image, ImageJson

SUMMARY_LIMIT = 2000
"""Characters of a call's result kept in the transcript: a preview, not the output."""

OUTPUT_LIMIT = 4000
"""Characters of a call's result text (what the model read) kept in the transcript."""

STEER = "steer"
"""`Message.name` of a message the user sent into a running turn (agent/turn/steering.py)."""

STEER_PREFIX = "[The user adds, while you work:]\n"
"""How the model reads such a message: the user's words, said mid-turn."""

CallStatus = Literal["done", "failed", "rejected", "invalid"]
NoticeKind = Literal["checkpoint", "compacted", "interrupted"]
TurnStatus = Literal["live", "compacted", "rewound"]


@dataclass(frozen=True)
class TextBlock:
    """Prose the assistant wrote, or its thinking (`channel` "thinking")."""

    text: str
    channel: Literal["text", "thinking"] = "text"
    kind: Literal["text"] = "text"


@dataclass(frozen=True)
class FileStat:
    """A file a call changed, in lines."""

    path: str
    added: int
    removed: int
    created: bool = False
    deleted: bool = False


@dataclass(frozen=True)
class CallBlock:
    """A tool call: what was asked, what the user decided, what came of it."""

    id: str
    name: str
    params: dict[str, Any]
    status: CallStatus
    decision: str = ""
    summary: str = ""
    """What the user was shown of the result (an editor's card)."""
    description: str = ""
    """The call in one line, as its card said it live (`Edit src/x.py`)."""
    error: str | None = None
    files: tuple[FileStat, ...] = ()
    output: str = ""
    """The result's text as the model read it, cut at `OUTPUT_LIMIT` (a terminal's or an
    ACP client's view of the call)."""
    kind: Literal["call"] = "call"


@dataclass(frozen=True)
class NoticeBlock:
    """Something that happened to the session rather than in the conversation."""

    notice: NoticeKind
    text: str
    kind: Literal["notice"] = "notice"


@dataclass(frozen=True)
class SteerBlock:
    """A message the user sent while the turn ran, where it reached the model."""

    text: str
    kind: Literal["steer"] = "steer"


Block = TextBlock | CallBlock | NoticeBlock | SteerBlock


@dataclass(frozen=True)
class Turn:
    """One exchange: the user's message and everything the agent did about it.

    `status` "compacted": the model no longer holds this turn as it was said (its
    history was compacted to fit the context window); "rewound": the user rewound the
    conversation to this turn or an earlier one. The user still sees both."""

    id: str
    prompt: str
    context: str = ""
    images: tuple[Image, ...] = ()
    blocks: tuple[Block, ...] = ()
    stop_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    checkpoint: str | None = None
    status: TurnStatus = "live"


@dataclass(frozen=True)
class Transcript:
    """A stored session's turns, oldest first."""

    session_id: str
    title: str
    dialect: str
    turns: tuple[Turn, ...] = field(default=())

    def last(self, n: int) -> tuple[Turn, ...]:
        """The last `n` turns (all of them when there are fewer)."""
        return self.turns[-n:] if n > 0 else ()

    def to_json(self) -> TranscriptJson:
        """The wire form: camelCase fields, pictures as their JSON, blocks by `kind`."""
        return {
            "sessionId": self.session_id,
            "title": self.title,
            "dialect": self.dialect,
            "turns": [_turn_json(t) for t in self.turns],
        }


class TextBlockJson(TypedDict):
    """Prose or thinking in a turn (`channel`)."""

    kind: Literal["text"]
    channel: Literal["text", "thinking"]
    text: str


class FileStatJson(TypedDict):
    """A file a call changed, in lines."""

    path: str
    added: int
    removed: int
    created: bool
    deleted: bool


class CallBlockJson(TypedDict):
    """A tool call: its parameters, the user's decision, a summary of its result, the
    files it changed."""

    kind: Literal["call"]
    id: str
    name: str
    description: str
    params: dict[str, Any]
    status: CallStatus
    decision: str
    summary: str
    error: str | None
    files: list[FileStatJson]
    output: str


class NoticeBlockJson(TypedDict):
    """Something that happened to the session: a checkpoint, a compaction."""

    kind: Literal["notice"]
    notice: NoticeKind
    text: str


class SteerBlockJson(TypedDict):
    """A message the user sent into the running turn, where the model got it."""

    kind: Literal["steer"]
    text: str


BlockJson = TextBlockJson | CallBlockJson | NoticeBlockJson | SteerBlockJson


class TurnJson(TypedDict):
    """One turn of a transcript (docs/sessions.md#the-transcript)."""

    id: str
    prompt: str
    context: str
    images: list[ImageJson]
    blocks: list[BlockJson]
    stopReason: str | None
    inputTokens: int
    outputTokens: int
    checkpoint: str | None
    status: TurnStatus


class TranscriptJson(TypedDict):
    """A session as the user saw it, in its wire form (docs/sessions.md)."""

    sessionId: str
    title: str
    dialect: str
    turns: list[TurnJson]


def _turn_json(turn: Turn) -> TurnJson:
    return {
        "id": turn.id,
        "prompt": turn.prompt,
        "context": turn.context,
        "images": [i.to_json() for i in turn.images],
        "blocks": [_block_json(b) for b in turn.blocks],
        "stopReason": turn.stop_reason,
        "inputTokens": turn.input_tokens,
        "outputTokens": turn.output_tokens,
        "checkpoint": turn.checkpoint,
        "status": turn.status,
    }


def _block_json(block: Block) -> BlockJson:
    if isinstance(block, TextBlock):
        return {"kind": "text", "channel": block.channel, "text": block.text}
    if isinstance(block, NoticeBlock):
        return {"kind": "notice", "notice": block.notice, "text": block.text}
    if isinstance(block, SteerBlock):
        return {"kind": "steer", "text": block.text}
    return {
        "kind": "call",
        "id": block.id,
        "name": block.name,
        "description": block.description or block.name,
        "params": block.params,
        "status": block.status,
        "decision": block.decision,
        "summary": block.summary,
        "error": block.error,
        "files": [
            {
                "path": f.path,
                "added": f.added,
                "removed": f.removed,
                "created": f.created,
                "deleted": f.deleted,
            }
            for f in block.files
        ],
        "output": block.output,
    }
