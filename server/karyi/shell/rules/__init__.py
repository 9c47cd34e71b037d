"""Command permission rules (docs/security.md "Command rules"): they fail closed.

Settings `permissions.commands.allow|deny|confirm` hold patterns (`patterns`). A line is
parsed with bashlex and every command it can run is checked (`walk`): commands joined by
operators and in compound commands, substitutions anywhere in a word (`scan`), the
command behind each wrapper read with its real option grammar (`wrappers`), scripts
handed to shells, `eval` and `source` (`programs`). Deny wins anywhere; a confirm rule
asks; anything the rules cannot see through asks; only a line whose every command (a
wrapper and the command it runs alike) matches an allow pattern literally, without an
assignment that changes what runs (`assignments`), runs without asking (`engine`).
"""

from karyi.shell.rules.engine import CommandRules
from karyi.shell.rules.patterns import Pattern
from karyi.shell.rules.walk import Analysis, SimpleCommand, analyse
from karyi.shell.rules.wrappers import unwrap

__all__ = ["Analysis", "CommandRules", "Pattern", "SimpleCommand", "analyse", "unwrap"]
