"""Command permission rules (docs/security.md): every simple command of a line must pass.

Settings `permissions.commands.allow|deny|confirm` hold patterns. A pattern is written
like a command: words separated by spaces (quote a word that contains spaces). Each
pattern word matches one command word, as a glob (`*`, `?`, `[abc]` within the word);
the command must have exactly as many words, except that a final `*` word matches any
number of further words (none included). So `git status` admits `git status` only,
`git status *` any `git status ...`, `npm run *` any script, `*` every command.

The line is parsed with bashlex, a real bash parser, and every simple command is
checked: those joined by `;`, `&&`, `||`, `|` and `&`, inside `( )` and `{ }`, `if`,
`for`, `while` and function bodies, and inside `$( )`, backticks and `<( )`
(recursively, as are `bash -c '...'`, `sh -c` and `eval` arguments). Then:

1. deny: a command matching a deny pattern, anywhere in the line, denies the whole
   line. Deny and confirm patterns are also tried on the command after wrappers
   (`sudo`, `env`, `nohup`, `nice`, `time`, `timeout`, `xargs`, `command`, `exec`...)
   and on the program's base name (`/bin/rm` is `rm`).
2. confirm: a command matching a confirm pattern makes the line need confirmation.
3. Constructs the rules cannot judge need confirmation: output redirected to a file
   (anything but /dev/null and descriptor copies like `2>&1`), a command word that is
   an expansion (`$CMD args`), a here-document whose body substitutes commands, and a
   line bashlex cannot parse (`case`, `[[ ]]`, `(( ))` among others).
4. allow: when every command matches an allow pattern literally (no wrapper or
   base-name leniency here, and no `VAR=value` prefix, which could change what runs),
   the line runs without asking.
5. Otherwise the rules have no verdict; the tool's setting or default applies.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from karyi.core.results import Permission, PermissionVerdict

_SHELLS = {"bash", "sh", "dash", "zsh", "ksh"}
_WRAPPERS = {
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"},
    "doas": {"-u", "-C"},
    "env": {"-u", "-C", "-S"},
    "nohup": set(),
    "nice": {"-n"},
    "ionice": {"-c", "-n", "-p"},
    "time": set(),
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "xargs": {"-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s"},
    "command": set(),
    "builtin": set(),
    "exec": {"-a"},
    "stdbuf": {"-i", "-o", "-e"},
    "watch": {"-n", "-d"},
    "flock": {"-w", "-E"},
}
_HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}
_WRITES = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}


@dataclass(frozen=True)
class SimpleCommand:
    """One command of a line: its words (assignments apart) and its source text."""

    words: tuple[str, ...]
    text: str
    assignments: tuple[str, ...] = ()


@dataclass
class Analysis:
    """A parsed line: its simple commands, and what the rules cannot see through."""

    commands: list[SimpleCommand] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)


def analyse(line: str) -> Analysis:
    """Every simple command of `line`, and the constructs that need a person to judge."""
    out = Analysis()
    _parse_into(line, out, depth=0)
    return out


def _parse_into(line: str, out: Analysis, depth: int) -> None:
    if depth > 8:
        out.opaque.append("commands nested too deeply to check")
        return
    if not line.strip():
        return
    try:
        import bashlex  # imported on the first judged command: it costs a tenth of a second

        trees = bashlex.parse(line)
    except Exception as exc:
        out.opaque.append(f"the line could not be checked ({type(exc).__name__}: {exc})")
        return
    walker = _Walker(line, out, depth)
    for tree in trees:
        walker.visit(tree)


class _Walker:
    """Collects simple commands and opaque constructs from a bashlex tree."""

    def __init__(self, line: str, out: Analysis, depth: int) -> None:
        self.line = line
        self.out = out
        self.depth = depth

    def visit(self, node: Any) -> None:
        kind = node.kind
        if kind == "command":
            self._command(node)
        elif kind in ("list", "pipeline", "if", "for", "while", "until", "function"):
            for part in node.parts:
                self.visit(part)
        elif kind == "compound":
            for part in node.list:
                self.visit(part)
            for redirect in getattr(node, "redirects", []):
                self._redirect(redirect)
        elif kind == "word":
            self._word(node)
        elif kind in ("commandsubstitution", "processsubstitution"):
            self.visit(node.command)
        elif kind in ("operator", "pipe", "reservedword", "parameter", "tilde", "heredoc"):
            return
        else:
            self.out.opaque.append(f"a `{kind}` construct")

    def _word(self, node: Any) -> None:
        for part in getattr(node, "parts", []):
            self.visit(part)

    def _command(self, node: Any) -> None:
        words: list[str] = []
        assignments: list[str] = []
        for part in node.parts:
            if part.kind == "word":
                if not words and _expands(part):
                    self.out.opaque.append(f"a command named by an expansion: `{part.word}`")
                words.append(part.word)
                self._word(part)
            elif part.kind == "assignment":
                assignments.append(part.word)
                self._word(part)
            elif part.kind == "redirect":
                self._redirect(part)
        text = self.line[node.pos[0] : node.pos[1]]
        if words:
            self.out.commands.append(SimpleCommand(tuple(words), text, tuple(assignments)))
            self._nested(words)

    def _nested(self, words: list[str]) -> None:
        """Scripts given as arguments: `bash -c '...'`, `eval ...` (also after wrappers)."""
        inner = unwrap(words)
        name = os.path.basename(inner[0]) if inner else ""
        if name in _SHELLS and "-c" in inner[1:]:
            at = inner.index("-c", 1)
            if at + 1 < len(inner):
                _parse_into(inner[at + 1], self.out, self.depth + 1)
        elif name == "eval" and len(inner) > 1:
            _parse_into(" ".join(inner[1:]), self.out, self.depth + 1)

    def _redirect(self, node: Any) -> None:
        target = node.output
        if getattr(node, "heredoc", None) is not None:
            body = node.heredoc.value
            if "$(" in body or "`" in body:
                self.out.opaque.append("a here-document that substitutes commands")
            return
        if isinstance(target, int):
            return
        self._word(target)
        if node.type not in _WRITES:
            return
        if node.type == ">&" and (target.word.isdigit() or target.word == "-"):
            return
        if target.word not in _HARMLESS_TARGETS:
            self.out.opaque.append(f"output written to a file: `{node.type} {target.word}`")


def _expands(word: Any) -> bool:
    return any(p.kind != "tilde" for p in getattr(word, "parts", []))


def unwrap(words: Sequence[str]) -> list[str]:
    """The command a wrapper runs: `sudo -u x rm f` → `rm f` (repeatedly)."""
    rest = list(words)
    while rest and (name := os.path.basename(rest[0])) in _WRAPPERS:
        takes = _WRAPPERS[name]
        rest = rest[1:]
        while rest and (rest[0].startswith("-") or (name in ("env", "sudo") and "=" in rest[0])):
            rest = rest[2:] if rest[0] in takes else rest[1:]
        if name == "timeout" and rest:
            rest = rest[1:]  # the DURATION
    return rest


@dataclass(frozen=True)
class Pattern:
    """One rule pattern (see the module docstring for the language)."""

    source: str
    words: tuple[str, ...]
    open_ended: bool

    @classmethod
    def parse(cls, source: str) -> Pattern:
        """Split `source` like a command line."""
        try:
            words = shlex.split(source)
        except ValueError:
            words = source.split()
        open_ended = bool(words) and words[-1] == "*" and len(words) > 1
        if open_ended:
            words = words[:-1]
        return cls(source, tuple(words), open_ended or words == ["*"])

    def matches(self, words: Sequence[str]) -> bool:
        """Whether the command `words` matches."""
        if not self.words:
            return False
        if self.words == ("*",):
            return True
        if len(words) < len(self.words) or (not self.open_ended and len(words) != len(self.words)):
            return False
        return all(fnmatchcase(w, p) for w, p in zip(words, self.words, strict=False))


def _forms(command: SimpleCommand) -> Iterator[tuple[str, ...]]:
    """The ways a deny/confirm rule may see a command: as written, unwrapped, base name."""
    for words in (list(command.words), unwrap(command.words)):
        if words:
            yield tuple(words)
            base = os.path.basename(words[0])
            if base != words[0]:
                yield (base, *words[1:])


class CommandRules:
    """The user's command rules, ready to judge lines."""

    def __init__(
        self, allow: Iterable[str] = (), deny: Iterable[str] = (), confirm: Iterable[str] = ()
    ) -> None:
        self.allow = [Pattern.parse(p) for p in allow]
        self.deny = [Pattern.parse(p) for p in deny]
        self.confirm = [Pattern.parse(p) for p in confirm]

    @classmethod
    def from_rules(cls, rules: dict[str, list[str]]) -> CommandRules:
        """From settings' `permissions.commands` (see `Settings.command_rules`)."""
        return cls(rules["allow"], rules["deny"], rules["confirm"])

    def _first(self, patterns: list[Pattern], command: SimpleCommand) -> Pattern | None:
        for form in _forms(command):
            for p in patterns:
                if p.matches(form):
                    return p
        return None

    def _allowed(self, command: SimpleCommand) -> bool:
        """Literal match only; `PATH=. git status` is not `git status`."""
        if command.assignments:
            return False
        return any(p.matches(command.words) for p in self.allow)

    def evaluate(self, line: str) -> PermissionVerdict | None:
        """The line's verdict, or None when the rules have nothing to say."""
        found = analyse(line)
        for command in found.commands:
            if rule := self._first(self.deny, command):
                return PermissionVerdict(
                    Permission.DENY,
                    f"`{command.text}` matches the deny rule `{rule.source}` "
                    "(permissions.commands.deny)",
                )
        for command in found.commands:
            if rule := self._first(self.confirm, command):
                return PermissionVerdict(
                    Permission.CONFIRM,
                    f"`{command.text}` matches the confirm rule `{rule.source}` "
                    "(permissions.commands.confirm)",
                )
        if found.opaque:
            return PermissionVerdict(
                Permission.CONFIRM, "needs a person to judge: " + "; ".join(found.opaque)
            )
        unmatched = [c.text for c in found.commands if not self._allowed(c)]
        if not unmatched:
            return PermissionVerdict(
                Permission.AUTO, "every command is allowed by permissions.commands.allow"
            )
        return PermissionVerdict(
            None, "not in permissions.commands.allow: " + ", ".join(f"`{t}`" for t in unmatched)
        )
