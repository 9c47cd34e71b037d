"""The one place a `ToolContext` is built, for every front end.

A front end wires what only it has into its `Runtime` (the editor that owns open files,
the way to ask its user for a secret value); `tool_context` then gives each session a
context with the runtime's workspace, settings, shell and vault. The runtime is named
here by the `ToolSources` protocol, so this module does not depend on `agent/runtime.py`
(which uses it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from karyi.tools.context import ArtifactBook, ToolContext

if TYPE_CHECKING:
    from karyi.navigation.navigator import Navigator
    from karyi.secrets.request import ValueAnswer, ValueRequest
    from karyi.secrets.vault import Vault
    from karyi.settings import Settings
    from karyi.shell.manager import ShellManager
    from karyi.workspace.editor import Editor
    from karyi.workspace.workspace import Workspace


class ToolSources(Protocol):
    """What a context is made of: one workspace's runtime (`agent.runtime.Runtime`)."""

    @property
    def workspace(self) -> Workspace:
        """The workspace the tools work in."""
        ...

    @property
    def settings(self) -> Settings:
        """The settings in force."""
        ...

    @property
    def shell(self) -> ShellManager:
        """The shells of the workspace's sessions."""
        ...

    @property
    def vault(self) -> Vault:
        """The secure variables (`$KARYI{NAME}`) and their redaction."""
        ...

    @property
    def ask_value(self) -> Callable[[ValueRequest], Awaitable[ValueAnswer | None]] | None:
        """How the front end asks its user for a secret value; None: it cannot."""
        ...

    @property
    def editor(self) -> Editor | None:
        """The front end's editor, owning the files open in it; None: there is none."""
        ...

    @property
    def navigator(self) -> Navigator:
        """The workspace's language servers for code navigation (started on demand)."""
        ...


def tool_context(
    sources: ToolSources, session_id: str, *, artifacts: ArtifactBook | None = None
) -> ToolContext:
    """The context the tool calls of session `session_id` run with (`artifacts`: the
    session's versioned documents, where the front end keeps them)."""
    return ToolContext(
        sources.workspace,
        sources.settings,
        session_id=session_id,
        shell=sources.shell,
        secrets=sources.vault,
        ask_value=sources.ask_value,
        editor=sources.editor,
        artifacts=artifacts,
        navigator=sources.navigator,
    )
