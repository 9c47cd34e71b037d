"""The last command the agent ran and what it printed, for `@terminal` mentions
(agent/prompting/mentions.py)."""

from __future__ import annotations

from collections.abc import Callable

from karyi.agent.events import Event, ToolDone
from karyi.tools.registry import Toolkit


class LastCommand:
    """Follows the event stream and keeps the newest command's output."""

    def __init__(self, toolkit: Callable[[], Toolkit]) -> None:
        self._toolkit = toolkit
        self.text = ""

    def __call__(self) -> str:
        """`$ command` and its output, or "" before any command ran."""
        return self.text

    def on_event(self, event: Event) -> None:
        """Keep a finished call's output when the call ran a program."""
        if not isinstance(event, ToolDone):
            return
        tool = self._toolkit().get(event.call.name)
        params = event.call.params
        if (
            tool is not None
            and tool.runs_programs
            and ("command" in params or tool.name in ("input", "ctrl"))
        ):
            shown = params.get("command") or f"{tool.name} {params}"
            self.text = f"$ {shown}\n{event.result.llm_content}"
