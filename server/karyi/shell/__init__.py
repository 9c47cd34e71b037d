"""Shell sessions: a persistent terminal per agent session, one-shot commands, command
output for the model, process cleanup, and the command permission rules (docs/security.md)."""

from karyi.shell.manager import OneShotResult, ShellManager
from karyi.shell.rules import CommandRules
from karyi.shell.terminal import TerminalResult

__all__ = ["CommandRules", "OneShotResult", "ShellManager", "TerminalResult"]
