"""Notices a session tells the user once: the same sentence is never said twice.

A missing sandbox, file watching that fell back to checks, a tool source that failed,
a model without a price: each matters the first time and is noise after that.
"""

from __future__ import annotations

from collections.abc import Callable

from karyi.agent.events import Event, Notice


class OnceNotices:
    """Emits a `Notice` the first time its text is said in this session."""

    def __init__(self, emit: Callable[[Event], None]) -> None:
        self._emit = emit
        self._said: set[str] = set()

    def say(self, kind: str, text: str | None) -> None:
        """Tell the user `text` under `kind`, unless it was said before (None: nothing)."""
        if text is None or text in self._said:
            return
        self._said.add(text)
        self._emit(Notice(kind, text))
