"""Assignments that change what later commands run: `PATH=.`, `export LD_PRELOAD=…`.

`PATH=. git status` runs another `git`; the same change made by a builtin (`export`,
`declare`, `printf -v`, `read`, `mapfile`) or alone on a line (which lasts in the
session's shell) must not pass for an allowed command either. A name the rules cannot
read (`declare "a[$(cmd)]=1"`, `declare -n ref=PATH`) is a doubt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

HIJACKERS = {
    "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "PROMPT_COMMAND",
    "PS0", "PS1", "PS2", "PS4", "IFS", "CDPATH", "GLOBIGNORE", "SHELLOPTS", "BASHOPTS",
    "BASH_LOADABLES_PATH", "FPATH", "HOME", "XDG_CONFIG_HOME", "PYTHONPATH", "PYTHONSTARTUP",
    "PYTHONHOME", "NODE_OPTIONS", "NODE_PATH", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
    "PAGER", "EDITOR", "VISUAL", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER", "GCONV_PATH",
    "SSH_ASKPASS", "SUDO_ASKPASS", "TERMINFO", "EXECIGNORE", "BASH_XTRACEFD",
}  # fmt: skip
_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_", "NPM_CONFIG_")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECLARERS = {"export", "declare", "typeset", "readonly", "local"}
_READ_ARGS = set("adinNptu")
_MAPFILE_ARGS = set("dnOsuCc")


def hijacks(name: str) -> bool:
    """Whether assigning `name` can change which program or code later runs."""
    return name in HIJACKERS or name.startswith(_PREFIXES)


def _target(word: str) -> tuple[str | None, str | None]:
    """The variable `NAME[=value]` assigns, or a doubt when it is not a plain name."""
    name = re.split(r"\+?=", word, maxsplit=1)[0]
    if _NAME.fullmatch(name):
        return name, None
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\[[0-9]*\]", name):
        return name.split("[")[0], None
    return None, f"an assignment to a name the rules cannot read: `{word}`"


def _options_then_names(words: Sequence[str], with_arg: set[str]) -> tuple[list[str], list[str]]:
    """`read`-style: option clusters (some taking an argument) then names."""
    names: list[str] = []
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        cluster = words[i][1:]
        i += 1
        for j, ch in enumerate(cluster):
            if ch in with_arg:
                if ch == "a" or not cluster[j + 1 :]:
                    value = cluster[j + 1 :] or (words[i] if i < len(words) else "")
                    i += 0 if cluster[j + 1 :] else 1
                    if ch == "a":
                        names.append(value)
                break
    if i < len(words) and words[i] == "--":
        i += 1
    return names, list(words[i:])


def assigned(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """The variables a builtin command assigns, and doubts about names it cannot read."""
    if not words:
        return [], []
    name, args = words[0], list(words[1:])
    targets: list[str] = []
    if name in _DECLARERS:
        flags = "".join(a[1:] for a in args if a[:1] in "-+")
        if "n" in flags:
            return [], [f"a name reference (`{name} -n`) the rules cannot follow"]
        targets = [a for a in args if a[:1] not in "-+"]
    elif name == "printf":
        if args[:1] == ["-v"] and len(args) > 1:
            targets = [args[1]]
        elif args and args[0].startswith("-v") and len(args[0]) > 2:
            targets = [args[0][2:]]
    elif name == "read":
        named, rest = _options_then_names(args, _READ_ARGS)
        targets = named + rest
    elif name in ("mapfile", "readarray"):
        _, rest = _options_then_names(args, _MAPFILE_ARGS)
        targets = rest[:1]
    elif name == "getopts" and len(args) > 1:
        targets = [args[1]]
    names: list[str] = []
    doubts: list[str] = []
    for word in targets:
        var, doubt = _target(word)
        if var is not None and hijacks(var):
            names.append(word)
        if doubt:
            doubts.append(doubt)
    return names, doubts
