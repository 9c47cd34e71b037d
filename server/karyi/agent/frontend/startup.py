"""What every front end's command needs before it starts: exit codes, usage errors, the
workspace root, the settings and the tool profile from the command line.

`karyi run`, `exec`, `tools` (the terminal front end) and `karyi gateway` share these,
so they live below the front ends. Settings, tools and the dialect parsers are imported
only when a command asks for them: `karyi lsp` must start fast (an editor waits for it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from karyi.settings import Settings
    from karyi.tools.registry import Toolkit

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or configuration: exit code 2 with this message."""


class _DialectNames:
    """The dialect names as argparse `choices`, imported only when an argument is checked
    or help is shown: `karyi lsp` must answer `initialize` without loading the parsers."""

    def __contains__(self, name: object) -> bool:
        from karyi.protocol import DIALECTS

        return name in DIALECTS

    def __iter__(self) -> Iterator[str]:
        from karyi.protocol import DIALECTS

        return iter(DIALECTS)


def add_settings_options(p: argparse.ArgumentParser) -> None:
    """The options of every command that loads a workspace's settings: `--workspace`,
    `--dialect` and `--profile` (read back by `workspace_root` and `settings_for`)."""
    p.add_argument(
        "--workspace",
        metavar="DIR",
        action="append",
        help="a workspace folder (default: .); repeat it for several, the first is the root",
    )
    p.add_argument(
        "--dialect",
        choices=_DialectNames(),
        metavar="DIALECT",
        help="the dialect the model speaks: %(choices)s",
    )
    p.add_argument("--profile", metavar="P", help="tool profile (karyi, agentxml, vecli, ...)")


def settings_for(workspace: Path | None, args: argparse.Namespace) -> Settings:
    """The settings of `workspace` with the command line's `--dialect`, `--profile` and
    `--model` on top; their warnings are printed on stderr."""
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
    """The built-in tools of the settings' profile; an unknown profile is a usage error,
    raised before anything starts."""
    from karyi.tools.profiles import builtin_registry, default_toolkit
    from karyi.tools.registry import ToolLookupError

    try:
        return default_toolkit(builtin_registry(), settings.profile, memory=settings.memory.auto)
    except ToolLookupError as exc:
        raise UsageError(str(exc)) from None


def workspace_root(path: str | list[str] | None) -> Path:
    """The resolved (first) `--workspace` directory (default: the current one)."""
    return workspace_folders(path)[0]


def workspace_folders(paths: str | list[str] | None) -> list[Path]:
    """Every `--workspace` directory, resolved, the root first (default: the current one)."""
    given = [paths] if isinstance(paths, str) else list(paths or ["."])
    out: list[Path] = []
    for raw in given:
        folder = Path(raw).expanduser()
        if not folder.is_dir():
            raise UsageError(f"--workspace {folder}: not a directory")
        if folder.resolve() not in out:
            out.append(folder.resolve())
    return out
