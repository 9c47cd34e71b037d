"""Pictures in a turn: sent as image parts, kept with the session and sent again after a
reload; a text-only model gets a note and the user a notice (docs/images.md)."""

from __future__ import annotations

from pathlib import Path

from karyi.agent.events import Event, Notice
from karyi.agent.host import AgentHost
from karyi.agent.runtime import Runtime
from karyi.core.images import image_from_bytes
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer
from tests.support.pictures import png

SHOT = image_from_bytes(png(2, 2), name="shot.png")


def _settings(fake: FakeModelServer, model: str = "openai:gpt-4.1") -> Settings:
    return Settings().with_values(model=model, baseUrl=fake.openai_url, dialect="toolsxml")


def _image_parts(body: dict[str, object]) -> list[object]:
    return [
        part
        for message in body["messages"]  # type: ignore[attr-defined]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part["type"] == "image_url"
    ]


async def test_a_picture_reaches_the_model_and_comes_back_after_a_reload(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("A blue square.", "Still blue.")
    host = AgentHost(Runtime.open(ws_root, _settings(fake_llm)))
    try:
        live, result = await host.chat(None, "what is this?", images=[SHOT])
        assert result.stop_reason == "end_turn"
        sid = live.id
    finally:
        await host.close()
    assert _image_parts(fake_llm.requests[0].body) == [
        {"type": "image_url", "image_url": {"url": SHOT.data_url()}}
    ]
    again = AgentHost(Runtime.open(ws_root, _settings(fake_llm)))
    try:
        live, _ = await again.chat(sid, "and now?")
        assert live.conversation.messages[0].images == (SHOT,)
    finally:
        await again.close()
    assert len(_image_parts(fake_llm.requests[1].body)) == 1  # the history carries it


async def test_a_text_only_model_gets_a_note_and_the_user_a_notice(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("I cannot see it.")
    host = AgentHost(Runtime.open(ws_root, _settings(fake_llm, "openai:deepseek-chat")))
    seen: list[Event] = []
    try:
        await host.chat(None, "what is this?", images=[SHOT], listener=seen.append)
    finally:
        await host.close()
    notices = [e for e in seen if isinstance(e, Notice) and e.topic == "images"]
    assert [n.message for n in notices] == [
        f"openai:deepseek-chat does not take images, so it gets a note in place of "
        f"{SHOT.describe()}. Pick a model that reads images, or set llm.images to true "
        "if this one does."
    ]
    body = fake_llm.requests[0].body
    assert _image_parts(body) == []
    assert "which openai:deepseek-chat cannot see" in str(body["messages"])


async def test_the_setting_lets_a_model_take_pictures(
    ws_root: Path, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("A square.")
    settings = _settings(fake_llm, "openai:deepseek-chat")
    settings = settings.with_values(llm={**settings.values["llm"], "images": True})
    host = AgentHost(Runtime.open(ws_root, settings))
    try:
        await host.chat(None, "what is this?", images=[SHOT])
    finally:
        await host.close()
    assert len(_image_parts(fake_llm.requests[0].body)) == 1
