"""The terminal front end's subcommands for the launcher `karyi.main`: the arguments and
help of `karyi exec`, `run`, `tools`, `var`, `mcp`, `settings`, `task`, `batch`, `plugin`
and `review`.

Each command's module is imported only when that command runs (the function-level
imports below), so registering these costs `karyi lsp` nothing at startup.
"""

from __future__ import annotations

import argparse
import functools
import importlib
from collections.abc import Callable
from typing import Any, NoReturn, TypeAlias

from karyi.agent.frontend.startup import add_settings_options
from karyi.core.collector import fewer_collections, paused

#: What `ArgumentParser.add_subparsers` returns: the launcher's list of subcommands.
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_exec_parser(sub: Subparsers) -> None:
    """Register `karyi exec`: execute the tool calls in a model reply."""
    p = sub.add_parser(
        "exec",
        help="execute the tool calls in a model reply",
        description="Parse a model reply (prose plus tool calls) and execute its calls, "
        "printing the results in the dialect's result format.",
    )
    add_settings_options(p)
    p.add_argument("--yes", action="store_true", help="approve calls that need confirmation")
    p.add_argument("--json", action="store_true", help="print results as a JSON array")
    p.add_argument(
        "reply", nargs="?", default="-", metavar="FILE|-", help="the reply (default: stdin)"
    )
    p.set_defaults(func=_lazy("exec", pause=True))


def add_run_parser(sub: Subparsers) -> None:
    """Register `karyi run`: one agent task in the terminal."""
    p = sub.add_parser(
        "run",
        help="run an agent task in the terminal",
        description="Run one agent task: the model reads, edits and runs commands in the "
        "workspace, asking before anything risky. Ctrl-C cancels the turn.",
    )
    add_settings_options(p)
    p.add_argument("--model", metavar="M", help="provider:name, e.g. openai:gpt-4.1")
    p.add_argument("--yes", action="store_true", help="approve every call without asking")
    p.add_argument(
        "--image",
        action="append",
        default=[],
        metavar="FILE",
        help="attach a PNG, JPEG, GIF or WebP picture to the task (repeatable; docs/images.md)",
    )
    p.add_argument("--session", metavar="ID", help="continue a stored session")
    p.add_argument(
        "--rewind",
        type=int,
        metavar="N",
        help="with --session: first take the session back to before its Nth turn "
        "(1 is the first; the numbers it prints), its code and its conversation; files you "
        "changed since are kept (docs/sessions.md#rewind)",
    )
    p.add_argument(
        "--rewind-only",
        choices=("code", "conversation"),
        help="with --rewind: restore only the code, or only the conversation",
    )
    p.add_argument("--json", action="store_true", help="print events as JSON lines")
    p.add_argument(
        "--mode",
        choices=("plan", "act"),
        help="plan: only read and search, then answer with a plan (on a terminal you are "
        "asked whether to carry it out); act: the default",
    )
    p.add_argument("task", nargs="+", help='what to do (or "-" to read it from stdin)')
    p.set_defaults(func=_lazy("run", pause=True))


def add_chat_parser(sub: Subparsers) -> None:
    """Register `karyi chat`: the full-screen chat (also `karyi` alone on a terminal)."""
    p = sub.add_parser(
        "chat",
        help="chat with the agent in a full-screen terminal (the default on a terminal)",
        description="Open the interactive chat: streaming answers, tool cards, diffs "
        "reviewed hunk by hunk, questions answered with a key (docs/terminal.md).",
    )
    add_settings_options(p)
    p.add_argument("--model", metavar="M", help="provider:name, e.g. openai:gpt-4.1")
    p.add_argument("--session", metavar="ID", help="continue a stored session")
    p.set_defaults(func=chat_command, session=None)


def chat_command(args: argparse.Namespace) -> int:
    """`karyi chat`, imported when it runs (Textual loads with the chat only)."""
    from karyi.cli.chat.command import cmd_chat

    with paused():  # until the chat's start-up is over: it calls `resume`
        return cmd_chat(args)


def add_tools_parser(sub: Subparsers) -> None:
    """Register `karyi tools`: print the tool prompt the model gets."""
    p = sub.add_parser(
        "tools",
        help="print the tool prompt for a dialect and profile",
        description="Print the tool instructions the model gets in its system prompt.",
    )
    add_settings_options(p)
    p.add_argument("--json", action="store_true", help="print function declarations as JSON")
    p.add_argument(
        "--builtin",
        action="store_true",
        help="only the built-in tools (no discovery command, no MCP servers started)",
    )
    p.set_defaults(func=_lazy("tools"))


def add_var_parser(sub: Subparsers) -> None:
    """Register `karyi var` and its actions (`set`, `get`, `list`, `rm`)."""
    p = sub.add_parser(
        "var",
        help="secure variables ($KARYI{NAME})",
        description="Store, show, list and remove secure variables. Values live in the OS "
        "keyring when one works, else in a 0600 file in the user config dir.",
    )
    p.set_defaults(func=_lazy("var"), action=None)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = actions.add_parser(
        "set",
        help="store a value (read hidden from the terminal, or from stdin)",
        description="Store NAME. The value is read from a hidden prompt, or from stdin "
        "when stdin is not a terminal (one trailing newline is dropped); never from the "
        "command line.",
    )
    s.add_argument("name", metavar="NAME")
    s.add_argument("--note", help="what the value is for (kept with it, shown by list)")
    g = actions.add_parser("get", help="print a value (to a terminal, or with --pipe)")
    g.add_argument("name", metavar="NAME")
    g.add_argument("--pipe", action="store_true", help="allow writing to a pipe or file")
    actions.add_parser("list", help="names, notes and where values live (never values)")
    r = actions.add_parser("rm", help="remove a value")
    r.add_argument("name", metavar="NAME")


def add_login_parser(sub: Subparsers) -> None:
    """Register `karyi login` and `karyi logout`: store the model provider's API key in
    the keyring, and remove it."""
    p = sub.add_parser(
        "login",
        help="sign in: store the model's API key in the keyring",
        description="Ask for the API key of the model (hidden input) and keep it in the OS "
        "keyring under the provider's usual variable name, where Karyi finds it when the "
        "environment has none. Editors with terminal sign-in run this (docs/acp.md).",
    )
    p.add_argument("--model", metavar="M", help="provider:name (default: the settings' model)")
    p.set_defaults(func=_lazy("login"))
    p = sub.add_parser(
        "logout",
        help="sign out: remove the model's API key from the keyring",
        description="Remove the API key of the model from the keyring (every name Karyi "
        "looks it up under), the other half of `karyi login`. A key set in the environment "
        "stays in use until it is unset there.",
    )
    p.add_argument("--model", metavar="M", help="provider:name (default: the settings' model)")
    p.set_defaults(func=_lazy("logout"))


def add_mcp_parser(sub: Subparsers) -> None:
    """Register `karyi mcp`: start the MCP servers and show their status and tools."""
    p = sub.add_parser(
        "mcp",
        help="start the MCP servers and show their status and tools",
        description="Start every MCP server of the settings (and the discovery command), "
        "print each server's state, error and tools, then stop them.",
    )
    p.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
    p.add_argument("--json", action="store_true", help="print the status as JSON")
    p.set_defaults(func=_lazy("mcp"))


def add_task_parser(sub: Subparsers) -> None:
    """Register `karyi task` and its actions: background tasks in their own worktrees."""
    p = sub.add_parser(
        "task",
        help="background tasks in their own git worktrees",
        description="Run agent tasks in the background, each in its own git worktree and "
        "branch, then review, apply, keep or discard what they did (docs/parallel.md).",
    )
    p.set_defaults(func=_lazy("task"))
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = actions.add_parser("start", help="start a task (it runs on after this returns)")
    _workspace(s)
    s.add_argument("--ref", help="start from this commit or branch (default: the working tree)")
    s.add_argument("--check", metavar="CMD", help="a shell command judging the result")
    s.add_argument("--model", metavar="M", help="provider:name, e.g. openai:gpt-4.1")
    s.add_argument("--wait", action="store_true", help="wait until it has finished")
    s.add_argument("--json", action="store_true", help="print the record as JSON")
    s.add_argument("task", nargs="+", help='what to do (or "-" to read it from stdin)')
    ls = actions.add_parser("list", help="every task with status, step, time and cost")
    _workspace(ls)
    ls.add_argument("--json", action="store_true", help="print the records as JSON")
    for name, text in (
        ("show", "a task's state (--diff: its changes)"),
        ("answer", "answer the question a waiting task asks"),
        ("stop", "stop a task; what it did so far is kept"),
        ("apply", "merge a finished task's changes into the working tree"),
        ("keep", "keep a finished task's branch, remove its worktree"),
        ("discard", "remove a task's worktree and branch"),
    ):
        a = actions.add_parser(name, help=text, description=text)
        _workspace(a)
        a.add_argument("id", metavar="ID", help="the task id (or a unique prefix)")
        if name in ("show", "stop"):
            a.add_argument("--wait", action="store_true", help="wait until it has finished")
        if name in ("show", "apply"):
            a.add_argument("--json", action="store_true", help="print JSON")
        if name == "show":
            a.add_argument("--diff", action="store_true", help="print the task's diff")
        if name == "answer":
            a.add_argument("reply", choices=("yes", "no"))
            a.add_argument("--feedback", help="what the model is told with the answer")
    runner = actions.add_parser("_runner")  # started by `start`: see cli/task_runner.py
    _workspace(runner)


def add_batch_parser(sub: Subparsers) -> None:
    """Register `karyi batch`: many tasks from a JSON-lines file, on a pool or on Ray."""
    p = sub.add_parser(
        "batch",
        help="run the tasks of a JSON-lines file, each in its own worktree",
        description="Run every task of TASKS.jsonl (repo, ref, task, check, model) as a "
        "background task with a bounded pool, or on a Ray cluster with --ray; each task's "
        "changes are left as a branch (a patch file for a URL) (docs/parallel.md#batches).",
    )
    p.add_argument("tasks", metavar="TASKS.jsonl")
    p.add_argument(
        "--jobs", type=int, metavar="N", help="tasks at once (default: agents.maxParallel)"
    )
    p.add_argument("--report", metavar="FILE", help="the JSON report (default: TASKS.report.json)")
    p.add_argument("--model", metavar="M", help="the model of tasks that name none")
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        nargs="?",
        const="",
        help="run the tasks on the Ray cluster at ADDRESS (default: RAY_ADDRESS); needs "
        "the extra karyi-agent[ray]",
    )
    p.set_defaults(func=_lazy("batch"))


def add_plugin_parser(sub: Subparsers) -> None:
    """Register `karyi plugin`: plugins in Claude Code's layout, and marketplaces."""
    p = sub.add_parser(
        "plugin",
        help="install, list, enable, disable and remove plugins",
        description="Plugins in Claude Code's layout (commands, agents, skills, hooks, MCP "
        "servers) from a folder, a git URL or NAME@MARKETPLACE (docs/extensions.md#plugins).",
    )
    p.set_defaults(func=_lazy("plugin"))
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = actions.add_parser("add", help="install a plugin (PATH, GIT_URL or NAME@MARKETPLACE)")
    a.add_argument("source", metavar="PATH|GIT_URL|NAME@MARKETPLACE")
    _scope(a, "user")
    ls = actions.add_parser("list", help="the installed plugins")
    _workspace(ls)
    ls.add_argument("--json", action="store_true", help="print them as JSON")
    for name, text in (
        ("remove", "uninstall a plugin"),
        ("enable", "enable an installed plugin"),
        ("disable", "disable an installed plugin (its files stay)"),
    ):
        x = actions.add_parser(name, help=text, description=text)
        x.add_argument("name", metavar="NAME")
        _scope(x, None)
    m = actions.add_parser("marketplace", help="marketplaces: lists of plugins to install")
    markets = m.add_subparsers(dest="market_action", metavar="ACTION", required=True)
    ma = markets.add_parser("add", help="add a marketplace (PATH or GIT_URL)")
    ma.add_argument("source", metavar="PATH|GIT_URL")
    ml = markets.add_parser("list", help="the marketplaces and their plugins")
    ml.add_argument("--json", action="store_true", help="print them as JSON")
    mr = markets.add_parser("remove", help="forget a marketplace")
    mr.add_argument("name", metavar="NAME")


def _scope(p: argparse.ArgumentParser, default: str | None) -> None:
    p.add_argument(
        "--scope",
        choices=("user", "workspace"),
        default=default,
        help="user: every workspace; workspace: this one only (it may only tighten)"
        + (f" (default: {default})" if default else ""),
    )
    _workspace(p)


def add_review_parser(sub: Subparsers) -> None:
    """Register `karyi review`: review a change with focused reviewers (docs/review.md)."""
    p = sub.add_parser(
        "review",
        help="review a change: uncommitted work, a branch since its base, or a commit",
        description="Review a change with focused reviewers (correctness, security, tests) "
        "run in parallel; only findings on the changed lines are kept. Exit status: 1 "
        "when a finding reaches --fail-on, 0 otherwise, 2 on bad input (docs/review.md).",
    )
    setattr(p, "error", functools.partial(_one_line_error, p))  # noqa: B010
    setattr(p, "parse_known_args", functools.partial(_all_known, p, p.parse_known_args))  # noqa: B010
    add_settings_options(p)
    p.add_argument("--model", metavar="M", help="provider:name, e.g. openai:gpt-4.1")
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--uncommitted",
        action="store_true",
        help="the working tree against HEAD, untracked files included (the default)",
    )
    which.add_argument("--base", metavar="REF", help="the commits since the branch left REF")
    which.add_argument("--commit", metavar="SHA", help="the changes of one commit")
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument("--output", metavar="FILE", help="write the report here (default: stdout)")
    p.add_argument(
        "--fail-on",
        choices=("error", "warning", "never"),
        default="error",
        help="exit 1 when a finding is this severe or more (default: error)",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        default=400_000,
        metavar="N",
        help="the reviewers' budget together, input plus output (default: 400000)",
    )
    p.add_argument("--max-cost", type=float, metavar="USD", help="a budget in dollars")
    p.add_argument("paths", nargs="*", metavar="PATHS", help="review only these files/folders")
    p.set_defaults(func=_lazy("review"))


def _all_known(
    parser: argparse.ArgumentParser,
    parse: Callable[..., tuple[argparse.Namespace, list[str]]],
    *args: Any,
    **kwargs: Any,
) -> tuple[argparse.Namespace, list[str]]:
    """Parse, refusing an unknown option here: its error is then one line naming
    `karyi review`, not the launcher's usage."""
    found, extra = parse(*args, **kwargs)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return found, extra


def _one_line_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """A bad option as one line on stderr, exit status 2."""
    parser.exit(2, f"{parser.prog}: error: {message}\n")


def add_settings_parser(sub: Subparsers) -> None:
    """Register `karyi settings`: the effective settings and where each value came from."""
    p = sub.add_parser(
        "settings",
        help="print the effective settings and where each value came from",
        description="Print every settings key in force for the workspace, its value and "
        "the layer that set it; keys the organisation's managed settings pin are marked "
        "(docs/settings.md, docs/security.md#managed-settings).",
    )
    add_settings_options(p)
    p.add_argument("--json", action="store_true", help="print {key: {value, source}} as JSON")
    p.set_defaults(func=_lazy("settings"))


def _workspace(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workspace", metavar="DIR", help="the repository (default: .)")


def _lazy(module: str, *, pause: bool = False) -> Callable[[argparse.Namespace], int]:
    """The subcommand `karyi.cli.MODULE.cmd_MODULE`, imported only when it runs; with
    `pause`, the collector waits until the command says its start-up is over
    (core/collector.py)."""

    def command(args: argparse.Namespace) -> int:
        if pause:
            with paused():  # until the command's start-up is over: it calls `resume`
                return int(_command(module)(args))
        with fewer_collections():  # the modules it loads live as long as the command
            run = _command(module)
        return int(run(args))

    return command


def _command(module: str) -> Callable[[argparse.Namespace], int]:
    found: Callable[[argparse.Namespace], int] = getattr(
        importlib.import_module(f"karyi.cli.{module}"), f"cmd_{module}"
    )
    return found
