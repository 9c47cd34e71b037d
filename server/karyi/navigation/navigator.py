"""Karyi's language servers of one workspace, one per language, started on demand.

`Navigator` is what a runtime holds: it knows which server answers which file (by
extension, from `navigation.servers`), creates a language's `NavServer` the first time
a call needs it, shows every server the editor's open buffers (`BufferOverlay`) and
tells the running ones when files change on disk
(docs/context.md#where-navigation-answers-come-from).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from karyi.navigation.grammars import BY_EXTENSION, GRAMMARS, Grammar
from karyi.navigation.programs import find_program
from karyi.navigation.server import NavServer
from karyi.navigation.words import WordIndex
from karyi.settings.language_servers import Navigation
from karyi.workspace.documents import DocumentStore

if TYPE_CHECKING:
    from karyi.navigation.syntax import SyntaxIndex

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".karyi", "dist"})
SCAN_LIMIT = 20_000
"""How many directory entries `languages_present` looks at before it answers."""


class NoServer(LookupError):
    """No language server is set up (or installed) for a file's language."""


class BufferOverlay:
    """The editor's open buffers as what the servers see (`Overlay`)."""

    def __init__(self, documents: DocumentStore) -> None:
        self.documents = documents

    def texts(self, extensions: frozenset[str]) -> dict[Path, str]:
        """Each open buffer with one of `extensions`."""
        return {
            path: text
            for path, text in self.documents.buffers.texts().items()
            if path.suffix.lower() in extensions
        }


class Navigator:
    """The navigation servers of one workspace (see the module docstring)."""

    def __init__(self, settings: Navigation, root: Path, documents: DocumentStore) -> None:
        self.settings = settings
        self.root = root
        self.overlay = BufferOverlay(documents)
        self.servers: dict[str, NavServer] = {}
        self._by_ext: dict[str, str] = {}
        for language, spec in settings.servers.items():
            for ext in spec.extensions:
                self._by_ext.setdefault(ext.lower(), language)
        self._present: list[str] | None = None
        self._syntax: SyntaxIndex | None = None
        self._words: dict[frozenset[str], WordIndex] = {}
        documents.add_listener(self.changed)

    def language_of(self, path: Path) -> str | None:
        """The language whose server handles `path`, by its extension."""
        return self._by_ext.get(path.suffix.lower())

    def installed(self, language: str) -> bool:
        """True when the language's server program can be found and, once tried, started."""
        spec = self.settings.servers.get(language)
        started = self.servers.get(language)
        if started is not None and started.unstartable:
            return False
        return bool(spec and spec.command and find_program(spec.command[0]))

    def installed_for(self, path: Path) -> bool:
        """True when a usable server handles `path`'s language."""
        language = self.language_of(path)
        return language is not None and self.installed(language)

    def missing(self, path: Path) -> str:
        """Why no language server answers for `path`, and the setting that would add one."""
        language = self.language_of(path)
        grammar = BY_EXTENSION.get(path.suffix.lower())
        title = grammar.title if grammar else language or (path.suffix or path.name)
        head = f"no language server is available for {title} files"
        if language is None:
            return f"{head}: add one to the `navigation.servers` setting (command and extensions)"
        program = self.settings.servers[language].command[0]
        started = self.servers.get(language)
        why = "did not start" if started is not None and started.unstartable else "is not on PATH"
        return f"{head}: {program} {why} (install it, or set `navigation.servers.{language}`)"

    def unserved(self) -> list[Grammar]:
        """The languages the syntactic fallback parses that no server answers for."""
        return [
            g
            for g in GRAMMARS
            if not any(
                (lang := self.language_of(Path("f" + ext))) and self.installed(lang)
                for ext in g.extensions
            )
        ]

    def words(self, extensions: Iterable[str]) -> WordIndex:
        """The warm index of the words in the files with `extensions` (one per set)."""
        key = frozenset(e.lower() for e in extensions)
        found = self._words.get(key)
        if found is None:
            found = self._words[key] = WordIndex(self.root, key)
        return found

    @property
    def syntax(self) -> SyntaxIndex:
        """The tree-sitter index of the syntactic fallback (created on first use)."""
        if self._syntax is None:
            from karyi.navigation.syntax import SyntaxIndex

            self._syntax = SyntaxIndex(self.root, self.overlay.texts, self.words)
        return self._syntax

    def server(self, language: str) -> NavServer:
        """The language's server (created, not yet started, on first use)."""
        found = self.servers.get(language)
        if found is None:
            spec = self.settings.servers[language]
            found = NavServer(
                language,
                list(spec.command),
                spec.extensions,
                self.root,
                self.overlay,
                timeout=self.settings.timeout_seconds,
                idle_seconds=self.settings.idle_seconds,
            )
            self.servers[language] = found
        return found

    def for_path(self, path: Path) -> NavServer:
        """The server of `path`'s language; `NoServer` names what is missing."""
        language = self.language_of(path)
        if language is None or not self.installed(language):
            raise NoServer(self.missing(path))
        return self.server(language)

    def languages_present(self) -> list[str]:
        """The languages with an installed server and files in the workspace (looked up
        once): where a name alone is searched for."""
        if self._present is None:
            seen: set[str] = set()
            count = 0
            for _dir, dirs, files in os.walk(self.root):
                dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
                count += len(files) + len(dirs)
                seen.update(filter(None, (self._by_ext.get(Path(f).suffix.lower()) for f in files)))
                if count > SCAN_LIMIT:
                    break
            self._present = [lang for lang in self.settings.servers if lang in seen]
        return [lang for lang in self._present if self.installed(lang)]

    def changed(self, paths: Iterable[Path]) -> None:
        """Files changed on disk: every running server is told."""
        listed = list(paths)
        for words in self._words.values():
            words.invalidate()
        for server in self.servers.values():
            server.notify_changed(listed)

    async def aclose(self) -> None:
        """Stop every server started."""
        for server in self.servers.values():
            await server.aclose()
        self.servers.clear()
