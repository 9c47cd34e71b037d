"""The editor's language features for the navigation tools
(docs/context.md#where-navigation-answers-come-from).

A client that declares `initializationOptions.karyi.navigation` (Karyi's VS Code
extension) answers the server→client request `karyi/navigate`: an LSP method and its
params (`textDocument/references` at a position, …), answered by the editor's own
providers (`vscode.executeReferenceProvider` and the others) in LSP's shapes. The
navigation layer puts it in front of Karyi's own language servers
(`navigation/editor.py`) and bounds each request by `navigation.timeoutSeconds`.
"""

from __future__ import annotations

from typing import Any

from karyi.core.plain_json import plain
from karyi.lsp.server import KaryiServer
from karyi.navigation.errors import ServerError

METHOD = "karyi/navigate"


class EditorNavigation:
    """An `EditorSource` (navigation/editor.py) that asks the editor."""

    def __init__(self, server: KaryiServer) -> None:
        self.server = server

    async def navigate(self, method: str, params: Any) -> Any:
        """The editor's answer to `method`; whatever fails on the way is a `ServerError`
        (the navigation layer then asks Karyi's own server)."""
        try:
            answer = await self.server.protocol.send_request_async(
                METHOD, {"method": method, "params": params}
            )
        except Exception as exc:  # the editor's error, or a client that cannot answer
            raise ServerError(f"the editor failed {method}: {exc}") from None
        return (plain(answer) or {}).get("result")
