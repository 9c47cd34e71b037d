"""The model's API key in the user's secret store, as `karyi login` keeps it and
`karyi logout` and ACP `logout` remove it (docs/models.md, top).

Sign-in stores the key under the provider's usual variable name (`OPENAI_API_KEY`,
`ANTHROPIC_API_KEY`, else `KARYI_API_KEY`); sign-out removes every name the model's key
is looked up under, so no stored key for that model is used afterwards. A key in the
environment is the environment's: sign-out cannot take it back, and says so.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from karyi.secrets.store import SecretStore
from karyi.settings import Settings


def login_variable(settings: Settings) -> str:
    """The name `karyi login` stores the key of the settings' model under."""
    return settings.key_variables()[-1]  # the provider's usual one, else KARYI_API_KEY


@dataclass(frozen=True)
class SignOut:
    """What a sign-out did: the stored names it removed, and the variable of the
    environment that still holds a key for the model (empty when none does)."""

    removed: tuple[str, ...]
    still_in_environment: str


def sign_out(
    settings: Settings, store: SecretStore, env: Mapping[str, str] | None = None
) -> SignOut:
    """Remove the settings' model's key from the secret store (keyring or file)."""
    env = os.environ if env is None else env
    names = settings.key_variables()
    removed = tuple(name for name in names if store.remove(name))
    kept = next((name for name in names if env.get(name)), "")
    return SignOut(removed, kept)
