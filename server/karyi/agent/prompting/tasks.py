"""The tasks every front end offers (explain, fix, write tests): one prompt each, so the
language server's commands and ACP's slash commands ask the model the same thing."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    """A task: its slash-command name, its LSP command id, and what the model is asked."""

    name: str
    command: str
    description: str
    prompt: str
    needs_diagnostics: bool = False
    """The prompt lists the editor's diagnostics (a front end without them skips it)."""


TASKS = (
    Task(
        "explain",
        "karyi.explainSelection",
        "Explain the selected code",
        "Explain what the selected code does, how it fits into the file, "
        "and anything surprising about it. Do not change any file.",
    ),
    Task(
        "fix",
        "karyi.fixDiagnostics",
        "Fix the problems in the current file",
        "Fix the problems reported in the current file (listed below), "
        "then check that they are gone.",
        needs_diagnostics=True,
    ),
    Task(
        "tests",
        "karyi.writeTests",
        "Write tests for the selected code",
        "Write tests for the selected code in the style of the project's "
        "existing tests, then run them.",
    ),
)
