"""The parser walk: every command a line can run, and what the rules cannot see into.

bashlex parses the line; the walk collects each simple command, then follows what runs
more commands: substitutions anywhere in a word (`scan`), wrappers (`wrappers`), shells,
`eval`, `source` and interpreters (`programs`), and the assignments that change what
later runs (`assignments`). Whatever it cannot follow becomes a doubt (`opaque`), and
the words it could not place are kept as `suspects` for the deny rules: failing closed.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from karyi.shell.rules.assignments import assigned, hijacks
from karyi.shell.rules.grammar import load_bashlex
from karyi.shell.rules.options import command_options
from karyi.shell.rules.programs import (
    find_commands,
    inline_code,
    reads_code_from_stdin,
    shell_call,
)
from karyi.shell.rules.scan import (
    Unbalanced,
    arithmetic_doubts,
    mask_arithmetic,
    parameter_doubts,
    substitutions,
    unquote,
)
from karyi.shell.rules.wrappers import unwrap_all

_HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}
_WRITES = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
_STDIN_FILE = re.compile(r"/dev/stdin|/dev/fd/.*|/proc/.*")
_MAX_DEPTH = 8


@dataclass(frozen=True)
class SimpleCommand:
    """One command of a line: its words (assignments apart) and its source text.

    `more_args`: the command receives more arguments than written (`xargs rm`), so only
    an open-ended allow pattern admits it.
    """

    words: tuple[str, ...]
    text: str
    assignments: tuple[str, ...] = ()
    more_args: bool = False


@dataclass
class Analysis:
    """A parsed line: its commands, what the rules cannot see through, and suspects.

    `suspects` are word sequences that may be commands the rules could not place (after
    an unknown wrapper option, in a line bashlex cannot parse): deny and confirm rules
    are tried on them so that no doubt can hide a denied command; they are never allowed.
    """

    commands: list[SimpleCommand] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    suspects: list[SimpleCommand] = field(default_factory=list)


def analyse(line: str) -> Analysis:
    """Every command of `line`, and the constructs that need a person to judge."""
    out = Analysis()
    _parse_into(line, out, depth=0)
    return out


def _parse_into(line: str, out: Analysis, depth: int) -> None:
    if depth > _MAX_DEPTH:
        out.opaque.append("commands nested too deeply to check")
        _suspect_words(line, out)
        return
    if not line.strip():
        return
    masked, arithmetic = mask_arithmetic(line)
    try:
        trees = load_bashlex().parse(masked)  # loaded on the first judged command
    except Exception as exc:
        out.opaque.append(f"the line could not be checked ({type(exc).__name__}: {exc})")
        _fallback(line, out, depth)
        return
    walker = _Walker(line, arithmetic, out, depth)
    for tree in trees:
        walker.visit(tree)


def _fallback(line: str, out: Analysis, depth: int) -> None:
    """A line bashlex cannot parse: its substitutions still run, its words may be commands."""
    _scan(line, out, depth, heredoc=False)
    _suspect_words(line, out)


def _suspect_words(line: str, out: Analysis) -> None:
    """Every run of words between operators, and each of its tails, as a suspect."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>`")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = re.split(r"[\s;&|()<>`'\"$]+", line)
    segment: list[str] = []
    for token in [*tokens, ";"]:
        if (token and all(c in ";&|()<>`{}" for c in token)) or token in ("{", "}"):
            _suspect_tails(segment, out)
            segment = []
        elif token:
            segment.append(token)


def _suspect_tails(words: list[str], out: Analysis) -> None:
    for start in range(len(words)):
        tail = tuple(words[start:])
        out.suspects.append(SimpleCommand(tail, shlex.join(tail)))


def _scan(text: str, out: Analysis, depth: int, heredoc: bool) -> bool:
    """Check every substitution in `text`; whether one substitutes a command."""
    try:
        subs = substitutions(text, heredoc=heredoc)
    except Unbalanced as exc:
        out.opaque.append(f"text the rules cannot read ({exc}): `{text[:80]}`")
        return False
    commands = False
    for sub in subs:
        if sub.kind == "command":
            commands = True
            _parse_into(sub.body, out, depth + 1)
        elif sub.kind == "param":
            out.opaque.extend(parameter_doubts(sub.body))
            commands = _scan(sub.body, out, depth, heredoc=False) or commands
        else:
            out.opaque.extend(arithmetic_doubts(sub.body))
            commands = _scan(sub.body, out, depth, heredoc=False) or commands
    return commands


def _expands(word: Any) -> bool:
    return any(p.kind != "tilde" for p in getattr(word, "parts", []))


class _Walker:
    """Collects simple commands and opaque constructs from a bashlex tree."""

    def __init__(self, line: str, arithmetic: dict[int, str], out: Analysis, depth: int) -> None:
        self.line = line
        self.arithmetic = arithmetic
        self.out = out
        self.depth = depth
        self.piped = False

    def visit(self, node: Any) -> None:
        kind = node.kind
        if kind == "command":
            self._command(node)
        elif kind == "pipeline":
            self._pipeline(node)
        elif kind == "function":
            name = node.name.word if getattr(node, "name", None) is not None else "?"
            self.out.opaque.append(f"a function definition changes what `{name}` runs later")
            for part in node.parts:
                self.visit(part)
        elif kind in ("list", "if", "for", "while", "until"):
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
        elif kind == "parameter":
            self._parameter(node)
        elif kind in ("operator", "pipe", "reservedword", "tilde", "heredoc"):
            return
        else:
            self.out.opaque.append(f"a `{kind}` construct")

    def _pipeline(self, node: Any) -> None:
        """Commands after a `|` read the previous one's output: a shell there runs it."""
        outer = self.piped
        for part in node.parts:
            self.visit(part)
            if part.kind == "pipe":
                self.piped = True
        self.piped = outer

    def _word(self, node: Any) -> None:
        for part in getattr(node, "parts", []):
            self.visit(part)

    def _parameter(self, node: Any) -> None:
        """`${…}`: defaults, subscripts and offsets may substitute commands."""
        start, end = node.pos
        if start in self.arithmetic:
            body = self.arithmetic[start]
            self.out.opaque.extend(arithmetic_doubts(body))
            _scan(body, self.out, self.depth, heredoc=False)
            return
        text = self.line[start:end]
        if text.startswith("${") and text.endswith("}"):
            self.out.opaque.extend(parameter_doubts(text[2:-1]))
            _scan(text[2:-1], self.out, self.depth, heredoc=False)

    def _command(self, node: Any) -> None:
        words: list[str] = []
        literal: list[bool] = []
        assignments: list[str] = []
        redirects: list[Any] = []
        for part in node.parts:
            if part.kind == "word":
                if not words and _expands(part):
                    self.out.opaque.append(f"a command named by an expansion: `{part.word}`")
                words.append(self._value(part))
                literal.append(not _expands(part))
                self._word(part)
            elif part.kind == "assignment":
                assignments.append(part.word)
                self._word(part)
            elif part.kind == "redirect":
                redirects.append(part)
                self._redirect(part)
        text = self.line[node.pos[0] : node.pos[1]]
        if words:
            self._add(words, text, assignments)
            self._program(words, literal, redirects)
        else:
            held = tuple(a for a in assignments if hijacks(a.split("=")[0].split("[")[0]))
            if held:
                self.out.commands.append(SimpleCommand((), text, held))

    def _value(self, word: Any) -> str:
        """A literal word as bash reads it: bashlex's quote removal is wrong on
        `'a'"'"'b'`, and the rules must judge the word bash will run."""
        if _expands(word):
            return str(word.word)
        try:
            return unquote(self.line[word.pos[0] : word.pos[1]])
        except Unbalanced:
            self.out.opaque.append(f"a word the rules cannot read: `{word.word}`")
            return str(word.word)

    def _add(self, words: list[str], text: str, assignments: list[str], more: bool = False) -> None:
        self.out.commands.append(SimpleCommand(tuple(words), text, tuple(assignments), more))

    def _program(self, words: list[str], literal: list[bool], redirects: list[Any]) -> None:
        """Follow what the command runs: its wrappers' commands, scripts and code."""
        unwrapped = unwrap_all(words)
        for stage in unwrapped.stages:
            self._add(stage, shlex.join(stage), unwrapped.assignments, unwrapped.more_args)
        self.out.opaque.extend(unwrapped.doubts)
        _suspect_tails(unwrapped.hidden, self.out)
        opaque_words = [w for w, lit in zip(words, literal, strict=True) if not lit]
        for script in unwrapped.scripts:
            readable = not any(w in script for w in opaque_words)
            self._script(script, readable, "a wrapper's shell command")
        final = unwrapped.stages[-1] if unwrapped.stages else words
        self._runs(final, opaque_words, redirects)

    def _runs(self, words: list[str], opaque_words: list[str], redirects: list[Any]) -> None:
        """Shells, eval, source, interpreters, assigning builtins and `find -exec`."""
        name = os.path.basename(words[0])
        call = shell_call(words)
        if call is not None:
            if call.script is not None:
                readable = call.script not in opaque_words
                self._script(call.script, readable, f"`{name} -c`")
            elif call.stdin:
                self._stdin_script(name, redirects)
        elif name == "eval" and len(words) > 1:
            readable = not any(w in opaque_words for w in words[1:])
            self._script(" ".join(words[1:]), readable, "`eval`")
        elif name in ("source", ".") and len(words) > 1:
            if _STDIN_FILE.fullmatch(words[1]):
                self._stdin_script(name, redirects)
            elif words[1] in opaque_words:
                self.out.opaque.append(f"`{name}` of a file named by an expansion")
        elif doubt := inline_code(words):
            self.out.opaque.append(doubt)
        elif reads_code_from_stdin(words) and (self.piped or _stdin_of(redirects)):
            self.out.opaque.append(f"`{name}` runs code from its standard input")
        if doubt := command_options(words):
            self.out.opaque.append(doubt)
        self._builtins(words)
        for inner in find_commands(words):
            self._add(inner, shlex.join(inner), [], more=True)
            self._program(inner, [w not in opaque_words for w in inner], [])

    def _builtins(self, words: list[str]) -> None:
        """Assignments that change what runs later; aliases and traps are scripts."""
        held, doubts = assigned(words)
        self.out.opaque.extend(doubts)
        if held:
            self.out.commands.append(SimpleCommand((), shlex.join(words), tuple(held)))
        name = words[0]
        if name == "alias":
            for definition in words[1:]:
                if "=" in definition:
                    self.out.opaque.append(f"an alias changes what later commands run: `{name}`")
                    self._script(definition.split("=", 1)[1], True, "an alias")
        elif name == "trap" and len(words) > 2:
            self._script(words[1], True, "`trap`")
        elif name in ("hash", "enable") and len(words) > 1:
            self.out.opaque.append(f"`{name}` changes what later commands run")

    def _script(self, script: str, readable: bool, what: str) -> None:
        """A shell line handed to a shell: parse and check it (it is read even if not
        `readable`, to try the deny rules, but then a person must judge)."""
        if not readable:
            self.out.opaque.append(f"{what} with a script the rules cannot read: `{script}`")
        _parse_into(script, self.out, self.depth + 1)

    def _stdin_script(self, name: str, redirects: list[Any]) -> None:
        """A shell reading its script from standard input: readable only when written here."""
        source = _stdin_of(redirects)
        if source is not None and source.type == "<<<":
            self._script(self._value(source.output), not _expands(source.output), f"`{name} <<<`")
        elif source is not None and getattr(source, "heredoc", None) is not None:
            body = source.heredoc.value.rsplit("\n", 1)[0]
            readable = "$" not in body and "`" not in body and "\\" not in body
            self._script(body, readable, f"`{name} <<`")
        elif not self.piped and source is None and name not in ("source", "."):
            self.out.opaque.append(f"`{name}` starts an interactive shell")
        else:
            self.out.opaque.append(f"`{name}` runs a script from its standard input")

    def _redirect(self, node: Any) -> None:
        target = node.output
        if getattr(node, "heredoc", None) is not None:
            start, end = node.heredoc.pos
            if _scan(self.line[start:end], self.out, self.depth, heredoc=True):
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


def _stdin_of(redirects: list[Any]) -> Any:
    """The redirect feeding the command's standard input, if any."""
    for node in reversed(redirects):
        if node.type in ("<<<", "<<", "<<-") or (
            node.type == "<" and getattr(node, "input", None) in (None, 0)
        ):
            return node
    return None
