"""Chat commands every front end understands: a message that is only `/NAME` becomes
the task the command stands for (docs/context.md#init)."""

from __future__ import annotations

from karyi.agent.prompting.system_prompt import template

COMMANDS = {"init": "init"}
"""Command name -> the prompt template it stands for."""


def expand(text: str) -> str:
    """The task `text` stands for: the template of a `/NAME` command, else `text`."""
    word = text.strip()
    if word.startswith("/") and word[1:] in COMMANDS:
        return template(COMMANDS[word[1:]]).safe_substitute().strip()
    return text
