"""The vault a session uses: stored values plus values given for this session only.

Tools and the executor see secrets only through a vault: `lookup` for substitution,
`redactor` for redaction. Values the user gives to `get_value` without saving live
here, in memory, until the process ends.
"""

from __future__ import annotations

import logging

from karyi.secrets.redact import Redactor
from karyi.secrets.store import SecretStore, SecretStoreError

log = logging.getLogger(__name__)


class Vault:
    """Secret values by name for one process (see the module docstring)."""

    def __init__(self, store: SecretStore | None = None) -> None:
        self.store = store
        self._session: dict[str, str] = {}
        self._stored: dict[str, str] | None = None
        self._redactor: Redactor | None = None

    def _stored_values(self) -> dict[str, str]:
        if self._stored is None:
            self._stored = {}
            if self.store is not None:
                try:
                    self._stored = self.store.values()
                except SecretStoreError as exc:
                    log.warning("secure variables unavailable: %s", exc)
        return self._stored

    def lookup(self, name: str) -> str | None:
        """The value of `name` (session values first), or None."""
        if name in self._session:
            return self._session[name]
        return self._stored_values().get(name)

    def exists(self, name: str) -> bool:
        """Whether `name` has a value."""
        return self.lookup(name) is not None

    def remember(self, name: str, value: str) -> None:
        """Keep `value` for this process only."""
        self._session[name] = value
        self._redactor = None

    def save(self, name: str, value: str, note: str = "") -> str:
        """Store `value` for later sessions too; returns where it went."""
        if self.store is None:
            raise SecretStoreError("no secret store is configured; the value was not saved")
        where = self.store.set(name, value, note)
        self._stored_values()[name] = value
        self._redactor = None
        return where

    @property
    def redactor(self) -> Redactor:
        """A redactor for every value known now (rebuilt when values change)."""
        if self._redactor is None:
            self._redactor = Redactor({**self._stored_values(), **self._session})
        return self._redactor
