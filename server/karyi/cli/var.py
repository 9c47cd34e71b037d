"""`karyi var set|get|list|rm`: the user's secure variables from the command line.

A value never comes from the command line (it would land in the shell's history and in
`ps`): `set` reads it from a no-echo prompt, or from stdin when stdin is not a terminal.
`get` writes the value only to a terminal, or to a pipe when `--pipe` says that is
intended. `get`, `set` and `rm` refuse to run inside a shell the agent started
(`KARYI_AGENT_SHELL` is set there), so a command the model writes cannot read or swap a
stored secret this way. That is a speed bump, not a wall: see docs/security.md.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import TYPE_CHECKING

from karyi.agent.frontend.startup import EXIT_FAILED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:  # the store loads only when `karyi var` runs (startup of other commands)
    from karyi.secrets.store import SecretStore


def _err(message: str) -> None:
    print(f"karyi var: {message}", file=sys.stderr)


def _read_value(name: str) -> str:
    from karyi.secrets.store import SecretStoreError

    if sys.stdin.isatty():
        first = getpass.getpass(f"Value for {name} (input hidden): ")
        again = getpass.getpass("Again, to confirm: ")
        if first != again:
            raise SecretStoreError("the two entries differ; nothing was stored")
        return first
    text = sys.stdin.read()
    return text[:-1] if text.endswith("\n") else text


def cmd_var(args: argparse.Namespace) -> int:
    """Dispatch `karyi var ACTION`."""
    from karyi.secrets.store import SecretStore, SecretStoreError, validate_name

    action = args.action
    if action != "list" and os.environ.get("KARYI_AGENT_SHELL"):
        _err(
            f"`karyi var {action}` is not available inside a shell the agent runs; "
            "use $KARYI{NAME} in the command instead"
        )
        return EXIT_USAGE
    store = SecretStore.default()
    try:
        if action == "list":
            return _list(store)
        validate_name(args.name)
        if action == "set":
            return _set(store, args.name, args.note)
        if action == "get":
            return _get(store, args.name, args.pipe)
        return _rm(store, args.name)
    except SecretStoreError as exc:
        _err(str(exc))
        return EXIT_FAILED if action != "set" else EXIT_USAGE
    finally:
        for warning in store.warnings:
            _err(f"warning: {warning}")


def _list(store: SecretStore) -> int:
    entries = store.entries()
    if not entries:
        print("(no secure variables)")
        return EXIT_OK
    width = max(len(e.name) for e in entries)
    for e in entries:
        print(f"{e.name.ljust(width)}  [{e.where}]  {e.note}".rstrip())
    return EXIT_OK


def _set(store: SecretStore, name: str, note: str | None) -> int:
    from karyi.secrets.redact import MIN_LENGTH
    from karyi.secrets.store import SecretStoreError

    value = _read_value(name)
    if "\0" in value:
        raise SecretStoreError(f"{name}: the value contains a NUL byte; nothing was stored")
    old = {e.name: e for e in store.entries()}.get(name)
    kept_note = note if note is not None else (old.note if old else "")
    where = store.set(name, value, kept_note)
    place = "the OS keyring" if where == "keyring" else f"{store.path} (mode 0600)"
    print(f"stored {name} in {place}; use it as $KARYI{{{name}}}")
    if where == "file" and store.backend_name == "file":
        _err("note: no OS keyring works here, so the value is kept in a 0600 file")
    if len(value) < MIN_LENGTH:
        _err(
            f"warning: values shorter than {MIN_LENGTH} characters are not redacted from "
            "tool output"
        )
    return EXIT_OK


def _get(store: SecretStore, name: str, pipe: bool) -> int:
    value = store.get(name)
    if value is None:
        _err(f"no secure variable {name} (see `karyi var list`)")
        return EXIT_FAILED
    if not sys.stdout.isatty() and not pipe:
        _err("stdout is not a terminal; pass --pipe to write the value to a pipe or a file")
        return EXIT_USAGE
    print(value)
    return EXIT_OK


def _rm(store: SecretStore, name: str) -> int:
    if not store.remove(name):
        _err(f"no secure variable {name} (see `karyi var list`)")
        return EXIT_FAILED
    print(f"removed {name}")
    return EXIT_OK
