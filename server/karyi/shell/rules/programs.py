"""Programs that run code given on their command line or standard input.

Shells (`bash -ec '…'`, `sh -c -- '…'`, `bash <<< '…'`, `… | sh`) hand the rules a
script to parse; interpreters (`python -c`, `node -e`, `perl -e`…) run code the rules
cannot read, so those always ask. `find -exec` runs commands of its own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

SHELLS = {
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "lksh", "ash", "yash", "rbash", "posh",
    "fish", "csh", "tcsh",
}  # fmt: skip
_SHELL_ARG_LONG = {"--rcfile", "--init-file"}
_STDIN_FILES = re.compile(r"-|/dev/stdin|/dev/fd/.*|/proc/.*")

# interpreter name → short option letters and long options whose argument is code
_INLINE: dict[str, tuple[str, tuple[str, ...]]] = {
    "python": ("c", ()),
    "pypy": ("c", ()),
    "node": ("ep", ("--eval", "--print")),
    "nodejs": ("ep", ("--eval", "--print")),
    "bun": ("ep", ("--eval", "--print")),
    "perl": ("eE", ()),
    "ruby": ("e", ()),
    "php": ("rBRFE", ("--run", "--process-begin", "--process-code", "--process-end")),
    "lua": ("e", ()),
    "luajit": ("e", ()),
    "Rscript": ("e", ()),
    "R": ("e", ()),
    "julia": ("eE", ("--eval", "--print")),
    "osascript": ("e", ()),
    "pwsh": ("ce", ("-command", "-encodedcommand", "-c", "-e")),
    "powershell": ("ce", ("-command", "-encodedcommand", "-c", "-e")),
    "tclsh": ("", ()),
    "deno": ("", ()),
}
_VERSIONED = re.compile(r"(python|pypy|perl|ruby|php|lua|node)[0-9.]*")


@dataclass(frozen=True)
class ShellCall:
    """What a shell invocation runs: a `-c` script, a script file, or standard input."""

    script: str | None
    file: str | None
    stdin: bool


def shell_call(words: Sequence[str]) -> ShellCall | None:
    """How `words` (a shell and its arguments) gets its script; None if not a shell."""
    if not words or os.path.basename(words[0]) not in SHELLS:
        return None
    has_c = reads_stdin = False
    script: str | None = None
    i = 1
    while i < len(words):
        word = words[i]
        if word in ("--", "-"):
            i += 1
            break
        if word.startswith("--"):
            opt, eq, value = word.partition("=")
            if opt == "--command":
                has_c, script = True, value if eq else None
            i += 2 if opt in _SHELL_ARG_LONG and not eq else 1
            continue
        if word[:1] not in "-+" or len(word) < 2:
            break
        letters = word[1:]
        has_c = has_c or (word[0] == "-" and "c" in letters)
        reads_stdin = reads_stdin or "s" in letters
        i += 1 + sum(1 for ch in letters if ch in "oO")
    rest = list(words[i:])
    if has_c:
        return ShellCall(script if script is not None else (rest[0] if rest else ""), None, False)
    if rest and not reads_stdin and not _STDIN_FILES.fullmatch(rest[0]):
        return ShellCall(None, rest[0], False)
    return ShellCall(None, None, True)


def _interpreter(name: str) -> tuple[str, tuple[str, ...]] | None:
    if name in _INLINE:
        return _INLINE[name]
    versioned = _VERSIONED.fullmatch(name)
    return _INLINE.get(versioned.group(1)) if versioned else None


def inline_code(words: Sequence[str]) -> str | None:
    """A doubt when `words` runs an interpreter's inline code (`python -c`, `perl -e`)."""
    name = os.path.basename(words[0]) if words else ""
    if name in ("deno", "bun") and len(words) > 1 and words[1] == "eval":
        return f"`{name} eval` runs code the rules cannot read"
    if name in ("awk", "gawk", "mawk", "nawk", "busybox awk"):
        program = next((w for w in words[1:] if not w.startswith("-")), "")
        if any(s in program for s in ("system", "|", ">")):
            return f"an `{name}` program that runs commands or writes files"
        return None
    grammar = _interpreter(name)
    if grammar is None:
        return None
    letters, longs = grammar
    for word in words[1:]:
        if not word.startswith("-") or word == "--":
            return None
        if word.split("=")[0].lower() in longs or (
            not word.startswith("--") and any(ch in letters for ch in word[1:])
        ):
            return f"inline code the rules cannot read: `{name} {word}`"
    return None


def reads_code_from_stdin(words: Sequence[str]) -> bool:
    """Whether an interpreter takes its program from standard input (no script given)."""
    name = os.path.basename(words[0]) if words else ""
    if _interpreter(name) is None:
        return False
    rest = [w for w in words[1:] if not w.startswith("-") or w == "-"]
    return not rest or rest[0] == "-"


def find_commands(words: Sequence[str]) -> list[list[str]]:
    """The commands `find … -exec CMD … ;` (and `-execdir`, `-ok`, `-okdir`) runs."""
    if not words or os.path.basename(words[0]) != "find":
        return []
    found: list[list[str]] = []
    i = 1
    while i < len(words):
        if words[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and words[j] not in (";", "+"):
                j += 1
            found.append(list(words[i + 1 : j]))
            i = j
        i += 1
    return [f for f in found if f]
