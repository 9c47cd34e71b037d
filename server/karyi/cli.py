"""The `karyi` command line (SPEC §10): a thin adapter over the core.

Exit codes: 0 ok, 1 a tool or task failed, 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from karyi import __version__
from karyi.agent.executor import (
    ApprovalRequest,
    Approver,
    Decision,
    Executed,
    approve_all,
    run_calls,
)
from karyi.cli_var import add_parser as add_var_parser
from karyi.protocol import DIALECTS, get_dialect
from karyi.protocol.calls import ToolCall, events_calls
from karyi.protocol.jsonscan import JsonSlip, loads_lenient
from karyi.protocol.native import NativeParser, parse_message
from karyi.secrets.redact import RedactingFilter
from karyi.secrets.request import ValueAnswer, ValueRequest
from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault
from karyi.settings import Settings, load_settings
from karyi.shell.manager import ShellManager
from karyi.tools.base import ToolContext
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.tools.prompt import declarations, tool_prompt
from karyi.tools.registry import Toolkit, ToolLookupError
from karyi.workspace.workspace import Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or configuration: exit code 2 with this message."""


def _settings(workspace: Path | None, args: argparse.Namespace) -> Settings:
    flags = {"dialect": getattr(args, "dialect", None), "profile": getattr(args, "profile", None)}
    settings = load_settings(workspace, flags=flags)
    for warning in settings.warnings:
        print(f"karyi: warning: {warning}", file=sys.stderr)
    return settings


def _toolkit(settings: Settings) -> Toolkit:
    try:
        return default_toolkit(builtin_registry(), settings.profile)
    except ToolLookupError as exc:
        raise UsageError(str(exc)) from None


def _workspace(path: str | None) -> Path:
    root = Path(path or ".").expanduser()
    if not root.is_dir():
        raise UsageError(f"--workspace {root}: not a directory")
    return root.resolve()


class TerminalApprover:
    """Asks on the terminal; refuses when no terminal is available."""

    def __init__(self, tty: IO[str] | None, lock: asyncio.Lock | None = None) -> None:
        self.tty = tty
        self.lock = lock or asyncio.Lock()

    async def __call__(self, request: ApprovalRequest) -> Decision:
        """Show the request and read y/n (anything else is no)."""
        if self.tty is None:
            return Decision(
                False,
                "no terminal to ask for confirmation (the user can rerun with --yes)",
            )
        async with self.lock:
            return await asyncio.to_thread(self._ask, request)

    def _ask(self, request: ApprovalRequest) -> Decision:
        assert self.tty is not None
        out = sys.stderr
        out.write(f"\n{request.description}\n")
        conf = request.confirmation
        if conf is not None:
            for text in (conf.details, conf.diff, conf.url):
                if text:
                    out.write(text.rstrip() + "\n")
        if request.reason:
            out.write(f"({request.reason})\n")
        out.write("Allow? [y/N] ")
        out.flush()
        answer = self.tty.readline().strip().lower()
        return Decision(answer in ("y", "yes"))


class TerminalValueAsker:
    """Answers `get_value` on the terminal: the value is read without echo (getpass on
    /dev/tty), then whether to save it and with which note."""

    def __init__(self, tty: IO[str], lock: asyncio.Lock) -> None:
        self.tty = tty
        self.lock = lock

    async def __call__(self, request: ValueRequest) -> ValueAnswer | None:
        """Ask; None when the user gives nothing."""
        async with self.lock:
            return await asyncio.to_thread(self._ask, request)

    def _ask(self, request: ValueRequest) -> ValueAnswer | None:
        out = sys.stderr
        out.write(f"\nThe agent asks for a secret value: {request.key}\n")
        out.write(f"Reason: {request.reason}\n")
        if request.exists:
            out.write("(a value is stored already: press Enter to keep it)\n")
        out.flush()
        try:
            value = getpass.getpass(f"{request.key} (input hidden, empty to refuse): ")
        except (EOFError, KeyboardInterrupt):
            return None
        if not value:
            return ValueAnswer("", False) if request.exists else None
        out.write("Save it for later sessions? [y/N] ")
        out.flush()
        save = self.tty.readline().strip().lower() in ("y", "yes")
        note = request.note
        if save:
            out.write(f"Note [{request.note}]: ")
            out.flush()
            note = self.tty.readline().strip() or request.note
        return ValueAnswer(value, save, note)


def _open_tty(stdin_used: bool) -> IO[str] | None:
    if not stdin_used and sys.stdin.isatty():
        return sys.stdin
    try:
        return open("/dev/tty", encoding="utf-8")
    except OSError:
        return None


def _read_reply(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror}") from None


def _parse(text: str, dialect_name: str, toolkit: Toolkit) -> list[ToolCall]:
    dialect = get_dialect(dialect_name)
    parser = dialect.parser(toolkit.schema)
    if isinstance(parser, NativeParser):
        try:
            message: Any = loads_lenient(text)
        except JsonSlip as exc:
            raise UsageError(
                f"a native reply must be JSON (tool calls or a message): {exc}"
            ) from None
        return events_calls(parse_message(parser, message))
    return events_calls(parser.parse(text))


def _json_result(item: Executed) -> dict[str, Any]:
    r = item.result
    return {
        "index": item.call.index,
        "id": item.call.id,
        "name": item.call.name,
        "success": r.success,
        "llm_content": r.llm_content,
        "error": {"code": r.error.code, "message": r.error.message} if r.error else None,
        "data": r.data,
    }


def cmd_exec(args: argparse.Namespace) -> int:
    """Parse a model reply and execute its calls."""
    root = _workspace(args.workspace)
    settings = _settings(root, args)
    toolkit = _toolkit(settings)
    text = _read_reply(args.reply)
    calls = _parse(text, settings.dialect, toolkit)
    if not calls:
        print("karyi: no tool calls found in the reply", file=sys.stderr)
        if args.json:
            print("[]")
        return EXIT_OK
    workspace = Workspace.open(root, settings.allowed_roots)
    tty = _open_tty(args.reply == "-")
    executed = asyncio.run(_exec_calls(calls, toolkit, workspace, settings, tty, args.yes))
    if args.json:
        print(json.dumps([_json_result(e) for e in executed], ensure_ascii=False, indent=2))
    else:
        print(get_dialect(settings.dialect).render_results([e.outcome() for e in executed]))
    return EXIT_OK if all(e.result.success for e in executed) else EXIT_FAILED


async def _exec_calls(
    calls: list[ToolCall],
    toolkit: Toolkit,
    workspace: Workspace,
    settings: Settings,
    tty: IO[str] | None,
    yes: bool,
) -> list[Executed]:
    """Run the calls with a session's shell and vault; the shell is closed before return,
    so no process the calls started outlives `karyi exec`."""
    vault = Vault(SecretStore.default())
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter(lambda: vault.redactor))
    shell = ShellManager(workspace, settings, vault)
    lock = asyncio.Lock()
    ctx = ToolContext(
        workspace=workspace,
        settings=settings,
        session_id="exec",
        shell=shell,
        secrets=vault,
        ask_value=TerminalValueAsker(tty, lock) if tty is not None else None,
    )
    approver: Approver = approve_all if yes else TerminalApprover(tty, lock)
    try:
        return await run_calls(calls, toolkit, ctx, approver)
    finally:
        await shell.close()


def cmd_tools(args: argparse.Namespace) -> int:
    """Print the generated tool prompt (or the function declarations)."""
    root = _workspace(args.workspace)
    settings = _settings(root, args)
    toolkit = _toolkit(settings)
    if args.json:
        print(json.dumps(declarations(toolkit), ensure_ascii=False, indent=2))
    else:
        print(tool_prompt(toolkit, settings.dialect), end="")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    top = argparse.ArgumentParser(
        prog="karyi",
        description="Karyi: an AI coding agent that lives inside the editor.",
    )
    top.add_argument("--version", action="version", version=f"karyi {__version__}")
    top.add_argument("-v", "--verbose", action="store_true", help="log debug detail to stderr")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--workspace", metavar="DIR", help="workspace root (default: .)")
        p.add_argument("--dialect", choices=list(DIALECTS), help="the dialect the model speaks")
        p.add_argument("--profile", metavar="P", help="tool profile (karyi, agentxml, vecli, ...)")

    p = sub.add_parser(
        "exec",
        help="execute the tool calls in a model reply",
        description="Parse a model reply (prose plus tool calls) and execute its calls, "
        "printing the results in the dialect's result format.",
    )
    common(p)
    p.add_argument("--yes", action="store_true", help="approve calls that need confirmation")
    p.add_argument("--json", action="store_true", help="print results as a JSON array")
    p.add_argument(
        "reply", nargs="?", default="-", metavar="FILE|-", help="the reply (default: stdin)"
    )
    p.set_defaults(func=cmd_exec)

    p = sub.add_parser(
        "tools",
        help="print the tool prompt for a dialect and profile",
        description="Print the tool instructions the model gets in its system prompt.",
    )
    common(p)
    p.add_argument("--json", action="store_true", help="print function declarations as JSON")
    p.set_defaults(func=cmd_tools)
    add_var_parser(sub)
    return top


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `karyi` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="karyi: %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    for sig in (signal.SIGTERM, signal.SIGHUP):
        # Exit through Python so cleanups run (the shell manager kills what commands
        # started), instead of dying where we stand.
        signal.signal(sig, _exit_on_signal)
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"karyi: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
