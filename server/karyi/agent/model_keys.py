"""The model's API key where the environment has none: from the secret store.

`karyi var set` and `karyi login` keep keys in the store; a runtime (and an ACP session
restored from disk) takes the key from there when the environment lacks it, and the
key's value is redacted from then on like every secret.
"""

from __future__ import annotations

import logging
import os

from karyi.secrets.vault import Vault
from karyi.settings import Settings

log = logging.getLogger(__name__)


def key_environment(settings: Settings, vault: Vault) -> dict[str, str]:
    """The environment, plus the model's API key from the secret store (`karyi var set`,
    `karyi login`) when the environment has none (docs/models.md)."""
    env = dict(os.environ)
    store = vault.store
    if settings.api_key(env) or store is None:
        return env
    for name in settings.key_variables():
        try:
            value = store.get(name)
        except Exception as exc:  # an unreadable store is a missing key
            log.warning("reading %s from the secret store failed: %s", name, exc)
            return env
        if value:
            vault.remember(name, value)  # redacted from now on, like every secret
            env[name] = value
            break
    return env
