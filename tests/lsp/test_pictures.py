"""`karyi/chat` with pictures over the real server: an image part in the model's
request, the pictures back in `karyi/loadSession`, a bad one refused (docs/protocol.md)."""

from __future__ import annotations

import base64

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from karyi.core.plain_json import plain
from tests.lsp.conftest import Start, request
from tests.support.fake_model_server import FakeModelServer
from tests.support.pictures import png

PNG64 = base64.b64encode(png(3, 2)).decode()


async def test_a_chat_picture_reaches_the_model_and_the_transcript(
    lsp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script("A small picture.")
    client = await lsp()
    shot = {"mimeType": "image/png", "data": PNG64, "name": "shot.png"}
    result = plain(await request(client, "karyi/chat", {"message": "what?", "images": [shot]}))
    assert result["finalAnswer"] == "A small picture."
    user = fake_llm.requests[0].body["messages"][1]
    assert user["content"][1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{PNG64}"},
    }
    loaded = plain(await request(client, "karyi/loadSession", {"sessionId": result["sessionId"]}))
    assert loaded["transcript"]["turns"][0]["images"] == [shot]


@pytest.mark.parametrize(
    ("image", "message"),
    [
        ({"data": base64.b64encode(b"GIF8 nope").decode()}, "is not a PNG, JPEG, GIF or WebP"),
        ({"data": PNG64, "mimeType": "image/gif"}, "says image/gif but its content is image/png"),
        ({"data": "%%%"}, "`data` is not valid base64"),
        ({"data": PNG64, "url": "x"}, "images"),
    ],
)
async def test_a_bad_picture_is_invalid_params_and_starts_nothing(
    lsp: Start, fake_llm: FakeModelServer, image: dict[str, str], message: str
) -> None:
    client = await lsp()
    with pytest.raises(JsonRpcInvalidParams, match=message):
        await request(client, "karyi/chat", {"message": "what?", "images": [image]})
    assert fake_llm.requests == []
    assert plain(await request(client, "karyi/sessions", {}))["sessions"] == []
