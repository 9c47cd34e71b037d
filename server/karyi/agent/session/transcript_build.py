"""The transcript (agent/session/transcript.py) built from a session's stored rows.

Assistant messages are parsed again with the session's dialect, so prose, thinking and
calls come apart exactly as they did live and no markup is left. Each parsed call is
matched to the call the store recorded in the same turn (by id, or else in order: a
text dialect's ids are its own), which gives its decision and result. Results fed back
to the model, and the messages compaction wrote again, are never shown.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from karyi.agent.session.compaction import RESULTS
from karyi.agent.session.store import SessionStore, ToolCallRecord
from karyi.agent.session.store_messages import LIVE, REWOUND, MessageRow
from karyi.agent.session.transcript import (
    OUTPUT_LIMIT,
    STEER,
    STEER_PREFIX,
    SUMMARY_LIMIT,
    Block,
    CallBlock,
    CallStatus,
    FileStat,
    NoticeBlock,
    SteerBlock,
    TextBlock,
    Transcript,
    Turn,
    TurnStatus,
)
from karyi.core.images import Image
from karyi.llm.base import Message
from karyi.protocol.base import StreamParser
from karyi.protocol.calls import CallReady, DialectState, TextDelta, ToolCall

ParserFor = Callable[[DialectState], StreamParser]
"""A fresh parser of the session's dialect, sharing `state` across its messages."""

Describe = Callable[[str, dict[str, Any]], str]
"""A call in one line from its tool's name and parameters, as its card said it live."""


def _by_name(name: str, _params: dict[str, Any]) -> str:
    return name


COMPACTED_NOTE = "The history was compacted here to fit the model's context window."


def load_transcript(
    store: SessionStore, sid: str, parser_for: ParserFor, describe: Describe = _by_name
) -> Transcript:
    """The transcript of the stored session `sid` (SessionNotFound: no such session)."""
    store.require(sid)
    info = next(s for s in store.all() if s.id == sid)
    return build_transcript(
        store.message_rows(sid),
        store.calls(sid),
        store.turns(sid),
        parser_for,
        session_id=sid,
        title=info.title,
        dialect=info.dialect,
        describe=describe,
    )


def build_transcript(
    rows: list[MessageRow],
    calls: list[ToolCallRecord],
    turns: list[dict[str, Any]],
    parser_for: ParserFor,
    *,
    session_id: str,
    title: str = "",
    dialect: str = "",
    describe: Describe = _by_name,
) -> Transcript:
    """The turns of a session from its message rows, recorded calls and turn rows."""
    meta = {str(t["turn_id"]): t for t in turns}
    records: dict[str, list[ToolCallRecord]] = {}
    for record in calls:
        records.setdefault(record.turn_id, []).append(record)
    drafts: dict[str, _Draft] = {}
    current: _Draft | None = None
    state = DialectState()
    after_copy = False
    for row in rows:
        if row.copy:
            if not after_copy and current is not None:
                current.blocks.append(NoticeBlock("compacted", COMPACTED_NOTE))
            after_copy = True
            continue
        after_copy = False
        current = drafts.get(row.turn_id)
        if current is None:
            current = drafts[row.turn_id] = _Draft(
                row.turn_id, records.get(row.turn_id, []), describe
            )
        current.add(row.message, parser_for, state)
    live = {row.turn_id for row in rows if row.status == LIVE}
    rewound = {row.turn_id for row in rows if row.status == REWOUND} - live
    for turn_id, t in meta.items():  # a turn that left no message (a hook stopped it)
        if turn_id not in drafts and t.get("prompt"):
            drafts[turn_id] = _Draft(turn_id, [], describe)
    order = sorted(drafts, key=lambda tid: (tid not in meta, meta.get(tid, {}).get("started", 0)))
    return Transcript(
        session_id,
        title,
        dialect,
        tuple(drafts[tid].finish(meta.get(tid, {}), _status(tid, live, rewound)) for tid in order),
    )


@dataclass
class _Draft:
    """A turn being put together, message by message."""

    id: str
    records: list[ToolCallRecord]
    describe: Describe
    asked: Message | None = None
    blocks: list[Block] = field(default_factory=list)

    def add(self, message: Message, parser_for: ParserFor, state: DialectState) -> None:
        if message.role == "user" and message.name == STEER:
            self.blocks.append(SteerBlock(message.content.removeprefix(STEER_PREFIX)))
        elif message.role == "user" and not message.tool_call_id and message.name != RESULTS:
            # The first is the user's; later ones are the agent's own notes to the model.
            self.asked = self.asked or message
        elif message.role == "assistant":
            for thought in message.reasoning:
                if text := str(thought.get("thinking") or ""):
                    self.blocks.append(TextBlock(text, "thinking"))
            for item in _parsed(message.content, parser_for, state):
                if isinstance(item, TextBlock):
                    _append_text(self.blocks, item)
                else:
                    self.blocks.append(self._call(item))
            for native in message.tool_calls:
                call = ToolCall(0, native.name, _arguments(native.arguments), native.id)
                self.blocks.append(self._call(call))

    def _call(self, call: ToolCall) -> CallBlock:
        if call.error is not None:
            return CallBlock(call.id, call.name, dict(call.params), "invalid", error=call.error)
        record = next((r for r in self.records if r.call_id == call.id), None)
        if record is None:
            record = next((r for r in self.records if r.name == call.name), None)
        if record is None:
            return CallBlock(
                call.id, call.name, dict(call.params), "failed", error="this call was not run"
            )
        self.records.remove(record)
        return call_block(record, self.describe)

    def finish(self, meta: dict[str, Any], status: TurnStatus) -> Turn:
        blocks = [call_block(r, self.describe) for r in self.records]  # never parsed back
        checkpoint = meta.get("checkpoint")
        if checkpoint:
            said = f"Checkpoint {checkpoint} was taken before this turn changed files."
            self.blocks.insert(0, NoticeBlock("checkpoint", said))
        asked = self.asked
        prompt = str(meta.get("prompt") or (asked.content if asked else ""))
        images: tuple[Image, ...] = asked.images if asked else ()
        return Turn(
            self.id,
            prompt,
            str(meta.get("context") or ""),
            images,
            (*self.blocks, *blocks),
            meta.get("stop_reason"),
            int(meta.get("input_tokens") or 0),
            int(meta.get("output_tokens") or 0),
            checkpoint,
            status,
        )


def _parsed(
    text: str, parser_for: ParserFor, state: DialectState
) -> Iterator[TextBlock | ToolCall]:
    """One assistant message's prose and thinking as blocks, and its calls."""
    if not text:
        return
    parser = parser_for(state)
    for event in [*parser.feed(text), *parser.close()]:
        if isinstance(event, TextDelta) and event.text:
            yield TextBlock(event.text, "thinking" if event.channel == "thinking" else "text")
        elif isinstance(event, CallReady):
            yield event.call


def _status(turn_id: str, live: set[str], rewound: set[str]) -> TurnStatus:
    if turn_id in rewound:
        return "rewound"
    return "live" if turn_id in live else "compacted"


def _arguments(text: str) -> dict[str, Any]:
    """A native call's arguments as parameters (nothing when they are not an object)."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _append_text(blocks: list[Block], block: TextBlock) -> None:
    """Consecutive pieces of one channel read as one block."""
    last = blocks[-1] if blocks else None
    if isinstance(last, TextBlock) and last.channel == block.channel:
        blocks[-1] = TextBlock(last.text + block.text, block.channel)
    else:
        blocks.append(block)


def call_block(record: ToolCallRecord, describe: Describe = _by_name) -> CallBlock:
    """A recorded call as the transcript shows it."""
    result = record.result
    error = result.get("error")
    message = str(error.get("message")) if isinstance(error, dict) else None
    status: CallStatus = (
        "rejected"
        if record.decision.startswith("rejected")
        else ("done" if record.success else "failed")
    )
    display = result.get("display")
    shown = display if isinstance(display, str) and display else result.get("llm_content")
    summary = _cut(str(shown or message or ""), SUMMARY_LIMIT)
    output = _cut(str(result.get("llm_content") or message or ""), OUTPUT_LIMIT)
    return CallBlock(
        record.call_id,
        record.name,
        record.params,
        status,
        decision=record.decision,
        summary=summary,
        description=_described(describe, record.name, record.params),
        error=message,
        files=tuple(_file_stats(result)),
        output=output,
    )


def _described(describe: Describe, name: str, params: dict[str, Any]) -> str:
    """The call's one line; its name when the tool cannot say (gone, or a bad call)."""
    try:
        return describe(name, params) or name
    except Exception:
        return name


def _cut(text: str, limit: int) -> str:
    """`text`, its end cut off past `limit` characters, saying how much."""
    return text if len(text) <= limit else text[:limit] + f"\n[{len(text) - limit} more characters]"


def _file_stats(result: dict[str, Any]) -> Iterator[FileStat]:
    """The files a call changed, as its result's `metadata.files` lists them
    (agent/review/write_journal.py)."""
    metadata = result.get("metadata")
    listed = metadata.get("files") if isinstance(metadata, dict) else None
    for f in listed if isinstance(listed, list) else []:
        if isinstance(f, dict) and isinstance(f.get("path"), str):
            yield FileStat(
                f["path"],
                int(f.get("added") or 0),
                int(f.get("removed") or 0),
                bool(f.get("created")),
                bool(f.get("deleted")),
            )
