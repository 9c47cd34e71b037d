"""Wrappers: programs that run another command given as their arguments.

Each wrapper is unwrapped with its real option grammar (GNU coreutils, util-linux,
procps, sudo), long options by unique prefix as getopt_long accepts them, `=` and space
forms, short clusters. An option the table does not know stops the unwrapping with a
doubt: the caller asks, and tries the deny rules on every later word, so an unknown
option can never hide a denied command.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

FLAG, ARG, OPTIONAL, SCRIPT, SPLIT, WRITE, NOSHELL, SHELL = (
    "flag",
    "arg",
    "optional",
    "script",
    "split",
    "write",
    "noshell",
    "shell",
)
_SUFFIX = {":": ARG, "?": OPTIONAL, "!": SCRIPT, "%": SPLIT, "@": WRITE, "^": NOSHELL, "&": SHELL}


def _options(spec: str) -> dict[str, str]:
    """`"u/user: i/login&"` → {"-u": ARG, "--user": ARG, "-i": SHELL, "--login": SHELL}."""
    table: dict[str, str] = {}
    for entry in spec.split():
        kind = _SUFFIX.get(entry[-1], FLAG)
        names = entry[:-1] if kind != FLAG else entry
        for name in names.split("/"):
            table[("-" if len(name) == 1 else "--") + name] = kind
    return table


@dataclass(frozen=True)
class Grammar:
    """How a wrapper reads its arguments before the command it runs."""

    options: dict[str, str]
    positional: int = 0  # words before the command: timeout's DURATION, flock's FILE
    assigns: bool = False  # NAME=value words before the command (env, sudo)
    more_args: bool = False  # the command gets more arguments (xargs)
    numeric: bool = False  # `nice -5`
    needs_command: bool = False  # without one it starts an interactive shell


GRAMMARS: dict[str, Grammar] = {
    "env": Grammar(
        _options(
            "i/ignore-environment 0/null u/unset: C/chdir: S/split-string% v/debug "
            "block-signal? default-signal? ignore-signal? list-signal-handling help version"
        ),
        assigns=True,
    ),
    "nice": Grammar(_options("n/adjustment: help version"), numeric=True),
    "nohup": Grammar(_options("help version")),
    "setsid": Grammar(_options("c/ctty f/fork w/wait h/help V/version")),
    "time": Grammar(_options("p/portability v/verbose a/append q/quiet f/format: o/output@")),
    "timeout": Grammar(
        _options("s/signal: k/kill-after: v/verbose preserve-status foreground help version"),
        positional=1,
    ),
    "xargs": Grammar(
        _options(
            "0/null o/open-tty p/interactive r/no-run-if-empty t/verbose x/exit show-limits "
            "a/arg-file: d/delimiter: E: I: L: n/max-args: P/max-procs: s/max-chars: "
            "process-slot-var: e/eof? i/replace? l/max-lines? help version"
        ),
        more_args=True,
    ),
    "stdbuf": Grammar(_options("i/input: o/output: e/error: help version")),
    "ionice": Grammar(_options("c/class: n/classdata: p/pid: P/pgid: u/uid: t/ignore h/help")),
    "flock": Grammar(
        _options(
            "s/shared x/e/exclusive u/unlock n/nb/nonblock o/close F/no-fork verbose "
            "w/wait/timeout: E/conflict-exit-code: c/command! h/help V/version"
        ),
        positional=1,
    ),
    "chroot": Grammar(_options("userspec: groups: skip-chdir help version"), 1, needs_command=True),
    "command": Grammar(_options("p v V")),
    "builtin": Grammar({}),
    "exec": Grammar(_options("c l a:")),
    "sudo": Grammar(
        _options(
            "A/askpass b/background B/bell E/preserve-env? e/edit H/set-home K/remove-timestamp "
            "k/reset-timestamp l/list n/non-interactive P/preserve-groups S/stdin V/version "
            "v/validate N/no-update s/shell& i/login& C/close-from: D/chdir: g/group: h/host: "
            "p/prompt: R/chroot: r/role: t/type: T/command-timeout: U/other-user: u/user: help"
        ),
        assigns=True,
    ),
    "doas": Grammar(_options("n s& u: C:")),
    "watch": Grammar(
        _options(
            "b/beep c/color C/no-color d/differences? e/errexit g/chgexit n/interval: p/precise "
            "q/equexit: r/no-rerun t/no-title w/no-wrap x/exec^ h/help v/version"
        )
    ),
    "busybox": Grammar({}),
    "nsenter": Grammar({}),
}
# `su` and `find -exec` do not fit the table: see `_su` and `_find`.

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass
class Unwrapped:
    """What a command line's wrappers run, and what they left unseen.

    `stages` holds the command after each wrapper (the last is the command finally run);
    `scripts` are shell lines a wrapper hands to `sh -c` (`watch`, `su -c`, `flock -c`);
    `hidden` is the rest of the words where the unwrapping stopped on a doubt.
    """

    stages: list[list[str]] = field(default_factory=list)
    assignments: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    more_args: bool = False


class _Doubt(Exception):
    """The wrapper's arguments cannot be read with certainty."""


def _long(grammar: Grammar, word: str) -> tuple[str, str | None]:
    """The option `--word[=value]` names (a unique prefix is enough), and its value."""
    name, eq, value = word.partition("=")
    candidates = [o for o in grammar.options if o.startswith("--") and o.startswith(name)]
    exact = [o for o in candidates if o == name]
    found = exact or candidates
    if len(found) != 1:
        raise _Doubt(f"an option the rules do not know: `{word}`")
    return found[0], (value if eq else None)


def _take(grammar: Grammar, opt: str, value: str | None, args: list[str], out: Unwrapped) -> int:
    """Apply one option; how many following words it consumed."""
    kind = grammar.options[opt]
    used = 0
    if kind in (ARG, SCRIPT, SPLIT, WRITE) and value is None:
        if not args:
            raise _Doubt(f"`{opt}` without its argument")
        value, used = args[0], 1
    if kind in (FLAG, NOSHELL, SHELL) and value is not None:
        raise _Doubt(f"`{opt}` given a value")
    if kind == SCRIPT and value is not None:
        out.scripts.append(value)
    elif kind == WRITE:
        out.doubts.append(f"`{opt} {value}` writes a file")
    elif kind == SPLIT and value is not None:
        if "$" in value or "\\" in value:
            raise _Doubt(f"`{opt}` with a string the rules cannot split: `{value}`")
        try:
            args[used:used] = shlex.split(value, comments=True)
        except ValueError as exc:
            raise _Doubt(f"`{opt}` with a string the rules cannot split: {exc}") from exc
    return used


def _short(grammar: Grammar, word: str, args: list[str], out: Unwrapped) -> tuple[int, set[str]]:
    """Apply a short-option cluster `-abc`; the words consumed and the kinds seen."""
    kinds: set[str] = set()
    for j in range(1, len(word)):
        opt = "-" + word[j]
        kind = grammar.options.get(opt)
        if kind is None:
            raise _Doubt(f"an option the rules do not know: `{word}`")
        kinds.add(kind)
        if kind in (FLAG, NOSHELL, SHELL):
            continue
        attached = word[j + 1 :]
        if kind == OPTIONAL:
            return 0, kinds
        return _take(grammar, opt, attached or None, args, out), kinds
    return 0, kinds


def _parse(name: str, args: list[str], out: Unwrapped) -> list[str]:
    """The command `name args` runs (its words), raising `_Doubt` on anything unknown."""
    grammar = GRAMMARS[name]
    kinds: set[str] = set()
    while args:
        word = args.pop(0)
        if word == "--":
            break
        if grammar.assigns and _ASSIGNMENT.match(word):
            out.assignments.append(word)
        elif word.startswith("--"):
            opt, value = _long(grammar, word)
            kinds.add(grammar.options[opt])
            del args[: _take(grammar, opt, value, args, out)]
        elif word.startswith("-") and len(word) > 1:
            if grammar.numeric and word[1:].isdigit():
                continue
            used, seen = _short(grammar, word, args, out)
            kinds |= seen
            del args[:used]
        else:
            args.insert(0, word)
            break
    del args[: grammar.positional]
    if name == "flock" and args[:1] in (["-c"], ["--command"]):
        out.scripts.extend(args[1:2])
        return []
    if name == "watch" and NOSHELL not in kinds and args:
        out.scripts.append(" ".join(args))
        return []
    if not args and (grammar.needs_command or SHELL in kinds):
        raise _Doubt(f"`{name}` starts an interactive shell")
    if not args and name == "xargs":
        return ["echo"]
    out.more_args = out.more_args or grammar.more_args
    return args


def _su(args: list[str], out: Unwrapped) -> list[str]:
    """`su [options] [-] [user [args]]`: options anywhere; `-c` is a shell line."""
    grammar = Grammar(
        _options(
            "c/command! session-command! s/shell: g/group: G/supp-group: l/login m/p/"
            "preserve-environment P/pty f/fast w/whitelist-environment: h/help V/version"
        )
    )
    rest: list[str] = []
    while args:
        word = args.pop(0)
        if word == "-":
            continue
        if word == "--":
            rest.extend(args)
            break
        if word.startswith("--"):
            opt, value = _long(grammar, word)
            del args[: _take(grammar, opt, value, args, out)]
        elif word.startswith("-") and len(word) > 1:
            used, _ = _short(grammar, word, args, out)
            del args[:used]
        else:
            rest.append(word)
    if len(rest) > 1:
        raise _Doubt("arguments passed to `su`'s shell")
    if not out.scripts:
        raise _Doubt("`su` starts an interactive shell")
    return []


def _step(words: list[str], out: Unwrapped) -> list[str] | None:
    """The command one wrapper runs, or None when `words` is not a wrapper."""
    name = os.path.basename(words[0])
    if name == "su":
        return _su(words[1:], out)
    if name not in GRAMMARS:
        return None
    return _parse(name, words[1:], out)


def unwrap_all(words: Sequence[str]) -> Unwrapped:
    """Every stage of a wrapper chain: `sudo -u x nice -n 5 rm f` → `nice …`, `rm f`."""
    out = Unwrapped()
    rest = list(words)
    while rest:
        try:
            inner = _step(rest, out)
        except _Doubt as doubt:
            out.doubts.append(str(doubt))
            out.hidden = rest[1:]
            break
        if inner is None:
            break
        rest = inner
        if rest:
            out.stages.append(list(rest))
    return out


def unwrap(words: Sequence[str]) -> list[str]:
    """The command a wrapper runs: `sudo -u x rm f` → `rm f` (repeatedly)."""
    stages = unwrap_all(words).stages
    return stages[-1] if stages else list(words)
