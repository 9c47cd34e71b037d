"""The language server and the organisation's managed settings: pins are shown, and a
broken managed file stops it from doing anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from karyi.core.plain_json import plain
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


async def test_karyi_pinned_lists_each_pinned_key_with_its_value(
    lsp: Start, tmp_path: Path
) -> None:
    managed = tmp_path / "managed.json"
    pins = {"maxSteps": 40, "shell": {"sandbox": {"deniedDomains": ["evil.example"]}}}
    managed.write_text(json.dumps(pins))
    client = await lsp(env={"KARYI_MANAGED_SETTINGS": str(managed)})
    got = plain(await request(client, "karyi/pinned", {}))
    assert got["file"] == str(managed)
    assert got["settings"] == [
        {"key": "maxSteps", "value": "40"},
        {"key": "shell.sandbox.deniedDomains", "value": '["evil.example"]'},
    ]
    while not any("pinned" in m.message for m in client.messages):
        await client.wait_for_notification("window/showMessage")
    said = next(m.message for m in client.messages if "pinned" in m.message)
    assert said.startswith("Karyi: 2 settings are pinned")


async def test_karyi_pinned_is_empty_without_a_managed_file(lsp: Start, tmp_path: Path) -> None:
    client = await lsp(env={"KARYI_MANAGED_SETTINGS": str(tmp_path / "none.json")})
    assert plain(await request(client, "karyi/pinned", {}))["settings"] == []
