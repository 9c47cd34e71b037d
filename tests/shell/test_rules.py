"""Command rules: every simple command of a line is judged, after a real parse."""

from __future__ import annotations

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
