"""Where secure variables live: the OS keyring, or a 0600 file when no keyring works.

Names and notes are always kept in `<user config dir>/secrets.json` (mode 0600), because
a keyring cannot list what it holds. Each value goes to the OS keyring (service `karyi`,
user = the variable's name) when a real keyring backend is available; otherwise (a
server, a container, CI) the value is kept in the same 0600 file, and the entry says so
(`karyi var list` shows where each value lives). The file is written atomically and its
mode is checked on every read: a file others can read is tightened back to 0600.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from karyi.core.atomic import write_atomic
from karyi.core.user_dir import karyi_config_dir
from karyi.secrets.substitute import NAME

log = logging.getLogger(__name__)

SERVICE = "karyi"
FILE_NAME = "secrets.json"


class SecretStoreError(Exception):
    """A store operation that could not be done; the message says why."""


@dataclass(frozen=True)
class StoredSecret:
    """A variable's name, note and where its value lives (never the value)."""

    name: str
    note: str
    where: str


@dataclass
class _Entry:
    note: str = ""
    where: str = "file"
    value: str | None = field(default=None, repr=False)


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user config dir Karyi uses (KARYI_CONFIG_DIR overrides, as for settings)."""
    return karyi_config_dir(env)


def _usable_keyring() -> Any | None:
    """The keyring backend when a real one works here, else None."""
    if os.environ.get("KARYI_SECRETS_BACKEND") == "file":
        return None
    try:
        import keyring
        from keyring.backends import chainer, fail

        backend = keyring.get_keyring()
    except Exception:
        return None
    if isinstance(backend, fail.Keyring):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return None
    return backend


def _entry_json(entry: _Entry) -> dict[str, str]:
    out = {"note": entry.note, "where": entry.where}
    if entry.where == "file" and entry.value is not None:
        out["value"] = entry.value
    return out


def validate_name(name: str) -> None:
    """Raise SecretStoreError unless `name` is a valid variable name."""
    if not NAME.match(name):
        raise SecretStoreError(
            f"invalid variable name {name!r}: use letters, digits and _, not starting with a digit"
        )


class SecretStore:
    """Named secret values with notes (see the module docstring)."""

    def __init__(
        self,
        directory: Path,
        *,
        keyring_backend: Any | None = None,
        find_keyring: Callable[[], Any | None] | None = None,
    ) -> None:
        self.path = directory / FILE_NAME
        self._given = keyring_backend
        self._find = find_keyring
        self.warnings: list[str] = []

    @classmethod
    def default(cls, env: Mapping[str, str] | None = None) -> SecretStore:
        """The user's store, with the OS keyring when one works (looked for on first use:
        loading keyring's backends takes a tenth of a second)."""
        return cls(config_dir(env), find_keyring=_usable_keyring)

    @cached_property
    def _keyring(self) -> Any | None:
        return self._find() if self._find is not None else self._given

    @property
    def backend_name(self) -> str:
        """`keyring (<backend>)` or `file`."""
        if self._keyring is None:
            return "file"
        return f"keyring ({type(self._keyring).__module__}.{type(self._keyring).__name__})"

    def _load(self) -> dict[str, _Entry]:
        try:
            mode = self.path.stat().st_mode
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise SecretStoreError(f"cannot read {self.path}: {exc.strerror}") from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            os.chmod(self.path, 0o600)
            self.warnings.append(f"{self.path} was readable by others; its mode is now 0600")
        try:
            data = json.loads(text)
            items = data["variables"].items()
            return {
                name: _Entry(str(e.get("note", "")), str(e.get("where", "file")), e.get("value"))
                for name, e in items
            }
        except (ValueError, KeyError, AttributeError, TypeError):
            raise SecretStoreError(
                f"{self.path} is not a valid secrets file; fix or remove it"
            ) from None

    def _save(self, entries: dict[str, _Entry]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = {
            "version": 1,
            "variables": {name: _entry_json(e) for name, e in sorted(entries.items())},
        }
        text = json.dumps(data, indent=2, ensure_ascii=False)
        write_atomic(self.path, text.encode(), display=str(self.path), mode=0o600)

    def entries(self) -> list[StoredSecret]:
        """Every stored variable, by name."""
        return [StoredSecret(n, e.note, e.where) for n, e in sorted(self._load().items())]

    def get(self, name: str) -> str | None:
        """The value of `name`, or None when it is not stored."""
        entry = self._load().get(name)
        if entry is None:
            return None
        if entry.where == "keyring":
            return self._keyring_get(name)
        return entry.value

    def values(self) -> dict[str, str]:
        """Every stored value by name (what redaction needs)."""
        out: dict[str, str] = {}
        for name, entry in self._load().items():
            value = self._keyring_get(name) if entry.where == "keyring" else entry.value
            if value is not None:
                out[name] = value
        return out

    def set(self, name: str, value: str, note: str = "") -> str:
        """Store `value` under `name` with `note`; returns where it went."""
        validate_name(name)
        if not value:
            raise SecretStoreError(f"{name}: the value is empty; nothing was stored")
        entries = self._load()
        where = "file"
        if self._keyring is not None:
            try:
                self._keyring.set_password(SERVICE, name, value)
                where = "keyring"
            except Exception as exc:
                log.warning("keyring refused %s (%s); keeping it in %s", name, exc, self.path)
        old = entries.get(name)
        if old is not None and old.where == "keyring" and where == "file":
            self._keyring_delete(name)
        entries[name] = _Entry(note, where, value if where == "file" else None)
        self._save(entries)
        return where

    def remove(self, name: str) -> bool:
        """Forget `name`; False when it was not stored."""
        entries = self._load()
        entry = entries.pop(name, None)
        if entry is None:
            return False
        if entry.where == "keyring":
            self._keyring_delete(name)
        self._save(entries)
        return True

    def _keyring_get(self, name: str) -> str | None:
        if self._keyring is None:
            return None
        try:
            value = self._keyring.get_password(SERVICE, name)
        except Exception as exc:
            log.warning("keyring could not read %s: %s", name, exc)
            return None
        return str(value) if value is not None else None

    def _keyring_delete(self, name: str) -> None:
        if self._keyring is None:
            return
        try:
            self._keyring.delete_password(SERVICE, name)
        except Exception as exc:
            log.warning("keyring could not delete %s: %s", name, exc)
