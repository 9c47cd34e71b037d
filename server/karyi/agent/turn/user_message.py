"""The user's message as the model reads it: what they typed, expanded.

A `/NAME` custom command becomes its prompt; the editor's context is appended, then what
the `@` mentions stand for, then the plan an act turn carries, then what a `userPrompt`
hook adds (or its refusal). The user's own words stay in the transcript as typed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from karyi.agent.diagnostics.problems import ProblemSource
from karyi.agent.prompting.mentions import MentionSources
from karyi.agent.prompting.mentions import expand as expand_mentions
from karyi.agent.prompting.modes import PLAN, with_plan
from karyi.agent.prompting.slash_commands import expand_command, load_commands
from karyi.agent.session.conversation import Conversation
from karyi.agent.turn.hooks import Hooks
from karyi.tools.context import ToolContext


@dataclass(frozen=True)
class UserMessage:
    """The message to send, or why a `userPrompt` hook stopped it."""

    body: str
    blocked: str | None = None


@dataclass
class MessageSources:
    """What a message's expansion reads: the workspace, problems, the last command."""

    ctx: ToolContext
    problems: ProblemSource | None
    last_command: Callable[[], str]
    hooks: Hooks


async def build_user_message(
    text: str, context: str, conv: Conversation, turn_id: str, sources: MessageSources
) -> UserMessage:
    """The user's `text` and editor `context` as the model's next user message."""
    asked = await _expanded(text, sources.ctx)
    body = f"{asked}\n\n{context}".strip() if context else asked
    mentions = MentionSources(sources.ctx, sources.problems, sources.last_command)
    if mentioned := await expand_mentions(text, mentions):
        body = f"{body}\n\n{mentioned}"
    if undone := sources.ctx.workspace.take_recovered("model"):
        body = f"{body}\n\nNote: {undone} Read those files again before relying on them."
    if conv.mode != PLAN and conv.plan:
        body, conv.plan = with_plan(body, conv.plan), ""
    hooks = sources.hooks
    if hooks.hooks["userPrompt"]:
        payload = {"sessionId": conv.id, "turnId": turn_id, "prompt": text, "mode": conv.mode}
        said = await hooks.run("userPrompt", payload)
        if said.blocked is not None:
            return UserMessage(body, blocked=said.blocked)
        if said.output:
            body = f"{body}\n\n[userPrompt hook output]\n{said.output}"
    return UserMessage(body)


async def _expanded(text: str, ctx: ToolContext) -> str:
    """`/NAME args` as the custom command's prompt (agent/prompting/slash_commands.py)."""
    if not text.lstrip().startswith("/"):
        return text
    commands = await asyncio.to_thread(load_commands, ctx.workspace.root)
    return expand_command(text, commands)
