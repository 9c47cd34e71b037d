"""The `karyi` command line (SPEC §10): argument parsing and dispatch.

Each command's implementation is imported only when that command runs (`karyi lsp`
must start fast: an editor waits for it). Exit codes: 0 ok, 1 a tool or task failed,
2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import signal
import sys
from collections.abc import Iterator, Sequence

from karyi import __version__
from karyi.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    settings_for,
    toolkit_for,
    workspace_root,
)
from karyi.cli.mcp import add_parser as add_mcp_parser
from karyi.cli.var import add_parser as add_var_parser


class _DialectNames:
    """The dialect names as argparse `choices`, imported only when an argument is checked
    or help is shown: `karyi lsp` must answer `initialize` without loading the parsers."""

    def __contains__(self, name: object) -> bool:
        from karyi.protocol import DIALECTS

        return name in DIALECTS

    def __iter__(self) -> Iterator[str]:
        from karyi.protocol import DIALECTS

        return iter(DIALECTS)


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
    from karyi.gateway.config import DEFAULT_HOST, DEFAULT_PORT, ConfigError
    from karyi.gateway.server import serve

    args.host = DEFAULT_HOST if args.host is None else args.host
    args.port = DEFAULT_PORT if args.port is None else args.port
    root = workspace_root(args.workspace)
    settings = settings_for(root, args)
    toolkit_for(settings)
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
        p.add_argument(
            "--dialect",
            choices=_DialectNames(),
            metavar="DIALECT",
            help="the dialect the model speaks: %(choices)s",
        )
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
    p.set_defaults(func="karyi.cli.exec:cmd_exec")

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
    p.set_defaults(func="karyi.cli.run:cmd_run")

    p = sub.add_parser(
        "gateway",
        help="serve the HTTP gateway (POST /agent/process)",
        description="Serve seed 004's HTTP gateway: POST /agent/process runs a tool "
        "(biz_params.tool) or an agent turn. Binds 127.0.0.1 unless told otherwise; any "
        "other address needs a bearer token (KARYI_GATEWAY_TOKEN or settings gateway.token).",
    )
    common(p)
    p.add_argument("--model", metavar="M", help="provider:name for agent turns")
    p.add_argument("--host", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default: 8765; 0 picks one)")
    p.set_defaults(func=cmd_gateway)

    p = sub.add_parser(
        "tools",
        help="print the tool prompt for a dialect and profile",
        description="Print the tool instructions the model gets in its system prompt.",
    )
    common(p)
    p.add_argument("--json", action="store_true", help="print function declarations as JSON")
    p.add_argument(
        "--builtin",
        action="store_true",
        help="only the built-in tools (no discovery command, no MCP servers started)",
    )
    p.set_defaults(func="karyi.cli.exec:cmd_tools")
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
    func = args.func
    if isinstance(func, str):  # "module:function", imported only for the command that runs
        module, _, name = func.partition(":")
        func = getattr(importlib.import_module(module), name)
    try:
        return int(func(args))
    except UsageError as exc:
        print(f"karyi: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
