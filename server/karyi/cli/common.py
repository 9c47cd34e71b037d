"""What every `karyi` command shares: exit codes, usage errors, workspace and settings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from karyi.settings import Settings
    from karyi.tools.registry import Toolkit

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or configuration: exit code 2 with this message."""


def settings_for(workspace: Path | None, args: argparse.Namespace) -> Settings:
    flags = {
        "dialect": getattr(args, "dialect", None),
        "profile": getattr(args, "profile", None),
        "model": getattr(args, "model", None),
    }
    from karyi.settings import load_settings

    settings = load_settings(workspace, flags=flags)
    for warning in settings.warnings:
        print(f"karyi: warning: {warning}", file=sys.stderr)
    return settings


def toolkit_for(settings: Settings) -> Toolkit:
    from karyi.tools.profiles import builtin_registry, default_toolkit
    from karyi.tools.registry import ToolLookupError

    try:
        return default_toolkit(builtin_registry(), settings.profile)
    except ToolLookupError as exc:
        raise UsageError(str(exc)) from None


def workspace_root(path: str | None) -> Path:
    root = Path(path or ".").expanduser()
    if not root.is_dir():
        raise UsageError(f"--workspace {root}: not a directory")
    return root.resolve()


def open_tty(stdin_used: bool) -> IO[str] | None:
    if not stdin_used and sys.stdin.isatty():
        return sys.stdin
    try:
        return open("/dev/tty", encoding="utf-8")
    except OSError:
        return None
