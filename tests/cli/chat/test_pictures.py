"""Pictures in the chat: a picture file's path pasted into the prompt becomes its `@`
mention, and the pictures a message mentions reach the model as image parts; a file
that is no picture is refused with its name and nothing is sent."""

from __future__ import annotations

from pathlib import Path

from textual import events

from karyi.cli.chat.pictures import pasted_picture
from karyi.cli.chat.widgets import NoticeLine
from tests.cli.chat.conftest import Chat, until
from tests.cli.chat.test_pilot import send, texts
from tests.support.fake_model_server import FakeModelServer
from tests.support.pictures import png


def test_what_a_terminal_pastes_for_a_dropped_file(tmp_path: Path) -> None:
    shot = tmp_path / "my shot.png"
    shot.write_bytes(png())
    assert pasted_picture(f"'{shot}'", tmp_path) == shot  # quoted, as most terminals do
    assert pasted_picture(str(shot).replace(" ", "\\ "), tmp_path) == shot  # escaped
    assert pasted_picture(shot.as_uri(), tmp_path) == shot  # a file:// URI
    assert pasted_picture("my shot.png", tmp_path) is None  # two words of text
    assert pasted_picture("'my shot.png'", tmp_path) == shot  # relative to the workspace
    assert pasted_picture(str(tmp_path / "gone.png"), tmp_path) is None
    assert pasted_picture("hello\nworld", tmp_path) is None


async def test_a_pasted_picture_path_is_sent_as_a_picture(
    chat: Chat, fake_llm: FakeModelServer, ws_root: Path, tmp_path: Path
) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(png())
    fake_llm.script("A picture.")
    async with chat() as (app, pilot):
        await pilot.press(*"what is this ")
        app.prompt.post_message(events.Paste(f"'{shot}'"))
        await until(pilot, lambda: app.prompt.value.endswith("shot.png "), "the mention")
        assert app.prompt.value == f"what is this @{shot} "
        await pilot.press("enter")
        await until(pilot, lambda: not app._driving and fake_llm.requests, "the turn ended")
        user = next(m for m in fake_llm.requests[0].body["messages"] if m["role"] == "user")
        parts = [p["image_url"]["url"] for p in user["content"] if p["type"] == "image_url"]
        assert len(parts) == 1 and parts[0].startswith("data:image/png;base64,")
        assert any("shot.png (image/png" in str(n.render()) for n in texts(app, NoticeLine))


async def test_a_mentioned_file_that_is_no_picture_is_refused(
    chat: Chat, fake_llm: FakeModelServer, ws_root: Path
) -> None:
    (ws_root / "fake.png").write_text("not a picture")
    async with chat() as (app, pilot):
        await send(pilot, "look at @fake.png")
        await until(pilot, lambda: not app._driving, "the turn ended")
        errors = [str(n.render()) for n in texts(app, NoticeLine) if n.has_class("error")]
        assert errors and "fake.png" in errors[0] and "not a PNG" in errors[0]
        assert not fake_llm.requests  # nothing was sent
