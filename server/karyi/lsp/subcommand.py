"""`karyi lsp`: the language server's subcommand, registered by the launcher `karyi.main`.

The server is imported only when the command runs, and nothing else of karyi before it
answers `initialize`: an editor waits for it (benches/bench_startup.py measures it).
"""

from __future__ import annotations

import argparse
import gc
from collections.abc import Iterator
from contextlib import contextmanager

from karyi.agent.frontend.startup import EXIT_OK, UsageError


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


YOUNG_THRESHOLD = 5000
"""Allocations between two collections of the youngest generation while the server is
imported (Python's default is 700)."""


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Collect less often while pygls and lsprotocol are imported: their hundred thousand
    objects (~570 attrs classes) live as long as the server, and the collector walked
    them ~120 times and once in full on the way, ~37 ms of a ~330 ms start-up; ~20 ms
    with this (measured with `gc.callbacks`; the memory after the host is built is the
    same to 0.3 MB, unlike pausing the collector, which left ~9 MB more)."""
    threshold = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


def cmd_lsp(args: argparse.Namespace) -> int:
    """Run the language server on stdio or TCP."""
    with _fewer_collections():
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
