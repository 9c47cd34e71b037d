"""The prompt's own keys, apart from the chat's turns: Ctrl+D and Ctrl+C to end the
chat, completion as one types (Tab takes it, ↑/↓ move), and a pasted picture
(docs/terminal.md#keys)."""

from __future__ import annotations

import time

from textual.app import App
from textual.widgets import Input

from karyi.cli.chat.completion import Completer, CompletionList
from karyi.cli.chat.pictures import PromptInput

CTRL_C_WINDOW = 2.0
"""Seconds within which a second Ctrl+C ends the chat."""


class PromptKeys(App[int]):
    """What the chat's prompt does with keys that do not touch a turn."""

    prompt: PromptInput
    completions: CompletionList
    completer: Completer | None
    _last_interrupt: float

    def action_eof(self) -> None:
        """Ctrl+D: end the chat on an empty prompt, else delete to the right."""
        if self.focused is self.prompt and self.prompt.value:
            self.prompt.action_delete_right()
            return
        self.exit(0)

    def action_interrupt(self) -> None:
        """Ctrl+C: clear the prompt; a second one within two seconds ends the chat."""
        now, last = time.monotonic(), self._last_interrupt
        self._last_interrupt = now
        if now - last < CTRL_C_WINDOW:
            self.exit(0)
            return
        self.prompt.value = ""
        self.notify("Press Ctrl+C again to quit.", timeout=CTRL_C_WINDOW)

    def on_input_changed(self, event: Input.Changed) -> None:
        """Typing in the prompt: the completions of the word before the cursor."""
        if event.input is self.prompt:
            value = self.prompt.value
            cursor = (
                len(value) if self.prompt.cursor_position is None else self.prompt.cursor_position
            )
            if self.completer is not None:
                self.completions.show(*self.completer.complete(value, cursor))

    def action_complete(self) -> None:
        """Tab: the highlighted completion replaces the word being typed."""
        chosen = self.completions.chosen()
        if chosen is None:
            return
        value, cursor = self.prompt.value, self.prompt.cursor_position
        start = self.completions.start
        self.prompt.value = value[:start] + chosen.insert + " " + value[cursor:]
        self.prompt.cursor_position = start + len(chosen.insert) + 1
        self.completions.show(0, [])

    def action_completion(self, step: int) -> None:
        """↑/↓ while completions are shown: the next or previous one."""
        if self.completions.display and self.completions.items:
            at = (self.completions.highlighted or 0) + step
            self.completions.highlighted = at % len(self.completions.items)
