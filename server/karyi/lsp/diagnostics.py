"""The editor's diagnostics for the problems after an edit (docs/context.md#diagnostics).

A client that declares `initializationOptions.karyi.diagnostics` (Karyi's VS Code
extension) answers the server→client request `karyi/diagnostics` with what its own
language servers report for the files, once they have settled; the agent compares them
with the ones from before the edit (`agent/diagnostics/problems.py`). The client bounds its wait by
`waitMs`; the agent bounds the whole request by `diagnostics.waitSeconds`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from karyi.core.plain_json import plain
from karyi.lsp.editor_context import uri_path
from karyi.lsp.server import KaryiServer

if TYPE_CHECKING:
    from karyi.agent.diagnostics.problems import Problem

METHOD = "karyi/diagnostics"


class EditorProblems:
    """A `ProblemSource` (agent/diagnostics/problems.py) that asks the editor."""

    name = "the editor"
    live = True

    def __init__(self, server: KaryiServer, wait_seconds: Callable[[], float]) -> None:
        self.server = server
        self.wait_seconds = wait_seconds

    def covers(self, path: Path) -> bool:
        """The editor knows a language server for whatever it opens."""
        return True

    async def problems(self, files: Mapping[Path, str]) -> dict[Path, list[Problem]]:
        """The editor's diagnostics of the files now (the texts are the editor's own)."""
        changed = any(text for text in files.values())  # the check before an edit gives ""
        wait_ms = int(self.wait_seconds() * 1000 * 0.8)  # leave the answer time to arrive
        return await self._ask(list(files), wait_ms, changed)

    async def everywhere(self, files: Sequence[Path]) -> dict[Path, list[Problem]]:
        """Every diagnostic the editor has now (`uris: []`), whatever `files` are."""
        return await self._ask([], 0, False)

    async def _ask(
        self, files: list[Path], wait_ms: int, changed: bool
    ) -> dict[Path, list[Problem]]:
        from karyi.agent.diagnostics.problems import Problem

        params = {"uris": [p.as_uri() for p in files], "waitMs": wait_ms, "changed": changed}
        answer: Any = plain(await self.server.protocol.send_request_async(METHOD, params))
        out: dict[Path, list[Problem]] = {p: [] for p in files}
        for entry in (answer or {}).get("diagnostics") or []:
            path = Path(uri_path(str(entry.get("uri", ""))))
            out[path] = [Problem.from_lsp(path, d) for d in entry.get("diagnostics") or []]
        return out
