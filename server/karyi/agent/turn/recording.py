"""A finished step written into the conversation: the reply, each call's result, and
each call's record in the session store, so a cancelled or failed turn leaves a
consistent session behind."""

from __future__ import annotations

import json
from collections.abc import Callable

from karyi.agent.session.compaction import RESULTS
from karyi.agent.session.conversation import Conversation
from karyi.agent.session.store import ToolCallRecord
from karyi.agent.turn.executor import Executed
from karyi.agent.turn.reply import Reply
from karyi.llm.base import Message, NativeCall
from karyi.protocol.base import Dialect


def record_step(
    conv: Conversation,
    turn_id: str,
    reply: Reply,
    executed: list[Executed],
    dialect: Dialect,
    *,
    native: bool,
    cut: str | None,
    with_notices: Callable[[str], str],
) -> None:
    """Add the step's messages to `conv` and its calls to the store; save the state."""
    text = "".join(reply.text)
    if cut:
        text += f"\n[this reply was {cut}]"
    if native:
        _record_native(conv, turn_id, reply, executed, text)
    else:
        if text:
            conv.add(turn_id, Message("assistant", text, reasoning=tuple(reply.reasoning)))
        if reply.calls:
            rendered = dialect.render_results([e.outcome() for e in executed])
            missing = len(reply.calls) - len(executed)
            if missing:
                rendered += f"\n[{missing} call(s) were not run: the turn was interrupted]"
            conv.add(turn_id, Message("user", with_notices(rendered), name=RESULTS))
    if conv.store is not None:
        for e in executed:
            record = ToolCallRecord(
                turn_id,
                e.call.id,
                e.call.name,
                e.call.params,
                e.decision,
                e.result.success,
                e.result.error.code if e.result.error else None,
                dict(e.result.to_dict()),
            )
            conv.store.record_call(conv.id, turn_id, record, e.started, e.finished)
    conv.save_state()


def _record_native(
    conv: Conversation, turn_id: str, reply: Reply, executed: list[Executed], text: str
) -> None:
    """Provider function calling: the calls ride on the assistant message, each result
    is a `tool` message answering its call (an unrun call says so)."""
    calls = tuple(NativeCall(c.id, c.name, c.raw or json.dumps(c.params)) for c in reply.calls)
    if text or calls:
        message = Message("assistant", text, tool_calls=calls, reasoning=tuple(reply.reasoning))
        conv.add(turn_id, message)
    done = {e.call.id: e for e in executed}
    for c in reply.calls:
        e = done.get(c.id)
        content = e.result.llm_content if e else "not run: the turn was interrupted"
        failed = not (e and e.result.success)
        conv.add(turn_id, Message("tool", content, tool_call_id=c.id, name=c.name, is_error=failed))
