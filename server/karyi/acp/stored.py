"""What the ACP front end asks of a workspace without opening a session in it: delete a
stored session, check that the model has its key, remove it (`logout`), and make a
session's model even while the key is missing (the editor signs in when a prompt needs
it, docs/acp.md#signing-in).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from karyi.agent.frontend.keys import sign_out
from karyi.agent.model_keys import key_environment
from karyi.agent.runtime import Runtime
from karyi.agent.session.store import SessionStore
from karyi.llm.base import Provider
from karyi.llm.factory import missing_key
from karyi.llm.unconfigured import provider_or_unconfigured
from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault
from karyi.settings import Settings, load_settings

log = logging.getLogger(__name__)


def delete_stored(roots: Iterable[Path], session_id: str) -> bool:
    """Remove the session from the first of `roots` that stores it; False if none does."""
    for root in dict.fromkeys(roots):
        path = root / ".karyi" / "sessions.db"
        if not path.is_file():
            continue
        store = SessionStore(path)
        try:
            if store.exists(session_id):
                store.delete(session_id)
                return True
        finally:
            store.close()
    return False


def lenient_provider(runtime: Runtime, settings: Settings) -> Provider:
    """The model of `settings`, or a stand-in saying what is missing (no key yet)."""
    return provider_or_unconfigured(settings, runtime.model_env(settings))


def key_missing(root: Path, flags: Mapping[str, Any]) -> str | None:
    """Where to put the key, when the model of `root`'s settings needs one that is in
    neither the environment nor the keyring; None when it is there (or not needed)."""
    settings = load_settings(root, flags=flags)
    hint = missing_key(settings, key_environment(settings, Vault(SecretStore.default())))
    return f"no API key for {settings.model}: set {hint}, or run `karyi login`" if hint else None


def forget_keys(root: Path, flags: Mapping[str, Any], models: Iterable[Settings]) -> list[str]:
    """`logout`: remove from the secret store the key of the model of `root`'s settings
    and of each of `models` (the open sessions'); the names removed. A key that the
    environment still holds is logged: Karyi keeps using it."""
    store = SecretStore.default()
    removed: list[str] = []
    for settings in [load_settings(root, flags=flags), *models]:
        done = sign_out(settings, store)
        removed += done.removed
        if done.still_in_environment:
            log.warning(
                "logout: %s is set in the environment karyi acp was started with; it stays "
                "in use for %s",
                done.still_in_environment,
                settings.model,
            )
    return list(dict.fromkeys(removed))
