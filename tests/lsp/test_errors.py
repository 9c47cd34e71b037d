"""JSON-RPC errors never carry a secure variable's value (docs/security.md)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from karyi.lsp.errors import RequestFailed, rpc
from karyi.secrets.store import SecretStore
from karyi.secrets.vault import Vault

SECRET = "pw-0a1b2c3d4e5f"


def server_with_secret(tmp_path: Path) -> Any:
    vault = Vault(SecretStore(tmp_path / "secrets.json"))
    vault.remember("DB_PASSWORD", SECRET)

    async def ready() -> None:
        return None

    return SimpleNamespace(host=SimpleNamespace(runtime=SimpleNamespace(vault=vault)), ready=ready)


@pytest.mark.parametrize(
    "failure",
    [
        RuntimeError(f"could not connect with password {SECRET}"),
        JsonRpcInvalidParams(f"karyi/chat: message: {SECRET} is not allowed"),
        RequestFailed(f"model provider: echoed {SECRET}"),
    ],
)
async def test_an_error_message_never_carries_a_secret(tmp_path: Path, failure: Exception) -> None:
    @rpc
    async def handler(_ls: Any) -> None:
        raise failure

    with pytest.raises(JsonRpcException) as caught:
        await handler(server_with_secret(tmp_path))
    assert SECRET not in caught.value.message and SECRET not in str(caught.value)
    assert "$KARYI{DB_PASSWORD}" in caught.value.message
