"""`session/load`: a stored session told again as `session/update`s, before the load
answers, so the editor shows the conversation the model continues.

It renders the session's transcript (agent/session/transcript.py, docs/sessions.md): the
user's messages as typed, the assistant's prose and thinking, each call as a finished
tool call with its stored result; never the dialect's markup or the results fed back.
"""

from __future__ import annotations

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_user_message_text,
)

from karyi.acp.kinds import tool_kind
from karyi.acp.session import AcpSession
from karyi.acp.updates import RESULT_LIMIT, Update, plan_update
from karyi.agent.session.transcript import CallBlock, SteerBlock, TextBlock, Transcript


async def replay(session: AcpSession) -> None:
    """`session/load`'s history: the transcript, then the task list as it stands, all
    before the load answers (a `plan` update belongs to a turn or to this history)."""
    updates = history(session.live.transcript())
    todos = list(session.live.conversation.todos)
    if todos:
        updates.append(plan_update(todos))
    session.plan_told = todos
    await session.send(updates)


def history(transcript: Transcript) -> list[Update]:
    """The updates that show the transcript's turns again, in order."""
    out: list[Update] = []
    for turn in transcript.turns:
        if turn.prompt:
            out.append(update_user_message_text(turn.prompt))
        for block in turn.blocks:
            if isinstance(block, TextBlock):
                update = (
                    update_agent_thought_text
                    if block.channel == "thinking"
                    else update_agent_message_text
                )
                out.append(update(block.text))
            elif isinstance(block, CallBlock):
                out.append(_call(block))
            elif isinstance(block, SteerBlock):
                out.append(update_user_message_text(block.text))
    return out


def _call(block: CallBlock) -> Update:
    text = (block.output or block.error or "")[:RESULT_LIMIT]
    return start_tool_call(
        block.id,
        block.name,
        kind=tool_kind(block.name),
        status="completed" if block.status == "done" else "failed",
        content=[tool_content(text_block(text))] if text else None,
        raw_input=block.params,
    )
