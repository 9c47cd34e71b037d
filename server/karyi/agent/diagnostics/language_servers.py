"""Karyi's own language servers as one problem source, each file to its language's.

This is what a runtime holds from the start; the clients themselves (pygls and
lsprotocol, `lsp_clients.py`) are imported and started with the first check, so a
front end that never checks a file never pays for them (docs/architecture.md#start-up).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from karyi.agent.diagnostics.problems import Problem
from karyi.settings.language_servers import LanguageServer

if TYPE_CHECKING:
    from karyi.agent.diagnostics.lsp_clients import ServerClient


class LanguageServers:
    """The servers of `diagnostics.servers` as one `ProblemSource` (started on first use)."""

    live = False

    def __init__(self, servers: Mapping[str, LanguageServer], root: Path) -> None:
        self.root = root
        self._specs: list[tuple[str, list[str]]] = []
        self._by_ext: dict[str, int] = {}
        for language, spec in servers.items():
            command = list(spec.command)
            if not command:
                continue
            self._specs.append((language, command))
            for ext in spec.extensions:
                self._by_ext[str(ext).lower()] = len(self._specs) - 1
        self.clients: list[ServerClient] = []

    @property
    def name(self) -> str:
        """The servers' commands, for the note in a result."""
        labels = [" ".join(Path(c[0]).name.split() + c[1:2]) for _lang, c in self._specs]
        return ", ".join(labels) or "no language server"

    def covers(self, path: Path) -> bool:
        """True when some server handles the file's extension."""
        return path.suffix.lower() in self._by_ext

    async def problems(self, files: Mapping[Path, str]) -> dict[Path, list[Problem]]:
        """Each file's diagnostics from its language's server."""
        out: dict[Path, list[Problem]] = {}
        for path, text in files.items():
            index = self._by_ext.get(path.suffix.lower())
            if index is not None:
                out.update(await self._client(index).problems({path: text}))
        return out

    async def everywhere(self, files: Sequence[Path]) -> dict[Path, list[Problem]]:
        """The problems of `files` as they are on disk (unreadable ones are skipped)."""
        texts: dict[Path, str] = {}
        for path in files:
            if self.covers(path):
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    texts[path] = await asyncio.to_thread(path.read_text, encoding="utf-8")
        return await self.problems(texts)

    async def aclose(self) -> None:
        """Stop every server started."""
        for client in self.clients:
            await client.aclose()

    def _client(self, index: int) -> ServerClient:
        if not self.clients:
            from karyi.agent.diagnostics.lsp_clients import ServerClient

            self.clients = [ServerClient(lang, cmd, self.root) for lang, cmd in self._specs]
        return self.clients[index]
