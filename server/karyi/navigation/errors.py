"""What goes wrong when navigating, as the tools report it."""

from __future__ import annotations


class ServerGone(RuntimeError):
    """The server process exited (or never started): its requests cannot be answered."""


class ServerError(RuntimeError):
    """The server answered a request with an error (its first line is the message)."""
