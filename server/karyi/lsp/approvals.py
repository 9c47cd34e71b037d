"""Permission prompts for clients without Karyi's UI: `window/showMessageRequest`.

Editors show the request as a one-line select (Neovim's `vim.ui.select` with the
message as its prompt followed by ": ", Emacs' `completing-read`), so the message holds
everything once — what the agent wants, the diff or the command, the sandbox verdict —
and ends with a question; the actions are single short words (docs/editors.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from lsprotocol import types

from karyi.lsp.server import KaryiServer

if TYPE_CHECKING:
    from karyi.agent.review.approval import ApprovalRequest, Decision

ALLOW, ALWAYS, REJECT = "Allow", "Always", "Reject"
"""The actions; "Always" allows this kind of call for the rest of the session."""
QUESTION = "Allow it?"


def _message(request: ApprovalRequest) -> str:
    parts = [f"Karyi wants to: {request.description}"]
    conf = request.confirmation
    if conf is not None:
        for text in (conf.details, conf.diff, conf.url):
            if text:
                parts.append(text.strip()[:2000])
        if conf.sandboxed is not None:
            parts.append("Runs in the OS sandbox." if conf.sandboxed else "Runs NOT sandboxed.")
    parts.append(QUESTION)
    return "\n\n".join(parts)


def ask_with_message_request(
    server: KaryiServer,
) -> Callable[[ApprovalRequest], Awaitable[Decision]]:
    """An approver that asks through the client's message dialog."""

    async def ask(request: ApprovalRequest) -> Decision:
        from karyi.agent.review.approval import Decision

        conf = request.confirmation
        offered = (ALLOW, ALWAYS, REJECT) if conf is None or conf.always else (ALLOW, REJECT)
        actions = [types.MessageActionItem(title=t) for t in offered]
        try:
            chosen = await server.window_show_message_request_async(
                types.ShowMessageRequestParams(
                    type=types.MessageType.Warning, message=_message(request), actions=actions
                )
            )
        except Exception as exc:
            return Decision(False, f"the editor could not ask the user ({exc})")
        title = chosen.title if chosen is not None else None
        if title == ALLOW:
            return Decision(True)
        if title == ALWAYS:
            return Decision(True, remember="session")
        return Decision(False, None if title == REJECT else "the user dismissed the request")

    return ask
