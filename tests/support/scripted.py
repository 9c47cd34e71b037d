"""An in-process provider that streams scripted replies instantly (no HTTP).

For loop tests and the loop benchmark; provider behaviour against real SDKs and real
HTTP is tested with the fake model server instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from karyi.llm.base import (
    Finish,
    Provider,
    ProviderError,
    Request,
    StreamEvent,
    TextChunk,
    ToolCallChunk,
    ToolCallEnd,
    Usage,
)


@dataclass
class NativeReply:
    """A reply made of native calls: (id, name, arguments JSON) plus optional text."""

    calls: Sequence[tuple[str, str, str]]
    text: str = ""


Reply = str | NativeReply | ProviderError


@dataclass
class ScriptedProvider(Provider):
    """Replays `replies` in order, `chunk` characters at a time; records every request."""

    replies: list[Reply]
    chunk: int = 7
    label: str = "scripted:test"
    context_window: int = 128_000
    requests: list[Request] = field(default_factory=list)
    gate: asyncio.Event | None = None  # when set, streaming waits for it after the first chunk

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        if not self.replies:
            raise ProviderError("config", "the script has no more replies")
        reply = self.replies.pop(0)
        if isinstance(reply, ProviderError):
            raise reply
        if isinstance(reply, NativeReply):
            if reply.text:
                yield TextChunk(reply.text)
            for slot, (cid, name, args) in enumerate(reply.calls):
                yield ToolCallChunk(slot, cid, name, args[: len(args) // 2])
                yield ToolCallChunk(slot, None, None, args[len(args) // 2 :])
                yield ToolCallEnd(slot)
        else:
            for i in range(0, len(reply), self.chunk):
                yield TextChunk(reply[i : i + self.chunk])
                if i == 0 and self.gate is not None:
                    await self.gate.wait()
        yield Usage(input_tokens=10, output_tokens=5)
        yield Finish("stop")
