"""Karyi's tasks as ACP slash commands (`available_commands_update`): `/explain` and
`/tests` ask the model what the language server's commands ask (agent/prompting/tasks.py); the
text after the command is passed on. Tasks that need the editor's diagnostics are left
out: ACP carries none. `/plan`, `/act` and the custom commands are listed too; the
agent expands them (agent/prompting/modes.py, agent/prompting/slash_commands.py).
`/memory` is answered here, without the model (agent/prompting/memory_view.py)."""

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
