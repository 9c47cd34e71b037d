"""Everyday programs whose options or scripts run other commands.

An allow rule for `sed`, `git` or `tar` means the user trusts those programs, not every
command they can be told to start: `sed 's/x/rm f/e'`, `git -c core.pager='rm f' log`,
`tar --to-command='rm f' -xf a.tar`, `ssh host 'rm f'`. Such a form is a doubt (a
person judges it). So is an interactive program that runs what is typed to it later
(an editor, a pager, an interpreter's prompt): the `input` tool would type into it
what no rule has seen. The sed script reader fails closed: a script it cannot read is
a doubt too. See docs/security.md, "Command rules".
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

# program → options (long, or short letters as "-x") whose argument is a command to run
_COMMAND_OPTIONS: dict[str, tuple[str, ...]] = {
    "tar": (
        "--to-command", "--checkpoint-action", "--use-compress-program", "-I",
        "--info-script", "--new-volume-script", "-F", "--rsh-command", "--rmt-command",
    ),
    "rsync": ("--rsh", "-e", "--rsync-path"),
    "zip": ("--unzip-command", "-TT"),
    "scp": ("-S", "-o"),
    "sftp": ("-S", "-o", "-D"),
    "git": ("-c", "--config-env", "--exec-path"),
    "vi": ("-c", "--cmd", "-S"),
    "vim": ("-c", "--cmd", "-S"),
    "nvim": ("-c", "--cmd", "-S"),
    "man": ("-P", "--pager", "-H", "--html"),
    "gdb": ("-ex", "-x", "--eval-command", "--command", "-batch"),
}  # fmt: skip

# git subcommand → options that make git run a command given as their argument
_GIT_SUBCOMMAND_OPTIONS: dict[str, tuple[str, ...]] = {
    "rebase": ("--exec", "-x"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "clone": ("--upload-pack", "-u", "--template", "-c", "--config"),
    "ls-remote": ("--upload-pack",),
    "push": ("--receive-pack", "--exec"),
    "archive": ("--exec",),
    "difftool": ("--extcmd", "-x", "--tool", "-t"),
    "mergetool": ("--tool", "-t"),
    "config": (),  # checked below: it may set a key that runs commands later
}
_GIT_SCRIPTED = {"filter-branch", "filter-repo"}
_GIT_RUNNERS = {("bisect", "run"), ("submodule", "foreach")}

# interactive programs that run what is typed to them (`:!cmd`, `!cmd`, `shell cmd`)
_INTERACTIVE = {
    "vi", "vim", "nvim", "view", "ex", "ed", "emacs", "nano", "pico", "less", "more",
    "most", "gdb", "lldb", "pdb", "ftp", "telnet", "mysql", "psql", "sqlite3", "crontab",
    "visudo", "vipw", "screen", "tmux", "script", "expect", "mosh",
}  # fmt: skip
# interpreters: a prompt when started without a script
_REPL_WITHOUT_ARGS = {
    "node", "python", "ipython", "bpython", "irb", "lua", "luajit", "php", "perl", "ruby",
    "R", "julia", "tclsh", "wish", "ghci", "bc", "dc", "deno", "bun",
}  # fmt: skip
_VERSIONED = re.compile(r"([A-Za-z]+?)[0-9.]*")


def _base(word: str) -> str:
    name = os.path.basename(word)
    versioned = _VERSIONED.fullmatch(name)
    known = _INTERACTIVE | _REPL_WITHOUT_ARGS
    return versioned.group(1) if versioned and versioned.group(1) in known else name


def _has_option(args: Sequence[str], options: tuple[str, ...]) -> str | None:
    """The first of `options` present in `args`, in any spelling (`--x=v`, `-xv`, `-ax`)."""
    longs = {o for o in options if o.startswith("--") or len(o) > 2}
    shorts = {o[1] for o in options if len(o) == 2}
    for arg in args:
        if arg == "--":
            return None
        if arg.split("=", 1)[0] in longs:
            return arg.split("=", 1)[0]
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            letters = arg[1:]
            if letters in {o[1:] for o in longs}:
                return arg
            for ch in letters:
                if ch in shorts:
                    return f"-{ch}"
    return None


def _git_doubt(args: Sequence[str]) -> str | None:
    """`git -c …`, `git rebase -x …`, `git bisect run …`: git told to run something."""
    if found := _has_option(_git_globals(args), _COMMAND_OPTIONS["git"]):
        return f"`git {found}` can make git run any command"
    rest = list(args[len(_git_globals(args)) :])
    if not rest:
        return None
    sub = rest[0]
    if sub in _GIT_SCRIPTED:
        return f"`git {sub}` runs shell scripts given as arguments"
    if len(rest) > 1 and (sub, rest[1]) in _GIT_RUNNERS:
        return f"`git {sub} {rest[1]}` runs the command given to it"
    if sub == "config" and any(_GIT_KEY_RUNS.search(a) for a in rest[1:]):
        return "`git config` of a key that makes git run a command later"
    options = _GIT_SUBCOMMAND_OPTIONS.get(sub, ())
    if options and (found := _has_option(rest[1:], options)):
        return f"`git {sub} {found}` runs the command given to it"
    return None


_GIT_KEY_RUNS = re.compile(
    r"^(alias\.|core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)|"
    r"sequence\.editor|diff\..*\.(textconv|command)|diff\.external|merge\..*\.driver|"
    r"filter\.|credential\.|gpg\.|pager\.|uploadpack\.|receivepack\.|remote\..*\.(uploadpack|receivepack)|"
    r"include\.|includeif\.)",
    re.IGNORECASE,
)


def _git_globals(args: Sequence[str]) -> list[str]:
    """git's own options before the subcommand (`-C dir`, `-c k=v`, `--no-pager`)."""
    out: list[str] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):
        out.append(args[i])
        if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"):
            if i + 1 < len(args):
                out.append(args[i + 1])
            i += 1
        i += 1
    return out


def command_options(words: Sequence[str]) -> str | None:
    """A doubt when `words` tells an everyday program to run another command."""
    if not words:
        return None
    name, args = _base(words[0]), list(words[1:])
    shown = os.path.basename(words[0])
    if name == "git":
        return _git_doubt(args)
    if name == "sed" or name == "gsed":
        return sed_doubt(args)
    if name == "ssh":
        return "`ssh` runs commands on another machine" if args else None
    if name in _REPL_WITHOUT_ARGS and not [a for a in args if not a.startswith("-")]:
        return f"`{shown}` starts an interactive prompt: what is typed to it is not checked"
    if name in _INTERACTIVE:
        return f"`{shown}` is interactive and can run commands typed to it"
    options = _COMMAND_OPTIONS.get(name)
    if options and (found := _has_option(args, options)):
        return f"`{name} {found}` runs the command given to it"
    return None


# ---- sed -------------------------------------------------------------------------------

_SED_ARG_OPTIONS = {"-l", "--line-length"}
_SED_SIMPLE = set("=dDgGhHlnNpPqQxzF")
_SED_LABEL = set("bTt:v")
_SED_TEXT = set("aic")


class _Unreadable(Exception):
    """The script has a form this reader does not model: a person must judge it."""


def sed_doubt(args: Sequence[str]) -> str | None:
    """A doubt when sed may run a command (`e`, `s///e`) or write a file (`w`, `s///w`),
    or reads a script the rules cannot see (`-f FILE`)."""
    scripts: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i + 1 :])
            break
        if arg in _SED_ARG_OPTIONS:
            i += 2
            continue
        if arg in ("-e", "--expression"):
            scripts.append(args[i + 1] if i + 1 < len(args) else "")
            i += 2
            continue
        if arg.startswith("--expression="):
            scripts.append(arg.split("=", 1)[1])
        elif arg in ("-f", "--file") or arg.startswith("--file="):
            return "`sed -f` runs a script file the rules cannot read"
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            letters = arg[1:]
            for k, ch in enumerate(letters):
                if ch == "e":
                    tail = letters[k + 1 :]
                    if tail:
                        scripts.append(tail)
                    elif i + 1 < len(args):
                        scripts.append(args[i + 1])
                        i += 1
                    break
                if ch == "f":
                    return "`sed -f` runs a script file the rules cannot read"
                if ch in "il" and letters[k + 1 :]:
                    break  # -i.bak, -l5: the rest is the option's argument
        elif not arg.startswith("-"):
            rest.append(arg)
        i += 1
    if not scripts and rest:
        scripts.append(rest[0])
    for script in scripts:
        try:
            found = _sed_runs(script)
        except _Unreadable:
            return f"a sed script the rules cannot read: `{script}`"
        if found:
            return f"a sed script that {found}: `{script}`"
    return None


def _sed_runs(script: str) -> str | None:
    """What in `script` runs a command or writes a file, or None; raises when unsure."""
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch in " \t\n;{}!":
            i += 1
            continue
        if ch == "#":
            i = _line_end(script, i)
            continue
        i = _address(script, i)
        i = _address_range(script, i)
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            break
        cmd = script[i]
        i += 1
        if cmd == "{" or cmd == "}":
            continue
        if cmd == "e":
            return "runs a command (`e`)"
        if cmd in "wW":
            return "writes a file (`w`)"
        if cmd in "rR":
            i = _line_end(script, i)
        elif cmd in _SED_TEXT:
            i = _text_end(script, i)
        elif cmd in _SED_LABEL:
            i = _until(script, i, ";\n")
        elif cmd == "s":
            i, flags = _substitution(script, i)
            if "e" in flags:
                return "runs its replacement as a command (`s///e`)"
            if "w" in flags or "W" in flags:
                return "writes a file (`s///w`)"
        elif cmd == "y":
            i = _delimited(script, i, 2)
        elif cmd in "lLqQ":
            while i < n and script[i] in " \t0123456789":
                i += 1
        elif cmd in _SED_SIMPLE:
            continue
        else:
            raise _Unreadable
    return None


def _line_end(script: str, i: int) -> int:
    end = script.find("\n", i)
    return len(script) if end < 0 else end + 1


def _until(script: str, i: int, stops: str) -> int:
    while i < len(script) and script[i] not in stops:
        i += 1
    return i


def _text_end(script: str, i: int) -> int:
    """`a text`, `a\\` + lines: text lines continue while they end in a backslash."""
    while i < len(script):
        end = _line_end(script, i)
        line = script[i:end].rstrip("\n")
        i = end
        if not line.endswith("\\"):
            break
    return i


def _address(script: str, i: int) -> int:
    n = len(script)
    if i < n and script[i] in "0123456789$~+":
        while i < n and script[i] in "0123456789$~+":
            i += 1
        return i
    if i < n and script[i] in "/\\":
        if script[i] == "\\":
            if i + 1 >= n:
                raise _Unreadable
            delim, i = script[i + 1], i + 2
        else:
            delim, i = "/", i + 1
        end = _regex_end(script, i, delim)
        return end + _address_flags(script, end)
    return i


def _address_flags(script: str, i: int) -> int:
    k = 0
    while i + k < len(script) and script[i + k] in "IM":
        k += 1
    return k


def _address_range(script: str, i: int) -> int:
    if i < len(script) and script[i] == ",":
        return _address(script, i + 1)
    return i


def _regex_end(script: str, i: int, delim: str) -> int:
    """The index after the closing `delim`, skipping escapes."""
    while i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delim:
            return i + 1
        if script[i] == "\n":
            raise _Unreadable
        i += 1
    raise _Unreadable


def _delimited(script: str, i: int, parts: int) -> int:
    if i >= len(script) or script[i] in "\\\n":
        raise _Unreadable
    delim = script[i]
    i += 1
    for _ in range(parts):
        i = _regex_end(script, i, delim)
    return i


def _substitution(script: str, i: int) -> tuple[int, str]:
    i = _delimited(script, i, 2)
    start = i
    while i < len(script) and (script[i].isalnum()):
        if script[i] in "wW":
            return len(script), script[start : i + 1]
        i += 1
    flags = script[start:i]
    if any(ch not in "gpiImMe0123456789" for ch in flags):
        raise _Unreadable
    return i, flags
