"""Karyi's tasks as ACP slash commands (`available_commands_update`): `/explain` and
`/tests` ask the model what the language server's commands ask (agent/prompting/tasks.py); the
text after the command is passed on. Tasks that need the editor's diagnostics are left
out: ACP carries none. `/plan`, `/act` and the custom commands are listed too; the
agent expands them (agent/prompting/modes.py, agent/prompting/slash_commands.py).
`/memory` is answered here, without the model (agent/prompting/memory_view.py);
`/review` runs a code review and lists its findings (acp/code_review.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from acp.schema import (
    AgentMessageChunk,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    TextContentBlock,
    UnstructuredCommandInput,
)

from karyi.agent.prompting.memory_view import memory_files, memory_text
from karyi.agent.prompting.modes import MODES
from karyi.agent.prompting.slash_commands import MEMORY, CustomCommand
from karyi.agent.prompting.tasks import TASKS

if TYPE_CHECKING:
    from acp.schema import PromptResponse

    from karyi.acp.code_review import ReviewSession
    from karyi.agent.runtime import Runtime

OFFERED = {task.name: task for task in TASKS if not task.needs_diagnostics}


def available_commands(custom: Sequence[CustomCommand] = ()) -> AvailableCommandsUpdate:
    """The update that lists the slash commands: the tasks, the modes, then the custom
    commands of the session's workspace and the user (agent/prompting/slash_commands.py)."""
    hint = AvailableCommandInput(root=UnstructuredCommandInput(hint="what to focus on"))
    commands = [
        AvailableCommand(name=task.name, description=task.description, input=hint)
        for task in OFFERED.values()
    ]
    commands += [
        AvailableCommand(
            name=mode.id,
            description=f"Switch to {mode.name} mode: {mode.description}",
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint="the task")),
        )
        for mode in MODES
    ]
    commands.append(AvailableCommand(name="memory", description=MEMORY))
    if not any(c.name == "review" for c in custom):  # the user's own /review comes first
        commands.append(
            AvailableCommand(
                name="review",
                description="Review the uncommitted changes (or --base REF, --commit SHA, "
                "paths) with focused reviewers and list the findings on the changed lines",
                input=AvailableCommandInput(
                    root=UnstructuredCommandInput(hint="--base REF | --commit SHA | paths")
                ),
            )
        )
    args = AvailableCommandInput(root=UnstructuredCommandInput(hint="arguments"))
    commands += [
        AvailableCommand(name=c.name, description=c.description, input=args) for c in custom
    ]
    return AvailableCommandsUpdate(
        session_update="available_commands_update", available_commands=commands
    )


def expand(text: str) -> str:
    """`/explain the loop` → the task's prompt, then "the loop"; other text unchanged."""
    if not text.startswith("/"):
        return text
    name, _, rest = text[1:].partition(" ")
    task = OFFERED.get(name)
    if task is None:
        return text
    return f"{task.prompt}\n\n{rest.strip()}".strip()


def memory_update(runtime: Runtime) -> AgentMessageChunk:
    """`/memory`'s answer, given without the model: the memory files and their text."""
    files = memory_files(runtime.workspace.folders, runtime.settings)
    text = memory_text(files, runtime.vault.redactor.redact)
    return AgentMessageChunk(
        session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text)
    )


async def answered_here(session: ReviewSession, text: str) -> PromptResponse | None:
    """`/memory` and `/review`, answered without a turn of the model; None for any other
    prompt."""
    if text.strip() == "/memory":
        from acp.schema import PromptResponse

        await session.client.session_update(session.id, memory_update(session.runtime))
        return PromptResponse(stop_reason="end_turn")
    return await answered_review(session, text)


async def answered_review(session: ReviewSession, text: str) -> PromptResponse | None:
    """The answer of `/review` (acp/code_review.py); None for any other prompt, and when
    the workspace or the user has a custom command `review` (which is theirs to run)."""
    from karyi.acp.code_review import is_review, run
    from karyi.agent.prompting.slash_commands import load_commands

    if not is_review(text) or "review" in load_commands(session.runtime.workspace.root):
        return None
    return await run(session, text)
