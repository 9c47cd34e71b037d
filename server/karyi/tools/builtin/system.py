"""The system tools (agentxml): `get_system_info`, `get_env_variable`, `set_env_variable`.

The environment they read and change is the session's: what its commands see (the
server's environment without Karyi's own model credentials, plus the session's
changes). `set_env_variable` reaches later one-shot commands and the terminal, even one
already running a command (exported before its next command). `get_env_variable`
refuses names that look like credentials and masks values that do.
"""

from __future__ import annotations

import locale
import os
import platform
import shutil
import time
from collections.abc import Mapping
from typing import Any

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import Permission, ToolResult
from karyi.secrets.looks import looks_like_credential_name, mask_credentials
from karyi.tools.builtin.commands.common import shell_of
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class

_NAME = "^[A-Za-z_][A-Za-z0-9_]*$"


@param_class
class NoParams(ToolParams):
    """A tool without parameters."""


@param_class
class EnvName(ToolParams):
    """`get_env_variable`'s parameters."""

    name: str = arg(pattern=_NAME, description="environment variable name")


@param_class
class EnvSetting(ToolParams):
    """`set_env_variable`'s parameters."""

    name: str = arg(pattern=_NAME, description="environment variable name")
    value: str = arg(description="the value")


def _memory_mb() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError, AttributeError):
        return None


def _os_release() -> str:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME", "")
    except OSError:
        return f"{platform.system()} {platform.release()}"


def system_info(ctx: ToolContext) -> dict[str, Any]:
    """What a model needs to know about the machine to write working commands."""
    root = ctx.workspace.root
    usage = shutil.disk_usage(root)
    shell = ctx.settings.shell.path or shutil.which("bash") or "/bin/sh"
    return {
        "os": platform.system(),
        "os_release": _os_release(),
        "kernel": platform.release(),
        "arch": platform.machine(),
        "cpu_count": os.cpu_count(),
        "memory_total_mb": _memory_mb(),
        "python": platform.python_version(),
        "shell": shell,
        "workspace": str(root),
        "disk_free_gb": round(usage.free / 1e9, 1),
        "time_zone": time.strftime("%Z (UTC%z)"),
        "locale": locale.setlocale(locale.LC_CTYPE, None),
    }


class GetSystemInfo(TypedTool[NoParams]):
    """agentxml `get_system_info()`: `data` is the info object."""

    plan_safe = True

    name = "get_system_info"
    display_name = "System info"
    description = (
        "Get facts about the machine: OS and release, kernel, CPU architecture and count, "
        "memory, Python version, shell, workspace path, free disk space, time zone, locale."
    )
    example = {}

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The info as an object (`data`) and as `key: value` lines."""
        info = system_info(ctx)
        text = "\n".join(f"{k}: {v}" for k, v in info.items())
        return ToolResult.ok(text, data=info, display="System information")


class GetEnvVariable(TypedTool[EnvName]):
    """agentxml `get_env_variable(name)`: the value as the session's commands see it."""

    plan_safe = True

    name = "get_env_variable"
    display_name = "Read environment variable"
    description = (
        "Get an environment variable's value as the session's commands see it. Names that "
        "look like credentials (…KEY, …TOKEN, …SECRET, …PASSWORD…) are refused and values "
        "that look like credentials are masked: ask for secrets with get_value instead."
    )
    example = {"name": "PATH"}

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The session's environment."""
        return frozenset([f"env:{ctx.session_id}"])

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """The value (`data`), masked where it looks like a credential."""
        name = self.args(params).name
        if looks_like_credential_name(name):
            raise ToolFailure(
                ErrorCode.PERMISSION_DENIED,
                f"{name} looks like it holds a credential, so its value is not shown; if a "
                "command needs it, the command can use it directly ($" + name + ")",
            )
        value = shell_of(ctx).get_env(ctx.session_id, name)
        if value is None:
            raise ToolFailure(ErrorCode.NOT_FOUND, f"{name} is not set")
        shown, masked = mask_credentials(value)
        note = f" ({masked} part(s) masked: they look like credentials)" if masked else ""
        return ToolResult.ok(shown, data=shown, display=f"`{name}`{note}", masked=masked)


class SetEnvVariable(TypedTool[EnvSetting]):
    """agentxml `set_env_variable(name, value)`: for later commands of this session."""

    name = "set_env_variable"
    display_name = "Set environment variable"
    description = (
        "Set an environment variable for the later commands of this session (one-shot "
        "commands and the terminal). The value may use $KARYI{NAME} for a secret."
    )
    permission = Permission.CONFIRM
    example = {"name": "NODE_ENV", "value": "production"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Set {a.name}={a.value!r} for later commands"

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The session's environment and terminal."""
        return frozenset([f"env:{ctx.session_id}", f"pty:{ctx.session_id}"])

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Record the change; the terminal gets it before its next command."""
        a = self.args(params)
        name = a.name
        shell_of(ctx).set_env(ctx.session_id, name, a.value)
        text = f"{name} is set for the later commands of this session"
        return ToolResult.ok(text, data=text)
