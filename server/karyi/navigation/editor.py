"""The editor's own language features in front of Karyi's language servers.

In VS Code every navigation request is first put to the editor's providers
(`vscode.executeReferenceProvider` and the others), which answer for every language the
user has an extension for (Pylance, the built-in TypeScript features, rust-analyzer, …).
The front end asks them through an `EditorSource`, in LSP's own shapes, so everything
above reads the editor's answers as it reads a server's. An answer with nothing in it,
an error or a timeout falls back to what a `Navigator` without an editor gives (Karyi's
own server of the language); `navigation.source` `editor` leaves the fallback out
(docs/context.md#where-navigation-answers-come-from).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from karyi.navigation.errors import ServerError
from karyi.navigation.navigator import Navigator, NoServer
from karyi.navigation.places import uri_path
from karyi.navigation.server import NavServer, Overlay
from karyi.settings.language_servers import Navigation
from karyi.workspace.documents import DocumentStore

EDITOR_ITEM = "karyiEditorItem"
"""The key of a call hierarchy item's `data` by which the editor knows its own items:
their calls are asked of the editor alone (another server cannot follow them)."""


class EditorSource(Protocol):
    """The editor's language features, as the front end reaches them."""

    async def navigate(self, method: str, params: Any) -> Any:
        """The editor's answer to the LSP request `method` with `params`, in LSP's
        shapes (None or empty when it has nothing); `ServerError` when it fails."""
        ...


def empty(answer: Any) -> bool:
    """True for an answer with nothing in it: None, `[]`, `{"changes": {}}`, a hover
    without contents."""
    if not answer:
        return True
    return isinstance(answer, Mapping) and not any(answer.values())


def _item_source(params: Any) -> bool | None:
    """For a call hierarchy request, whether its item is the editor's (else None)."""
    item = params.get("item") if isinstance(params, Mapping) else None
    if not isinstance(item, Mapping):
        return None
    data = item.get("data")
    return isinstance(data, Mapping) and EDITOR_ITEM in data


def _document(params: Any) -> Path | None:
    """The file a request is about: its document, or its call hierarchy item's."""
    if not isinstance(params, Mapping):
        return None
    where = params.get("textDocument") or params.get("item") or {}
    uri = where.get("uri") if isinstance(where, Mapping) else None
    return uri_path(uri) if isinstance(uri, str) else None


Fallback = Callable[[Path | None], NavServer]
"""The server asked when the editor has nothing: for the request's file, when it has one."""


class EditorServer(NavServer):
    """One language's answers from the editor, then from `fallback` (see the module
    docstring). A `NavServer` so that whatever asks a server asks it alike; it starts
    no process of its own."""

    def __init__(
        self,
        editor: EditorSource,
        language: str,
        extensions: list[str],
        root: Path,
        overlay: Overlay,
        *,
        timeout: float,
        fallback: Fallback | None,
    ) -> None:
        super().__init__(
            language, ["the editor"], extensions, root, overlay, timeout=timeout, idle_seconds=0
        )
        self.editor = editor
        self.fallback = fallback
        self.answered: dict[str, int] = {"editor": 0, "fallback": 0}
        """How many requests each source answered (for the log and the tests)."""

    async def request(self, method: str, params: Any, *, limit: float | None = None) -> Any:
        """The editor's answer; when it has none, fails or times out, the fallback's."""
        editors_item = _item_source(params)
        if editors_item is False:  # an item Karyi's own server gave: its calls are its own
            return await self._fall_back(method, params, limit, None, None)
        failure: ServerError | None = None
        answer: Any = None
        wait = limit or self.timeout
        try:
            answer = await asyncio.wait_for(self.editor.navigate(method, params), wait)
        except TimeoutError:
            failure = ServerError(f"the editor did not answer {method} within {wait:g} s")
        except ServerError as exc:
            failure = exc
        if failure is None and (editors_item or not empty(answer)):
            self.answered["editor"] += 1
            return answer
        if editors_item:
            raise failure or ServerError("the editor lost the call hierarchy item")
        return await self._fall_back(method, params, limit, answer, failure)

    async def _fall_back(
        self,
        method: str,
        params: Any,
        limit: float | None,
        answer: Any,
        failure: ServerError | None,
    ) -> Any:
        """The fallback's answer; without one, the editor's (or its failure)."""
        try:
            if self.fallback is None:
                raise NoServer("the editor answers alone (navigation.source is editor)")
            server = self.fallback(_document(params))
        except NoServer:
            if failure is not None:
                raise failure from None
            return answer
        self.answered["fallback"] += 1
        return await server.request(method, params, limit=limit)

    def notify_changed(self, paths: Any) -> None:
        """The editor watches the files itself."""

    async def aclose(self) -> None:
        """Nothing of its own to stop (the fallback's servers are their navigator's)."""


class EditorNavigator(Navigator):
    """A workspace's navigation with the editor in front: every language (any file the
    editor opens) is answered by an `EditorServer`; `own`, a `Navigator` without an
    editor, is the fallback (None with `navigation.source` `editor`)."""

    def __init__(
        self, settings: Navigation, root: Path, documents: DocumentStore, editor: EditorSource
    ) -> None:
        super().__init__(settings, root, documents)
        self.editor = editor
        self.own = Navigator(settings, root, documents) if settings.source != "editor" else None
        self.editors: dict[str, EditorServer] = {}

    def installed(self, language: str) -> bool:
        """The editor may answer any language (its fallback checks its own program)."""
        return True

    def server(self, language: str) -> NavServer:
        """The language's `EditorServer` (made on first use)."""
        found = self.editors.get(language)
        if found is None:
            spec = self.settings.servers.get(language)
            found = EditorServer(
                self.editor,
                language,
                list(spec.extensions) if spec else [f".{language}"],
                self.root,
                self.overlay,
                timeout=self.settings.timeout_seconds,
                fallback=self._fallback(language),
            )
            self.editors[language] = found
        return found

    def for_path(self, path: Path) -> NavServer:
        """The server of `path`'s language; a file no server is set up for is the
        editor's alone (under its extension)."""
        return self.server(self.language_of(path) or path.suffix.lower().lstrip(".") or path.name)

    def _fallback(self, language: str) -> Fallback | None:
        own = self.own
        if own is None:
            return None

        def fallback(path: Path | None) -> NavServer:
            if path is not None:
                return own.for_path(path)
            if language in self.settings.servers and own.installed(language):
                return own.server(language)
            raise NoServer(f"no {language} language server is installed beside the editor")

        return fallback

    async def aclose(self) -> None:
        """Stop the fallback's servers."""
        if self.own is not None:
            await self.own.aclose()
        self.editors.clear()
