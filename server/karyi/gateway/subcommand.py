"""`karyi gateway`: the HTTP gateway's subcommand, registered by the launcher `karyi.main`.

The settings and the tool profile are checked before the server starts (a bad one is a
usage error, exit code 2); the server itself is imported only when the command runs.
See docs/gateway.md.
"""

from __future__ import annotations

import argparse
import sys

from karyi.agent.frontend.startup import (
    EXIT_OK,
    UsageError,
    add_settings_options,
    settings_for,
    toolkit_for,
    workspace_folders,
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `karyi gateway` and its options."""
    p = sub.add_parser(
        "gateway",
        help="serve the HTTP gateway (POST /agent/process)",
        description="Serve the HTTP gateway (docs/gateway.md): POST /agent/process runs a tool "
        "(biz_params.tool) or an agent turn. Binds 127.0.0.1 unless told otherwise; any "
        "other address needs a bearer token (KARYI_GATEWAY_TOKEN or settings gateway.token).",
    )
    add_settings_options(p)
    p.add_argument("--model", metavar="M", help="provider:name for agent turns")
    p.add_argument("--host", help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default: 8765; 0 picks one)")
    p.set_defaults(func=cmd_gateway)


def cmd_gateway(args: argparse.Namespace) -> int:
    """Serve the HTTP gateway until interrupted."""
    from karyi.gateway.config import DEFAULT_HOST, DEFAULT_PORT, ConfigError
    from karyi.gateway.server import serve

    args.host = DEFAULT_HOST if args.host is None else args.host
    args.port = DEFAULT_PORT if args.port is None else args.port
    root, *more = workspace_folders(args.workspace)
    settings = settings_for(root, args)
    toolkit_for(settings)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0-65535 (0 picks a free port)")
    try:
        serve(
            root,
            settings,
            args.host,
            args.port,
            out=sys.stderr,
            access_log=args.verbose,
            folders=more,
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    return EXIT_OK
