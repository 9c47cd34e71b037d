"""Command rules: every simple command of a line is judged, after a real parse."""

from __future__ import annotations

from typing import Any

import pytest

from karyi.core.results import Permission
from karyi.shell.rules import CommandRules, Pattern, analyse

RULES = CommandRules(
    allow=["git status", "git show *", "ls *", "echo *", "npm run *", "cat *", "grep *"],
    deny=["rm -rf *"],
    confirm=["git push *"],
)


def verdict(line: str) -> Permission | None:
    v = RULES.evaluate(line)
    return v.permission if v is not None else None


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("git status", Permission.AUTO),
        ("git status --short", None),  # `git status` is exact; `git status *` would admit it
        ("git show HEAD~1 2>&1 >/dev/null", Permission.AUTO),
        ("git status && ls -la", Permission.AUTO),
        ("ls src | grep py", Permission.AUTO),
        ("(git status; ls)", Permission.AUTO),
        ("npm run build", Permission.AUTO),
        ("echo '$(rm -rf ~)'", Permission.AUTO),  # single quotes: no substitution
        ("", Permission.AUTO),
        ("a && b", None),
        ("git status && b", None),
        ("ls | wc -l", None),
        ("PATH=. git status", None),  # an assignment can change what runs
        ("sudo git status", None),  # allow rules match literally
    ],
)
def test_allow_needs_every_part(line: str, expected: Permission | None) -> None:
    assert verdict(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "git status; rm -rf ~",
        "git status && rm -rf /",
        "ls | rm -rf x",
        "(cd /; rm -rf *)",
        "echo $(rm -rf ~)",
        "echo `rm -rf ~`",
        'X="$(rm -rf ~)"',
        "diff <(rm -rf a) b",
        "sudo rm -rf /",
        "/bin/rm -rf /",
        "xargs rm -rf < list",
        "bash -c 'git status; rm -rf ~'",
        "eval 'rm -rf ~'",
        "if true; then rm -rf ~; fi",
        "f() { rm -rf ~; }",
    ],
)
def test_a_deny_anywhere_wins(line: str) -> None:
    v = RULES.evaluate(line)
    assert v is not None and v.permission is Permission.DENY
    assert "permissions.commands.deny" in v.reason


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("git show > ~/.ssh/id", "output written to a file: `> ~/.ssh/id`"),
        ("echo hi >> notes.txt", "output written to a file"),
        ("$(curl x)", "a command named by an expansion"),
        ("$CMD --flag", "a command named by an expansion: `$CMD`"),
        ("cat <<EOF\n$(whoami)\nEOF", "a here-document that substitutes commands"),
        ("[[ -f x ]] && ls", "could not be checked"),
        ("case $x in a) ls;; esac", "could not be checked"),
    ],
)
def test_what_the_rules_cannot_judge_needs_confirmation(line: str, why: str) -> None:
    v = RULES.evaluate(line)
    assert v is not None and v.permission is Permission.CONFIRM and why in v.reason


def test_confirm_rules_and_unmatched_reasons() -> None:
    v = RULES.evaluate("git status; git push origin main")
    assert v is not None and v.permission is Permission.CONFIRM
    assert v.reason == (
        "`git push origin main` matches the confirm rule `git push *` "
        "(permissions.commands.confirm)"
    )
    v = RULES.evaluate("git status; make && make test")
    assert v is not None and v.permission is None
    assert v.reason == "not in permissions.commands.allow: `make`, `make test`"


def test_substituted_commands_are_judged_too() -> None:
    assert verdict("echo $(git status)") is Permission.AUTO
    assert verdict("echo $(curl x)") is None
    found = analyse("a | b && $(c); (d); echo `e`")
    assert [c.text for c in found.commands] == ["a", "b", "c", "$(c)", "d", "e", "echo `e`"]
    assert found.opaque == ["a command named by an expansion: `$(c)`"]


def test_pattern_language() -> None:
    assert Pattern.parse("git status").matches(["git", "status"])
    assert not Pattern.parse("git status").matches(["git", "status", "-s"])
    assert Pattern.parse("git status *").matches(["git", "status"])
    assert Pattern.parse("git status *").matches(["git", "status", "-s", "x"])
    assert Pattern.parse("npm run test:*").matches(["npm", "run", "test:unit"])
    assert not Pattern.parse("npm run test:*").matches(["npm", "run", "build"])
    assert Pattern.parse("*").matches(["anything", "at", "all"])
    assert Pattern.parse("'my tool' *").matches(["my tool", "x"])


# --- failing closed ([sandbox]): substitutions, wrappers, shells, assignments -------------

STRICT = CommandRules(
    allow=[
        *(f"{w} *" for w in ("echo", "bash", "sh", "env", "xargs", "nice", "stdbuf", "ionice")),
        *(f"{w} *" for w in ("flock", "setsid", "timeout", "sudo", "printf", "export", "eval")),
        *(f"{w} *" for w in ("nohup", "command", "exec", "watch", "declare", "read", "cat")),
    ],
    deny=["rm *"],
)
BYPASSES = [
    "echo ${X:-$(rm pwned)}",
    "echo ${a[$(rm pwned)]}",
    'echo "x${X:+`rm pwned`}"',
    "echo $((1 + $(rm pwned)))",
    "echo $[ $(rm pwned) ]",
    "cat <<EOF\n'$(rm pwned)'\nEOF",
    "bash -ec 'rm f'",
    "bash -lc 'rm f'",
    "bash -xc 'rm f'",
    "bash -c -- 'rm f'",
    "bash -o pipefail -c 'rm f'",
    "env -S 'rm f'",
    "env --split-string='rm f'",
    "flock lock rm f",
    "flock -w 3 lock rm f",
    "flock lock -c 'rm f'",
    "xargs --max-args=1 rm",
    "xargs -n1 -I{} rm {}",
    "nice --adjustment=5 rm f",
    "nice --adj=5 rm f",
    "nice -n 5 rm f",
    "stdbuf --output=L rm f",
    "ionice --class 3 rm f",
    "ionice -c 3 -n 7 rm f",
    "timeout -s KILL 5 rm f",
    "env -i -u X A=1 rm f",
    "sudo -u root rm f",
    "bash <<< 'rm f'",
    "bash <<EOF\nrm f\nEOF",
    "echo 'rm f' | sh",
    "sh < script.sh",
    "setsid rm f",
    "eval 'rm f'",
    "su -c 'rm f'",
    "watch rm f",
    "find . -exec rm {} +",
    "xargs --unknown-option rm f",
    "time rm f",
    "source /dev/stdin <<< 'rm f'",
    "python3 -c 'import os'",
    "node -e 'x'",
    "perl -ne 'print'",
    "echo x | python3",
]


@pytest.mark.parametrize("line", BYPASSES)
def test_no_bypass_is_allowed(line: str) -> None:
    v = STRICT.evaluate(line)
    assert v is not None and v.permission in (Permission.DENY, Permission.CONFIRM), (line, v)


@pytest.mark.parametrize(
    "line",
    [b for b in BYPASSES if "rm" in b and not b.startswith(("echo 'rm f' |", "sh <"))],
)
def test_a_visible_denied_command_is_denied(line: str) -> None:
    v = STRICT.evaluate(line)
    assert v is not None and v.permission is Permission.DENY, (line, v)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('bash -c "$X"', "`bash -c` with a script the rules cannot read"),
        ('eval "$CMD"', "`eval` with a script the rules cannot read"),
        ("echo 'ls' | bash", "runs a script from its standard input"),
        ("python -c 'print(1)'", "inline code the rules cannot read: `python -c`"),
        ("ruby -e 'p 1'", "inline code"),
        ("php -r 'echo 1;'", "inline code"),
        ("echo ${!name}", "an indirect expansion"),
        ("echo ${a[i]}", "an array subscript"),
        ("echo $((i + 1))", "arithmetic that reads variables"),
        ("nice --frobnicate ls", "an option the rules do not know: `--frobnicate`"),
        ("env -S 'ls $HOME'", "cannot split"),
        ("declare -n ref=PATH", "a name reference"),
        ("printf -v 'a[$(ls)]' x", "a name the rules cannot read"),
        ("alias ls='echo hi'", "an alias changes what later commands run"),
    ],
)
def test_what_cannot_be_seen_through_asks(line: str, why: str) -> None:
    v = STRICT.evaluate(line)
    assert v is not None and v.permission is Permission.CONFIRM and why in v.reason, v


@pytest.mark.parametrize(
    "line",
    [
        "PATH=/tmp/evil",
        "export PATH=/tmp/evil",
        "export LD_PRELOAD=/tmp/x.so",
        "declare -x BASH_ENV=/tmp/x",
        "typeset IFS=x",
        "readonly PROMPT_COMMAND=x",
        "f() { local LD_LIBRARY_PATH=/tmp; }",
        "printf -v PATH %s /tmp",
        "printf -vPATH %s /tmp",
        "read -r PATH < file",
        "read -a PATH",
        "mapfile -t ENV < file",
        "readarray PATH",
        "command export PATH=/tmp",
        "sudo env PATH=/tmp echo hi",
    ],
)
def test_assignments_that_change_what_runs_are_never_allowed(line: str) -> None:
    rules = CommandRules(
        allow=[
            "export *",
            "declare *",
            "typeset *",
            "readonly *",
            "local *",
            "printf *",
            "read *",
            "mapfile *",
            "readarray *",
            "command *",
            "sudo *",
            "env *",
            "echo *",
        ]
    )
    v = rules.evaluate(line)
    assert v is None or v.permission is not Permission.AUTO, (line, v)
    assert rules.evaluate("export FOO=1") is not None  # a harmless variable is fine
    assert rules.evaluate("export FOO=1").permission is Permission.AUTO  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("echo ${X:-default}", Permission.AUTO),
        ("echo $((1 + 2))", Permission.AUTO),
        ("bash -c 'echo hi'", Permission.AUTO),
        ("bash -ec 'echo hi' && echo done", Permission.AUTO),
        ("nice -n 5 echo hi", Permission.AUTO),
        ("env -i A=1 echo hi", None),  # an assignment can change what runs
        ("xargs echo", Permission.AUTO),
        ("timeout 5 cat f", Permission.AUTO),
        ("sudo -u root make", None),  # the wrapped command must be allowed too
        ("xargs git status", None),  # and given more arguments it needs `git status *`
    ],
)
def test_what_the_rules_see_through_is_still_allowed(
    line: str, expected: Permission | None
) -> None:
    rules = CommandRules(
        allow=[
            "echo *",
            "bash *",
            "nice *",
            "env *",
            "xargs *",
            "timeout *",
            "cat *",
            "sudo *",
            "git status",
        ]
    )
    v = rules.evaluate(line)
    assert (v.permission if v is not None else None) == expected, (line, v)


# --- the property: no composition around a denied command is ever allowed ---------------

_WRAPPER_FORMS: dict[str, list[list[str]]] = {
    "env": [
        [],
        ["-i"],
        ["--ignore-environment"],
        ["-u", "X"],
        ["--unset=X"],
        ["-uX"],
        ["A=1"],
        ["-C", "/tmp"],
        ["--chdir=/tmp"],
        ["-0"],
        ["--debug"],
        ["-iv"],
    ],
    "nice": [[], ["-n", "5"], ["-n5"], ["--adjustment=5"], ["--adjustment", "5"], ["-5"]],
    "ionice": [
        ["-c", "3"],
        ["-c3", "-n", "7"],
        ["--class", "3"],
        ["--class=2", "--classdata=4"],
        ["-t"],
    ],
    "stdbuf": [["-oL"], ["-o", "L"], ["--output=L"], ["--output", "0", "-e0"], ["-i0"]],
    "timeout": [
        ["5"],
        ["-s", "KILL", "5"],
        ["--signal=KILL", "5"],
        ["-k", "1", "5s"],
        ["--kill-after", "1", "--preserve-status", "5"],
        ["-v", "1m"],
    ],
    "flock": [
        ["lock"],
        ["-w", "3", "lock"],
        ["--wait=3", "lock"],
        ["-xn", "lock"],
        ["--shared", "lock"],
        ["-E", "1", "lock"],
    ],
    "xargs": [
        [],
        ["-n1"],
        ["-n", "1"],
        ["--max-args=1"],
        ["-0"],
        ["-r"],
        ["-P", "4"],
        ["--max-procs", "4", "-t"],
        ["-L1"],
        ["-d", "\\n"],
        ["-a", "list"],
        ["-i"],
    ],
    "setsid": [[], ["-f"], ["--fork"], ["-w"], ["--wait", "-c"]],
    "nohup": [[]],
    "sudo": [
        [],
        ["-u", "root"],
        ["-uroot"],
        ["--user=root"],
        ["-E"],
        ["-n", "-H"],
        ["--preserve-env=PATH"],
        ["-g", "wheel"],
        ["--", ""],
    ],
    "doas": [[], ["-u", "root"], ["-n"]],
    "command": [[], ["-p"]],
    "exec": [[], ["-a", "name"], ["-c"], ["-l"]],
    "builtin": [[]],
    "time": [[], ["-p"], ["-v"], ["--portability"]],
    "chroot": [["/"], ["--skip-chdir", "/"], ["--userspec=1:1", "/"]],
    "watch": [["-x"], ["-n", "1", "-x"], ["--interval=1", "--exec"], [], ["-t"]],
}
_SHELL_FLAGS = ["-c", "-ec", "-lc", "-xc", "-ceu", "-euxc", "-c --", "-o pipefail -c", "--norc -c"]


def _quote(line: str) -> str:
    import shlex

    return shlex.quote(line)


def _wrap(wrapper: str, form: list[str], line: str) -> str:
    import shlex

    if wrapper == "watch" and "-x" not in form and "--exec" not in form:
        return f"{wrapper} {' '.join(form)} {_quote(line)}".replace("  ", " ")
    if "--" in form:
        form = ["--"]
    words = shlex.join([wrapper, *form])
    return f"{words} {shell_word(line)}"


def shell_word(line: str) -> str:
    """A line as words for a wrapper: a simple command as is, anything else via `sh -c`."""
    import shlex

    try:
        words = shlex.split(line)
    except ValueError:
        words = []
    if words and shlex.join(words) == line:
        return line
    return f"sh -c {_quote(line)}"


def _layers() -> Any:
    from hypothesis import strategies as st

    wrapper = st.sampled_from(sorted(_WRAPPER_FORMS)).flatmap(
        lambda w: st.sampled_from(_WRAPPER_FORMS[w]).map(lambda f: lambda line: _wrap(w, f, line))
    )
    shell = st.tuples(
        st.sampled_from(["sh", "bash", "/bin/bash", "dash", "zsh"]), st.sampled_from(_SHELL_FLAGS)
    ).map(lambda t: lambda line: f"{t[0]} {t[1]} {_quote(line)}")
    fixed = st.sampled_from(
        [
            lambda line: f"eval {_quote(line)}",
            lambda line: f"bash <<< {_quote(line)}",
            lambda line: f"sh <<'X'\n{line}\nX" if "\n" not in line else f"eval {_quote(line)}",
            lambda line: f"echo {_quote(line)} | sh",
            lambda line: f"echo $({line})",
            lambda line: f'echo "${{X:-$({line})}}"',
            lambda line: f"echo ${{a[$({line})]}}",
            lambda line: f"echo $((1 + $({line})))",
            lambda line: f"cat <({line})",
            lambda line: f"echo hi >({line})",
            lambda line: f"echo hi | {line}",
            lambda line: f"{line} && echo ok",
            lambda line: f"echo a; {line}",
            lambda line: f"if true; then {line}; fi",
            lambda line: f"( {line} )",
            lambda line: f"cat <<EOF\n$({line})\nEOF" if "\n" not in line else f"echo $({line})",
            lambda line: f"find . -exec {shell_word(line)} \\;",
        ]
    )
    return st.one_of(wrapper, wrapper, shell, fixed)


_DENIED = ["rm f", "rm -rf /", "/bin/rm x", "rm"]
GENERATED: list[str] = []


def test_no_composition_around_a_denied_command_is_allowed() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    rules = CommandRules(
        allow=[f"{w} *" for w in _WRAPPER_FORMS]
        + [f"{s} *" for s in ("sh", "bash", "/bin/bash", "dash", "zsh", "eval", "echo", "cat")]
        + ["find *", "true", "if *"],
        deny=["rm *"],
    )

    @settings(
        max_examples=3000,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.sampled_from(_DENIED), st.lists(_layers(), min_size=1, max_size=4))
    def check(core: str, layers: list[Any]) -> None:
        line = core
        for layer in layers:
            line = layer(line)
        GENERATED.append(line)
        v = rules.evaluate(line)
        assert v is not None and v.permission in (Permission.DENY, Permission.CONFIRM), (line, v)

    check()
    assert len(GENERATED) >= 2000


# --- everyday programs told to run commands; interactive programs -------------------------

EVERYDAY = CommandRules(
    allow=[f"{w} *" for w in ("sed", "git", "tar", "rsync", "zip", "vim", "python3", "ls")]
    + ["python3", "ls"],
    deny=["rm *"],
)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("sed 's/x/rm f/e' a", "runs its replacement as a command"),
        ("sed '1e rm f' a", "runs a command (`e`)"),
        ("sed -n '/x/w out' a", "writes a file (`w`)"),
        ("sed 's/a/b/w out' a", "writes a file (`s///w`)"),
        ("sed -e p -e 'e rm f' a", "runs a command"),
        ("sed --expression='$e rm f' a", "runs a command"),
        ("sed -ne '3e id' a", "runs a command"),
        ("sed -f script.sed a", "`sed -f` runs a script file"),
        ("sed 'k' a", "a sed script the rules cannot read"),
        ("git -c core.pager='rm f' log", "`git -c` can make git run any command"),
        ("git -C sub -c alias.x='!rm f' x", "`git -c`"),
        ("git rebase --exec 'rm f' main", "`git rebase --exec`"),
        ("git rebase -ix 'rm f' main", "`git rebase -x`"),
        ("git fetch --upload-pack='rm f' origin", "--upload-pack"),
        ("git bisect run rm f", "`git bisect run`"),
        ("git submodule foreach 'rm f'", "`git submodule foreach`"),
        ("git config core.sshCommand 'rm f'", "a key that makes git run a command later"),
        ("git config --global alias.st '!rm f'", "a key that makes git run a command later"),
        ("git filter-branch --tree-filter 'rm f'", "runs shell scripts"),
        ("tar --to-command='rm f' -xf a.tar", "`tar --to-command`"),
        ("tar -xI 'rm f' -f a", "`tar -I`"),
        ("tar --checkpoint=1 --checkpoint-action=exec='rm f' -cf a.tar .", "checkpoint-action"),
        ("rsync -ave 'rm f' a b", "`rsync -e`"),
        ("zip -TT 'rm f' a.zip x", "`zip -TT`"),
        ("ls() { echo; }; ls", "a function definition changes what `ls` runs later"),
        ("function git { true; }", "a function definition"),
        ("python3", "starts an interactive prompt"),
        ("python3 -u", "starts an interactive prompt"),
        ("vim notes.txt", "`vim` is interactive"),
        ("ssh host ls", "`ssh` runs commands on another machine"),
    ],
)
def test_programs_told_to_run_commands_ask(line: str, why: str) -> None:
    v = EVERYDAY.evaluate(line)
    assert v is not None and v.permission is Permission.CONFIRM and why in v.reason, (line, v)


@pytest.mark.parametrize(
    "line",
    [
        "sed 's/a/b/g' f",
        "sed -i.bak -e 's|a|b|gI' -e '/x/d' f",
        "sed -n '/a/,/b/p;$!N;P;D' f",
        "sed '/x/{s/a/b/;p}' f",
        "sed 'a appended text' f",
        "sed 1~2d f",
        "sed -E 's/(a)/\\1/2;3q' f",
        "git status",
        "git -C sub log --oneline",
        "git commit -m 'x'",
        "git config user.name me",
        "tar -xzf a.tgz",
        "rsync -avz a b",
        "python3 -m pytest -q",
        "python3 script.py",
    ],
)
def test_everyday_use_of_those_programs_stays_allowed(line: str) -> None:
    v = EVERYDAY.evaluate(line)
    assert v is not None and v.permission is Permission.AUTO, (line, v)
