"""Session ids: 12 hex digits, minted where a session is created, or earlier by a front
end that answers its client with the id before the session is opened (ACP
`session/new`, docs/acp.md#start-up). Imports nothing, so minting one costs nothing."""

from __future__ import annotations

import uuid


def new_session_id() -> str:
    """A fresh session id."""
    return uuid.uuid4().hex[:12]
