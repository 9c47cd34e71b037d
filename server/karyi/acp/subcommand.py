"""`karyi acp`: the Agent Client Protocol front end's subcommand, registered by the
launcher `karyi.main`. The SDK and the agent stack are imported only when it runs.
See docs/acp.md for the editors' configuration."""

from __future__ import annotations

import argparse

from karyi.agent.frontend.startup import EXIT_OK
from karyi.core.collector import paused


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `karyi acp [--model M] [--profile P]`."""
    p = sub.add_parser(
        "acp",
        help="serve the Agent Client Protocol on stdio (Zed, JetBrains, Neovim)",
        description="Serve the Agent Client Protocol on stdin/stdout for an editor's agent "
        "panel (docs/acp.md). Each session's cwd is its workspace.",
    )
    p.add_argument("--model", metavar="M", help="provider:name of the model")
    p.add_argument("--profile", metavar="P", help="tool profile (karyi, agentxml, vecli, ...)")
    p.set_defaults(func=cmd_acp)


def cmd_acp(args: argparse.Namespace) -> int:
    """Serve ACP until the client closes stdin."""
    with paused():  # the ACP SDK's schema models live as long as the agent (~700 garbage)
        from karyi.acp.server import serve

    serve({"model": args.model, "profile": args.profile})
    return EXIT_OK
