"""The fake model server itself: non-streaming answers, slow chunks, an empty script.

Other tests lean on it; these check the parts they do not reach, through the SDKs.
"""

from __future__ import annotations

import anthropic
import openai
import pytest

from karyi.llm.base import Message, Request
from karyi.llm.endpoint import Endpoint
from karyi.llm.openai_compat import OpenAICompatProvider
from tests.support.fake_model_server import FakeModelServer
from tests.support.replies import Call, Reply
from tests.support.streams import collect, text_of


async def test_non_streaming_openai_reply(fake_llm: FakeModelServer) -> None:
    fake_llm.script(Reply(text="plain", calls=[Call("f", {"a": 1}, id="c1")]))
    async with openai.AsyncOpenAI(api_key="k", base_url=fake_llm.openai_url) as client:
        reply = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
    message = reply.choices[0].message
    assert (message.content, reply.choices[0].finish_reason) == ("plain", "tool_calls")
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    assert call.type == "function"
    assert (call.id, call.function.name, call.function.arguments) == ("c1", "f", '{"a": 1}')
    assert reply.usage is not None and reply.usage.prompt_tokens == 11


async def test_non_streaming_anthropic_reply(fake_llm: FakeModelServer) -> None:
    fake_llm.script(Reply(text="plain"))
    async with anthropic.AsyncAnthropic(api_key="k", base_url=fake_llm.anthropic_url) as client:
        reply = await client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
    assert reply.stop_reason == "end_turn"
    assert [block.type for block in reply.content] == ["text"]
    assert reply.usage.output_tokens == 7


async def test_an_empty_script_answers_400_saying_so(fake_llm: FakeModelServer) -> None:
    async with openai.AsyncOpenAI(api_key="k", base_url=fake_llm.openai_url, max_retries=0) as c:
        with pytest.raises(openai.BadRequestError, match="no scripted reply for request #1"):
            await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])


async def test_slow_chunks_still_make_the_whole_reply(fake_llm: FakeModelServer) -> None:
    """`chunk_delay` paces every event (for agent tests that cancel mid-stream);
    that text arrives before the reply ends is shown by the cancellation tests."""
    fake_llm.chunk_delay = 0.01
    fake_llm.script(Reply(text=["a", "b", "c"]))
    provider = OpenAICompatProvider(Endpoint("m", "k", "openai:m", base_url=fake_llm.openai_url))
    try:
        events = await collect(provider, Request([Message("user", "hi")]))
    finally:
        await provider.aclose()
    assert text_of(events) == "abc"
