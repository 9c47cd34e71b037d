"""What the chat's commands and pickers use of the chat app, as a protocol: they are
called by the app and never import it (docs/architecture.md, no cycles)."""

from __future__ import annotations

from collections.abc import Awaitable, Coroutine
from typing import Any, Protocol, TypeVar

from textual.screen import Screen
from textual.worker import Worker

from karyi.agent.host import AgentHost, LiveSession
from karyi.agent.runtime import Runtime
from karyi.cli.chat.feed import Feed
from karyi.cli.chat.pictures import PromptInput
from karyi.cli.chat.widgets import Conversation

T = TypeVar("T")


class ChatSurface(Protocol):
    """The chat as its commands see it: the session, the conversation, the prompt."""

    runtime: Runtime
    host: AgentHost
    live: LiveSession | None
    session_id: str | None
    feed: Feed
    log_view: Conversation
    prompt: PromptInput

    def exit(self, result: int | None = None) -> None:
        """End the chat."""

    def run_worker(self, work: Coroutine[Any, Any, Any], *, group: str = ...) -> Worker[Any]:
        """Run `work` alongside the screen."""

    def push_screen_wait(self, screen: Screen[T]) -> Awaitable[T]:
        """Show `screen` and wait for what it gives back."""

    async def open_session(self) -> None:
        """Load `session_id` and draw it."""

    async def show_history(self, every: bool = False) -> None:
        """Draw the session's stored turns (the latest; `every`: all of them)."""

    def refresh_status(self) -> None:
        """Redraw the status line from the session."""
