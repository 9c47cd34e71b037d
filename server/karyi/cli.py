"""The `karyi` command line (SPEC §10): a thin adapter over the core.

Exit codes: 0 ok, 1 a tool or task failed, 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from rich.console import Console

from karyi import __version__
from karyi.agent.events import EventStream
from karyi.agent.executor import Approver, Executed, approve_all, run_calls
from karyi.agent.runtime import Runtime
from karyi.agent.sessions import SessionNotFound
from karyi.cli_mcp import add_parser as add_mcp_parser
from karyi.cli_var import add_parser as add_var_parser
from karyi.gateway.config import DEFAULT_HOST, DEFAULT_PORT
from karyi.llm.base import ProviderError
from karyi.protocol import DIALECTS, get_dialect
from karyi.protocol.calls import ToolCall, events_calls
from karyi.protocol.jsonscan import JsonSlip, loads_lenient
from karyi.protocol.native import NativeParser, parse_message
from karyi.secrets.redact import RedactingFilter
from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault
from karyi.settings import Settings, load_settings
from karyi.shell.manager import ShellManager
from karyi.terminal import TerminalApprover, TerminalValueAsker, TerminalView
from karyi.tools.base import ToolContext
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.tools.prompt import declarations, tool_prompt
from karyi.tools.registry import Toolkit, ToolLookupError
from karyi.workspace.workspace import Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or configuration: exit code 2 with this message."""


def _settings(workspace: Path | None, args: argparse.Namespace) -> Settings:
    flags = {
        "dialect": getattr(args, "dialect", None),
        "profile": getattr(args, "profile", None),
        "model": getattr(args, "model", None),
    }
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


def _task_text(words: list[str]) -> str:
    text = sys.stdin.read() if words == ["-"] else " ".join(words)
    if not text.strip():
        raise UsageError('the task is empty: karyi run "what to do"')
    return text


async def _run_turn(runtime: Runtime, args: argparse.Namespace, text: str) -> int:
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = Console(highlight=False, soft_wrap=True)
    try:
        provider = runtime.provider()
    except ProviderError as exc:
        raise UsageError(exc.message) from None
    try:
        conversation = runtime.conversation(args.session)
    except SessionNotFound as exc:
        raise UsageError(str(exc)) from None
    events = EventStream()
    if args.json:
        events.subscribe(
            lambda e: print(json.dumps(e.to_dict(), ensure_ascii=False, default=str), flush=True)
        )
    else:
        events.subscribe(TerminalView(out, err, verbose=args.verbose))
        where = f"{provider.label} · {runtime.workspace.root} · session {conversation.id}"
        err.print(f"[dim]karyi · {where}[/dim]")
    tty = _open_tty(False)
    lock = asyncio.Lock()
    approver: Approver = approve_all if args.yes else TerminalApprover(tty, err, lock=lock)
    runtime.ask_value = TerminalValueAsker(tty, lock) if tty is not None else None
    agent = runtime.agent(conversation, approver=approver, provider=provider, events=events)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    try:
        result = await agent.run(text)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await provider.aclose()
        await runtime.aclose()
    if result.stop_reason == "cancelled":
        return 130
    return EXIT_OK if result.stop_reason in ("end_turn", "final_answer") else EXIT_FAILED


def cmd_run(args: argparse.Namespace) -> int:
    """Run one agent task in the terminal."""
    root = _workspace(args.workspace)
    settings = _settings(root, args)
    _toolkit(settings)  # an unknown profile is a usage error before anything starts
    text = _task_text(args.task)
    runtime = Runtime.open(root, settings)
    try:
        return asyncio.run(_run_turn(runtime, args, text))
    finally:
        runtime.close()


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
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    approver: Approver = approve_all if yes else TerminalApprover(tty, err, lock=lock)
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


def cmd_lsp(args: argparse.Namespace) -> int:
    """Run the language server on stdio or TCP."""
    from karyi.lsp.server import create_server

    server = create_server()
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            raise UsageError(f"--tcp {args.tcp}: expected HOST:PORT, e.g. 127.0.0.1:2087")
        server.start_tcp(host, int(port))
    else:
        server.start_io()
    return EXIT_OK


def cmd_gateway(args: argparse.Namespace) -> int:
    """Serve the HTTP gateway until interrupted."""
    from karyi.gateway.config import ConfigError
    from karyi.gateway.server import serve

    root = _workspace(args.workspace)
    settings = _settings(root, args)
    _toolkit(settings)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0-65535 (0 picks a free port)")
    try:
        serve(root, settings, args.host, args.port, out=sys.stderr, access_log=args.verbose)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
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
        "lsp",
        help="run the language server (for editors)",
        description="Run the Karyi language server. Editors start it with --stdio.",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead")
    p.set_defaults(func=cmd_lsp)

    p = sub.add_parser(
        "run",
        help="run an agent task in the terminal",
        description="Run one agent task: the model reads, edits and runs commands in the "
        "workspace, asking before anything risky. Ctrl-C cancels the turn.",
    )
    common(p)
    p.add_argument("--model", metavar="M", help="provider:name, e.g. openai:gpt-4.1")
    p.add_argument("--yes", action="store_true", help="approve every call without asking")
    p.add_argument("--session", metavar="ID", help="continue a stored session")
    p.add_argument("--json", action="store_true", help="print events as JSON lines")
    p.add_argument("task", nargs="+", help='what to do (or "-" to read it from stdin)')
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "gateway",
        help="serve the HTTP gateway (POST /agent/process)",
        description="Serve seed 004's HTTP gateway: POST /agent/process runs a tool "
        "(biz_params.tool) or an agent turn. Binds 127.0.0.1 unless told otherwise; any "
        "other address needs a bearer token (KARYI_GATEWAY_TOKEN or settings gateway.token).",
    )
    common(p)
    p.add_argument("--model", metavar="M", help="provider:name for agent turns")
    p.add_argument(
        "--host", default=DEFAULT_HOST, help=f"address to listen on (default: {DEFAULT_HOST})"
    )
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port (default: {DEFAULT_PORT}; 0 picks one)",
    )
    p.set_defaults(func=cmd_gateway)

    p = sub.add_parser(
        "tools",
        help="print the tool prompt for a dialect and profile",
        description="Print the tool instructions the model gets in its system prompt.",
    )
    common(p)
    p.add_argument("--json", action="store_true", help="print function declarations as JSON")
    p.set_defaults(func=cmd_tools)
    add_var_parser(sub)
    add_mcp_parser(sub)
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
