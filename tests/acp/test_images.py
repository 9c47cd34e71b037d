"""Pictures in an ACP prompt: an image block reaches the model as an image part; a block
that is not a picture is refused before the turn, naming what is wrong."""

from __future__ import annotations

import base64
import json

import pytest
from acp import RequestError, image_block, text_block

from tests.acp.conftest import Start
from tests.support.fake_model_server import FakeModelServer
from tests.support.pictures import png
from tests.support.replies import Reply


async def test_initialize_says_prompts_may_carry_images(karyi_acp: Start) -> None:
    agent = await karyi_acp()
    answer = await agent.initialize()
    caps = answer.agent_capabilities
    assert caps is not None and caps.prompt_capabilities is not None
    assert caps.prompt_capabilities.image is True


async def test_an_image_block_reaches_the_model_as_an_image_part(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    fake_llm.script(Reply(text="A tiny square."))
    agent = await karyi_acp()
    sid = await agent.new_session()
    data = base64.b64encode(png()).decode()
    answer = await agent.conn.prompt(
        session_id=sid,
        prompt=[text_block("What is this?"), image_block(data, "image/png")],
    )
    assert answer.stop_reason == "end_turn"
    sent = json.dumps(fake_llm.requests[0].body["messages"])
    assert f"data:image/png;base64,{data}" in sent


async def test_a_block_that_is_not_a_picture_is_refused(
    karyi_acp: Start, fake_llm: FakeModelServer
) -> None:
    agent = await karyi_acp()
    sid = await agent.new_session()
    fake = base64.b64encode(b"not an image at all").decode()
    with pytest.raises(RequestError) as refused:
        await agent.conn.prompt(session_id=sid, prompt=[image_block(fake, "image/png")])
    assert refused.value.code == -32602
    assert fake_llm.requests == []
