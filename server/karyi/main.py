"""The `karyi` launcher: the one module above every front end.

It builds the command line from each front end's own subcommands (the terminal's in
`karyi.cli.subcommands`, `karyi lsp` in `karyi.lsp.subcommand`, `karyi acp` in
`karyi.acp.subcommand`, `karyi gateway` in `karyi.gateway.subcommand`) and runs the chosen
one. Each command's implementation is imported only when that command runs (`karyi lsp`
must start fast: an editor waits for it). Exit codes: 0 ok, 1 a tool or task failed, 2
bad usage or configuration.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence

from karyi import __version__
from karyi.acp import subcommand as acp
from karyi.agent.frontend.startup import EXIT_FAILED, EXIT_USAGE, UsageError
from karyi.cli import subcommands as cli
from karyi.core.errors import ManagedSettingsError
from karyi.core.images import ElideImageData
from karyi.core.storage import StorageUnavailable
from karyi.gateway import subcommand as gateway
from karyi.lsp import subcommand as lsp

Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand, in the order `karyi --help` lists them."""
    top = argparse.ArgumentParser(
        prog="karyi",
        description="Karyi: an AI coding agent that lives inside the editor.",
    )
    top.add_argument("--version", action="version", version=f"karyi {__version__}")
    top.add_argument("-v", "--verbose", action="store_true", help="log debug detail to stderr")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    cli.add_exec_parser(sub)
    lsp.add_parser(sub)
    acp.add_parser(sub)
    cli.add_run_parser(sub)
    cli.add_chat_parser(sub)
    gateway.add_parser(sub)
    cli.add_tools_parser(sub)
    cli.add_var_parser(sub)
    cli.add_login_parser(sub)
    cli.add_mcp_parser(sub)
    cli.add_task_parser(sub)
    cli.add_batch_parser(sub)
    cli.add_plugin_parser(sub)
    cli.add_review_parser(sub)
    cli.add_settings_parser(sub)
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
    for handler in logging.getLogger().handlers:
        handler.addFilter(ElideImageData())
    func: Command | None = getattr(args, "func", None)
    if func is None and sys.stdin.isatty() and sys.stdout.isatty():
        given = list(sys.argv[1:] if argv is None else argv)
        args = parser.parse_args([*given, "chat"])  # `karyi` alone on a terminal: the chat
        func = args.func
    if func is None:
        parser.print_help()
        return EXIT_USAGE
    for sig in (signal.SIGTERM, signal.SIGHUP):
        # Exit through Python so cleanups run (the shell manager kills what commands
        # started), instead of dying where we stand.
        signal.signal(sig, _exit_on_signal)
    try:
        return int(func(args))
    except UsageError as exc:
        print(f"karyi: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ManagedSettingsError as exc:  # never run without the organisation's policy
        print(f"karyi: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except StorageUnavailable as exc:  # a full or read-only disk: one sentence, no traceback
        print(f"karyi: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`karyi exec … | head -1`): stop quietly, and keep Python
        # from failing again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
