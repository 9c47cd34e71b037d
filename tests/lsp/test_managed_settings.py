"""The language server and the organisation's managed settings: pins are shown, and a
broken managed file stops it from doing anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.lsp.conftest import Start, request


async def test_the_editor_is_told_what_is_pinned(lsp: Start, tmp_path: Path) -> None:
    managed = tmp_path / "managed.json"
    managed.write_text(json.dumps({"permissions": {"tools": {"write": "deny"}}}))
    client = await lsp(env={"KARYI_MANAGED_SETTINGS": str(managed)})
    while not any("pinned by your organisation" in m.message for m in client.log_messages):
        await client.wait_for_notification("window/logMessage")
    said = next(m.message for m in client.log_messages if "pinned" in m.message)
    assert "permissions.tools.write" in said and str(managed) in said


async def test_a_broken_managed_file_stops_the_server(lsp: Start, tmp_path: Path) -> None:
    managed = tmp_path / "managed.json"
    managed.write_text("{not json")
    client = await lsp(env={"KARYI_MANAGED_SETTINGS": str(managed)})
    with pytest.raises(Exception, match="will not start"):
        await request(client, "karyi/chat", {"message": "hi"})
    assert any(str(managed) in m.message for m in client.log_messages)
