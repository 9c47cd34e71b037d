"""Pictures reach both APIs as image parts through the real SDKs; a text-only model
gets a note in their place (llm/vision.py, docs/images.md)."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest

from karyi.core.images import image_from_bytes
from karyi.llm.base import Message, Provider, Request
from karyi.llm.vision import accepts_images
from tests.support.fake_model_server import FakeModelServer
from tests.support.pictures import png
from tests.support.streams import collect

MakeProvider = Callable[..., Provider]
SHOT = image_from_bytes(png(), name="shot.png")
ASK = Request([Message("system", "sys"), Message("user", "what is this?", images=(SHOT,))])
B64 = base64.b64encode(png()).decode()


async def test_openai_gets_an_image_url_part(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("a square")
    await collect(make_provider("openai"), ASK)
    user = fake_llm.requests[0].body["messages"][1]
    assert user == {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
        ],
    }


async def test_anthropic_gets_a_base64_image_block(
    fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("a square")
    await collect(make_provider("anthropic", prompt_caching=False), ASK)
    assert fake_llm.requests[0].body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": B64},
                },
            ],
        }
    ]


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_a_text_only_model_gets_a_note_instead(
    api: str, fake_llm: FakeModelServer, make_provider: MakeProvider
) -> None:
    fake_llm.script("ok")
    provider = make_provider(api, images=False, label=f"{api}:deepseek-chat")
    assert provider.accepts_images is False
    await collect(provider, ASK)
    body = str(fake_llm.requests[0].body)
    assert "image_url" not in body and "'image'" not in body and B64 not in body
    assert (
        f"[The user attached an image, {SHOT.describe()}, which {api}:deepseek-chat cannot see.]"
        in body
    )


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4.1", True),
        ("gpt-4o-mini", True),
        ("claude-sonnet-4-5", True),
        ("llama3.2-vision:11b", True),
        ("qwen2.5-vl-7b", True),
        ("some-unknown-model", True),
        ("deepseek-chat", False),
        ("deepseek-reasoner", False),
        ("gpt-3.5-turbo", False),
        ("o3-mini", False),
        ("qwen2.5-coder:7b", False),
        ("meta-llama/llama-3.1-8b-instruct", False),
    ],
)
def test_known_text_only_families(model: str, expected: bool) -> None:
    assert accepts_images(model) is expected


def test_the_setting_overrides_the_guess() -> None:
    assert accepts_images("deepseek-chat", True) is True
    assert accepts_images("gpt-4.1", False) is False
