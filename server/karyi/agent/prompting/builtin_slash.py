"""Chat commands every front end understands, expanded by the server so no client
keeps a copy of a prompt: `/init` (docs/context.md#init) and the editor tasks `/explain`,
`/fix`, `/tests` (agent/prompting/tasks.py), whose words after the name are passed on.
"""

from __future__ import annotations

import re

from karyi.agent.prompting.system_prompt import template
from karyi.agent.prompting.tasks import TASKS

COMMANDS = {"init": "init"}
"""Command name -> the prompt template it stands for (the message is only `/NAME`)."""

BY_NAME = {task.name: task for task in TASKS}
_NAMED = re.compile(r"/([\w-]+)(?:\s+(.*))?", re.S)


def expand(text: str) -> str:
    """The task `text` stands for: `/init`'s template, an editor task's prompt followed
    by the rest of the message, else `text` as it is."""
    word = text.strip()
    if word.startswith("/") and word[1:] in COMMANDS:
        return template(COMMANDS[word[1:]]).safe_substitute().strip()
    named = _NAMED.match(word)
    task = BY_NAME.get(named[1]) if named else None
    if named is None or task is None:
        return text
    return f"{task.prompt}\n\n{named[2] or ''}".strip()
