"""`session/load`: a stored session told again as `session/update`s, before the load
answers, so the editor shows the conversation the model continues.

The store is already redacted (agent/session/store.py). A user message is shown as sent; an
assistant message is parsed again with the session's dialect, so the editor sees the
prose and the thinking, and each call as a finished tool call with its stored result
(never the dialect's markup).
"""

from __future__ import annotations

from collections.abc import Iterator

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_user_message_text,
)

from karyi.acp.kinds import tool_kind
from karyi.acp.updates import RESULT_LIMIT, Update
from karyi.agent.session.compaction import RESULTS
from karyi.agent.session.store import ToolCallRecord
from karyi.agent.turn.spec import AgentSpec
from karyi.llm.base import Message
from karyi.protocol.calls import CallReady, DialectState
from karyi.protocol.calls import TextDelta as ParsedText


def history(messages: list[Message], calls: list[ToolCallRecord], spec: AgentSpec) -> list[Update]:
    """The updates that show `messages` (with the recorded `calls`) again, in order."""
    records = {c.call_id: c for c in calls}
    unshown = list(calls)
    state = DialectState()
    out: list[Update] = []
    for message in messages:
        if message.role == "user" and message.name != RESULTS and not message.tool_call_id:
            out.append(update_user_message_text(message.content))
        elif message.role == "assistant":
            ids = [c.id for c in message.tool_calls]
            for item in _parsed(message.content, spec, state):
                if isinstance(item, str):
                    ids.append(item)
                else:
                    out.append(item)
            for call_id in ids:
                record = records.get(call_id) or (unshown[0] if unshown else None)
                if record is None or record not in unshown:
                    continue
                unshown.remove(record)
                out.append(_call(record))
    return out


def _parsed(text: str, spec: AgentSpec, state: DialectState) -> Iterator[Update | str]:
    """The prose and thinking of one assistant message as updates; call ids as str."""
    parser = spec.dialect.parser(spec.toolkit.schema, state)
    for event in [*parser.feed(text), *parser.close()]:
        if isinstance(event, ParsedText) and event.text:
            if event.channel == "thinking":
                yield update_agent_thought_text(event.text)
            else:
                yield update_agent_message_text(event.text)
        elif isinstance(event, CallReady):
            yield event.call.id


def _call(record: ToolCallRecord) -> Update:
    result = record.result
    text = str(result.get("llm_content") or result.get("error") or "")[:RESULT_LIMIT]
    return start_tool_call(
        record.call_id,
        record.name,
        kind=tool_kind(record.name),
        status="completed" if record.success else "failed",
        content=[tool_content(text_block(text))] if text else None,
        raw_input=record.params,
    )
