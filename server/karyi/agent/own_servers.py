"""The language servers Karyi starts itself for one workspace: the diagnostics servers
(docs/context.md#diagnostics) and the navigation servers
(docs/context.md#where-navigation-answers-come-from).

Neither is created before its first use (their clients load pygls then); new settings
retire the old ones, which `aclose` stops with the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from karyi.settings import Settings
from karyi.workspace.workspace import Workspace

if TYPE_CHECKING:
    from karyi.agent.diagnostics.language_servers import LanguageServers
    from karyi.navigation.editor import EditorSource
    from karyi.navigation.navigator import Navigator


class OwnServers:
    """One workspace's diagnostics and navigation servers, each made on first use."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._diagnostics: LanguageServers | None = None
        self._navigator: Navigator | None = None
        self._retired: list[LanguageServers | Navigator] = []

    def diagnostics(self, settings: Settings) -> LanguageServers:
        """The servers of `diagnostics.servers`."""
        if self._diagnostics is None:
            from karyi.agent.diagnostics.language_servers import LanguageServers

            self._diagnostics = LanguageServers(settings.diagnostics.servers, self.workspace.root)
        return self._diagnostics

    def navigator(self, settings: Settings, editor: EditorSource | None = None) -> Navigator:
        """The servers of `navigation.servers`, behind the editor's language features
        when the front end has an editor that gives them (and `navigation.source` lets it)."""
        if self._navigator is None:
            from karyi.navigation.navigator import Navigator

            docs, root = self.workspace.documents, self.workspace.root
            if editor is not None and settings.navigation.source != "servers":
                from karyi.navigation.editor import EditorNavigator

                self._navigator = EditorNavigator(settings.navigation, root, docs, editor)
            else:
                self._navigator = Navigator(settings.navigation, root, docs)
        return self._navigator

    def apply(self, old: Settings, new: Settings) -> None:
        """Retire the servers whose settings changed (the next use makes new ones)."""
        if self._diagnostics is not None and old.diagnostics != new.diagnostics:
            self._retired.append(self._diagnostics)
            self._diagnostics = None
        if self._navigator is not None and old.navigation != new.navigation:
            self._retired.append(self._navigator)
            self._navigator = None

    async def aclose(self) -> None:
        """Stop every server started."""
        for servers in [*self._retired, self._diagnostics, self._navigator]:
            if servers is not None:
                await servers.aclose()
        self._retired.clear()
        self._diagnostics = self._navigator = None
