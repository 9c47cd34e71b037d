"""The store: names and notes in a 0600 file; values in the keyring, or the file."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from karyi.secrets.store import SecretStore, SecretStoreError, _usable_keyring
from karyi.secrets.vault import Vault


class MemoryKeyring:
    """The keyring backend API, in memory. (Not a KeyringBackend subclass: subclasses
    register themselves with keyring and could become this process's default.)"""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.items.pop((service, username), None)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_without_a_keyring_values_live_in_a_0600_file(tmp_path: Path) -> None:
    store = SecretStore(tmp_path / "cfg")
    assert store.set("API_TOKEN", "tok-123456", "for the API") == "file"
    assert mode(store.path) == 0o600
    assert store.get("API_TOKEN") == "tok-123456"
    [entry] = store.entries()
    assert (entry.name, entry.note, entry.where) == ("API_TOKEN", "for the API", "file")
    assert "tok-123456" not in repr(entry)
    assert store.remove("API_TOKEN") and store.get("API_TOKEN") is None
    assert not store.remove("API_TOKEN")


def test_the_file_can_be_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KARYI_SECRETS_BACKEND", "file")
    assert _usable_keyring() is None


def test_with_a_keyring_the_file_keeps_only_names_and_notes(tmp_path: Path) -> None:
    ring = MemoryKeyring()
    store = SecretStore(tmp_path, keyring_backend=ring)
    assert store.set("GH", "ghp_value_123", "github") == "keyring"
    assert ring.items == {("karyi", "GH"): "ghp_value_123"}
    assert "ghp_value_123" not in store.path.read_text()
    assert store.get("GH") == "ghp_value_123" and store.values() == {"GH": "ghp_value_123"}
    store.remove("GH")
    assert ring.items == {}


def test_a_file_others_can_read_is_tightened(tmp_path: Path) -> None:
    store = SecretStore(tmp_path)
    store.set("X_TOKEN", "value-1234")
    store.path.chmod(0o644)
    assert store.get("X_TOKEN") == "value-1234"
    assert mode(store.path) == 0o600 and "mode is now 0600" in store.warnings[0]


def test_bad_names_values_and_files_are_refused(tmp_path: Path) -> None:
    store = SecretStore(tmp_path)
    with pytest.raises(SecretStoreError, match="invalid variable name '1X'"):
        store.set("1X", "v")
    with pytest.raises(SecretStoreError, match="the value is empty"):
        store.set("X", "")
    store.path.write_text("{not json")
    with pytest.raises(SecretStoreError, match="not a valid secrets file"):
        store.get("X")


def test_the_vault_sees_stored_and_session_values(tmp_path: Path) -> None:
    store = SecretStore(tmp_path)
    store.set("STORED", "stored-value")
    vault = Vault(store)
    vault.remember("GIVEN", "given-value")
    assert vault.lookup("STORED") == "stored-value" and vault.lookup("GIVEN") == "given-value"
    assert vault.redactor.redact("stored-value given-value") == "$KARYI{STORED} $KARYI{GIVEN}"
    assert vault.save("NEW", "new-value-1", "note") == "file"
    assert vault.redactor.redact("new-value-1") == "$KARYI{NEW}"
    saved = json.loads(store.path.read_text())["variables"]
    assert saved["NEW"] == {"note": "note", "where": "file", "value": "new-value-1"}
    assert "GIVEN" not in saved
