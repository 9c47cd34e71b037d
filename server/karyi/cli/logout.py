"""`karyi logout`: sign out of the model provider by removing its API key from the
keyring, the other half of `karyi login` (docs/models.md, top). ACP clients sign out
with the protocol's `logout`, which does the same (docs/acp.md#signing-in)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from karyi.agent.frontend.startup import EXIT_FAILED, EXIT_OK, EXIT_USAGE


def _say(message: str) -> None:
    print(f"karyi logout: {message}", file=sys.stderr)


def cmd_logout(args: argparse.Namespace) -> int:
    """Remove the model's stored key; exit 0 when one was removed, 1 when none was
    stored."""
    from karyi.agent.frontend.keys import sign_out
    from karyi.secrets.store import SecretStore, SecretStoreError
    from karyi.settings import load_settings

    if os.environ.get("KARYI_AGENT_SHELL"):
        _say("not available inside a shell the agent runs")
        return EXIT_USAGE
    settings = load_settings(Path.cwd(), flags={"model": args.model})
    try:
        done = sign_out(settings, SecretStore.default())
    except SecretStoreError as exc:
        _say(str(exc))
        return EXIT_FAILED
    if done.removed:
        names = ", ".join(done.removed)
        print(f"Removed {names} from the keyring: signed out of {settings.model}.")
    else:
        _say(f"no key for {settings.model} was stored (`karyi var list` shows what is)")
    if done.still_in_environment:
        print(
            f"{done.still_in_environment} is still set in the environment: Karyi uses it "
            "until it is unset there."
        )
    return EXIT_OK if done.removed else EXIT_FAILED
