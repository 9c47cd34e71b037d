"""The verdict: deny, then confirm, then doubts (ask), then allow, else no verdict."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from karyi.core.results import Permission, PermissionVerdict
from karyi.settings import Settings
from karyi.settings.sections import CommandRules as CommandRuleSettings
from karyi.shell.rules.patterns import Pattern
from karyi.shell.rules.walk import SimpleCommand, analyse

_MORE = "…"  # stands for the arguments a command receives beyond those written


def _forms(command: SimpleCommand) -> Iterator[tuple[str, ...]]:
    """The ways a deny/confirm rule may see a command: as written and by base name.

    A wrapper's command is a command of its own in the analysis, so it is tried too.
    """
    words = list(command.words)
    if words:
        yield tuple(words)
        base = os.path.basename(words[0])
        if base != words[0]:
            yield (base, *words[1:])


class CommandRules:
    """The user's command rules, ready to judge lines."""

    def __init__(
        self,
        allow: Iterable[str] = (),
        deny: Iterable[str] = (),
        confirm: Iterable[str] = (),
        *,
        managed_deny: Iterable[str] = (),
        managed_note: str = "",
    ) -> None:
        self.allow = [Pattern.parse(p) for p in allow]
        self.deny = [Pattern.parse(p) for p in deny]
        self.confirm = [Pattern.parse(p) for p in confirm]
        self.managed_deny = set(managed_deny)
        self.managed_note = managed_note

    @classmethod
    def from_rules(cls, rules: CommandRuleSettings) -> CommandRules:
        """From settings' `permissions.commands` (`settings.sections.CommandRules`)."""
        return cls(rules.allow, rules.deny, rules.confirm)

    @classmethod
    def from_settings(cls, settings: Settings) -> CommandRules:
        """From the settings' `permissions.commands`; a deny rule of the organisation's
        managed settings says so when it refuses (docs/security.md#managed-settings)."""
        rules = settings.permissions.commands
        managed = ((settings.managed.get("permissions") or {}).get("commands") or {}).get("deny")
        return cls(
            rules.allow,
            rules.deny,
            rules.confirm,
            managed_deny=managed or (),
            managed_note=settings.managed_refusal("permissions.commands.deny"),
        )

    def _first(self, patterns: list[Pattern], command: SimpleCommand) -> Pattern | None:
        for form in _forms(command):
            for p in patterns:
                if p.matches(form):
                    return p
        return None

    def _allowed(self, command: SimpleCommand) -> bool:
        """Literal match only; `PATH=. git status` is not `git status`, and a command
        given more arguments than written (`xargs rm`) needs an open-ended pattern."""
        if command.assignments or not command.words:
            return False
        words = (*command.words, _MORE) if command.more_args else command.words
        return any(p.matches(words) for p in self.allow)

    def _matching(
        self, patterns: list[Pattern], commands: list[SimpleCommand]
    ) -> tuple[SimpleCommand, Pattern] | None:
        for command in commands:
            if rule := self._first(patterns, command):
                return command, rule
        return None

    def evaluate(self, line: str) -> PermissionVerdict | None:
        """The line's verdict, or None when the rules have nothing to say."""
        found = analyse(line)
        candidates = found.commands + found.suspects
        if hit := self._matching(self.deny, candidates):
            where = "(permissions.commands.deny)"
            if hit[1].source in self.managed_deny:
                where = f"({self.managed_note})"
            return PermissionVerdict(
                Permission.DENY, f"`{hit[0].text}` matches the deny rule `{hit[1].source}` {where}"
            )
        if hit := self._matching(self.confirm, candidates):
            return PermissionVerdict(
                Permission.CONFIRM,
                f"`{hit[0].text}` matches the confirm rule `{hit[1].source}` "
                "(permissions.commands.confirm)",
            )
        if found.opaque:
            return PermissionVerdict(
                Permission.CONFIRM, "needs a person to judge: " + "; ".join(found.opaque)
            )
        unmatched = list(dict.fromkeys(c.text for c in found.commands if not self._allowed(c)))
        if not unmatched:
            return PermissionVerdict(
                Permission.AUTO, "every command is allowed by permissions.commands.allow"
            )
        return PermissionVerdict(
            None, "not in permissions.commands.allow: " + ", ".join(f"`{t}`" for t in unmatched)
        )
