"""`karyi lsp`: the language server's subcommand, registered by the launcher `karyi.main`.

The server is imported only when the command runs, and nothing else of karyi before it
answers `initialize`: an editor waits for it (benches/bench_startup.py measures it).
"""

from __future__ import annotations

import argparse

from karyi.agent.frontend.startup import EXIT_OK, UsageError
from karyi.core.collector import fewer_collections


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `karyi lsp [--stdio | --tcp HOST:PORT]`."""
    p = sub.add_parser(
        "lsp",
        help="run the language server (for editors)",
        description="Run the Karyi language server. Editors start it with --stdio.",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead")
    p.set_defaults(func=cmd_lsp)


def cmd_lsp(args: argparse.Namespace) -> int:
    """Run the language server on stdio or TCP."""
    with fewer_collections():  # pygls and lsprotocol live as long as the server
        from karyi.lsp.features import create_server

        server = create_server()
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            raise UsageError(f"--tcp {args.tcp}: expected HOST:PORT, e.g. 127.0.0.1:2087")
        server.start_tcp(host, int(port))
    else:
        server.start_io()
    return EXIT_OK
