"""`karyi login`: sign in to the model provider by storing its API key in the keyring.

An editor that offers terminal sign-in (ACP `authMethods` of type `terminal`,
docs/acp.md#signing-in) runs this in a terminal for the user; it works the same from any
shell. The key is read from a no-echo prompt (never the command line: it would land in
the shell's history and in `ps`) and kept under the provider's usual variable name
(`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, … or KARYI_API_KEY), where every front end finds
it when the environment has none (docs/models.md#api-keys). `karyi logout` removes it.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from karyi.agent.frontend.startup import EXIT_FAILED, EXIT_OK, EXIT_USAGE


def _say(message: str) -> None:
    print(f"karyi login: {message}", file=sys.stderr)


def cmd_login(args: argparse.Namespace) -> int:
    """Ask for the key (hidden) and store it; exit 0 when stored."""
    from karyi.agent.frontend.keys import login_variable
    from karyi.secrets.store import SecretStore, SecretStoreError
    from karyi.settings import load_settings

    if os.environ.get("KARYI_AGENT_SHELL"):
        _say("not available inside a shell the agent runs")
        return EXIT_USAGE
    settings = load_settings(Path.cwd(), flags={"model": args.model})
    name = login_variable(settings)
    if not sys.stdin.isatty():
        _say("needs a terminal to ask for the key; or run `karyi var set NAME`")
        return EXIT_USAGE
    print(f"Signing in to {settings.model}: the key is kept as {name} in the keyring.")
    key = getpass.getpass(f"API key for {settings.model} (input hidden): ").strip()
    if not key:
        _say("no key given; nothing was stored")
        return EXIT_USAGE
    store = SecretStore.default()
    try:
        where = store.set(name, key, note=f"API key for {settings.model} (karyi login)")
    except SecretStoreError as exc:
        _say(str(exc))
        return EXIT_FAILED
    print(f"Stored {name} ({where}). Karyi uses it when the environment has no key.")
    return EXIT_OK
