"""Karyi: an AI coding agent that lives inside the editor."""

__version__ = "0.1.0"
