""" "Allow always": approvals the user asked Karyi to remember, by scope.

- `session`: this conversation only (kept in the session's state, so it survives a
  restart of the server but not a new chat);
- `workspace`: this folder, in every session;
- `user`: every workspace.

Workspace and user approvals are stored under the user's config dir, never inside the
workspace: a repository must not be able to ship approvals for itself. What is
remembered is the call's approval key: the tool name, or for command tools the
command pattern the tool derives (so "always allow `npm test`" does not allow
`rm -rf`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from karyi.core.atomic import write_atomic
from karyi.settings import user_settings_path

Scope = Literal["session", "workspace", "user"]
SCOPES: tuple[Scope, ...] = ("session", "workspace", "user")


def _load(path: Path) -> set[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    keys = data.get("allow") if isinstance(data, dict) else None
    return {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()


def _save(path: Path, keys: set[str], extra: Mapping[str, Any]) -> None:
    # The grants name command lines and paths the user trusts: for the user's eyes only.
    data = json.dumps({**extra, "allow": sorted(keys)}, indent=2).encode()
    write_atomic(path, data, display=str(path), make_parents=True, mode=0o600)


class PermissionMemory:
    """Approval keys remembered per scope; `allowed(key)` checks all three."""

    def __init__(
        self,
        workspace_root: Path,
        session_keys: set[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        base = user_settings_path(env).parent
        digest = hashlib.sha256(str(workspace_root).encode()).hexdigest()[:16]
        self.root = workspace_root
        self.files: dict[Scope, Path] = {
            "user": base / "permissions.json",
            "workspace": base / "workspaces" / digest / "permissions.json",
        }
        self.session: set[str] = session_keys if session_keys is not None else set()
        self.rejected: set[str] = set()  # "reject always" for the rest of the session

    def reject_always(self, key: str) -> None:
        """Refuse `key` without asking for the rest of this session."""
        self.rejected.add(key)

    def allowed(self, key: str) -> Scope | None:
        """The scope that allows `key`, or None."""
        if key in self.session:
            return "session"
        stored: tuple[Scope, ...] = ("workspace", "user")
        for scope in stored:
            if key in _load(self.files[scope]):
                return scope
        return None

    def remember(self, key: str, scope: Scope) -> None:
        """Allow `key` from now on in `scope`."""
        if scope == "session":
            self.session.add(key)
            return
        path = self.files[scope]
        keys = _load(path)
        keys.add(key)
        extra = {"workspace": str(self.root)} if scope == "workspace" else {}
        _save(path, keys, extra)

    def forget(self, key: str, scope: Scope) -> None:
        """Stop allowing `key` in `scope`."""
        if scope == "session":
            self.session.discard(key)
            return
        path = self.files[scope]
        keys = _load(path)
        if key in keys:
            keys.discard(key)
            _save(path, keys, {"workspace": str(self.root)} if scope == "workspace" else {})
