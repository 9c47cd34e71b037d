"""OpenAI-compatible chat completions through the official `openai` SDK.

One provider for every server that speaks `/chat/completions`: OpenAI, Azure OpenAI's
v1 API, Volcengine Ark, DeepSeek, vLLM, Ollama, llama.cpp's server, LM Studio. It
streams text, `reasoning_content`/`reasoning` deltas (DeepSeek, vLLM, OpenRouter) as
thinking, native tool calls per `index`, usage (`stream_options.include_usage`) and the
finish reason; retries are ours (see retry.py), the SDK's are off.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any

import httpx2
import openai
from openai.types.chat import ChatCompletionChunk
from openai.types.chat.chat_completion_chunk import ChoiceDelta, ChoiceDeltaToolCall
from openai.types.completion_usage import CompletionUsage

from karyi.llm import errors
from karyi.llm.base import (
    Finish,
    Message,
    Provider,
    ProviderError,
    Request,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallChunk,
    ToolCallEnd,
    Usage,
)
from karyi.llm.endpoint import Endpoint
from karyi.llm.retry import retrying

OPENAI_BASE_URL = "https://api.openai.com/v1"
_THINKING_FIELDS = ("reasoning_content", "reasoning")


def function_tool(declaration: Mapping[str, Any]) -> dict[str, Any]:
    """A `{name, description, parameters}` declaration as an OpenAI `tools` entry."""
    if declaration.get("type") == "function":
        return dict(declaration)
    function = {
        k: declaration[k] for k in ("name", "description", "parameters") if k in declaration
    }
    return {"type": "function", "function": function}


def openai_message(message: Message) -> dict[str, Any]:
    """One provider-neutral message in OpenAI's shape."""
    if message.role == "tool":
        # OpenAI has no error flag on tool results: the result text says it failed.
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": message.content,
        }
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.name:
        out["name"] = message.name
    if message.role == "assistant" and message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    return out


def chat_body(request: Request, endpoint: Endpoint) -> dict[str, Any]:
    """The JSON body of one streaming chat completion (without `extra`)."""
    body: dict[str, Any] = {
        "model": endpoint.model,
        "messages": [openai_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [function_tool(t) for t in request.tools]
    if request.stop:
        body["stop"] = list(request.stop)
    if request.max_tokens is not None:
        body[endpoint.max_tokens_field] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def _usage(usage: CompletionUsage) -> Usage:
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details is not None else 0
    return Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0, cached)


class ChunkReader:
    """Turns `ChatCompletionChunk`s into stream events, tracking tool-call slots."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.seen = False
        self.finish: str | None = None
        self.usage: Usage | None = None
        self._open: list[int] = []
        self._by_id: dict[str, int] = {}
        self._called = False

    def read(self, chunk: ChatCompletionChunk) -> list[StreamEvent]:
        """The events in one chunk (only choice 0: we never ask for n > 1)."""
        self.seen = True
        if chunk.usage is not None:
            self.usage = _usage(chunk.usage)
        out: list[StreamEvent] = []
        for choice in chunk.choices or []:
            if choice.index not in (0, None):
                continue
            if choice.delta is not None:
                out.extend(self._delta(choice.delta))
            if choice.finish_reason:
                self.finish = str(choice.finish_reason)
                out.extend(self._close_slots())
        return out

    def end(self) -> list[StreamEvent]:
        """The closing events, or the error for a stream cut short."""
        if self.finish is None:
            raise errors.truncated(self.label, self.seen)
        reason = self.finish
        if reason == "function_call" or (reason == "stop" and self._called):
            reason = "tool_calls"  # some servers say `stop` after tool calls
        tail: list[StreamEvent] = [*self._close_slots()]
        if self.usage is not None:
            tail.append(self.usage)
        return [*tail, Finish(reason)]

    def _delta(self, delta: ChoiceDelta) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        extra = delta.model_extra or {}
        for name in _THINKING_FIELDS:
            thinking = extra.get(name)
            if isinstance(thinking, str) and thinking:
                out.append(ThinkingChunk(thinking))
                break
        if delta.content:
            out.append(TextChunk(delta.content))
        for call in delta.tool_calls or []:
            out.append(self._call(call))
        return out

    def _call(self, call: ChoiceDeltaToolCall) -> ToolCallChunk:
        slot = self._slot(call)
        if slot not in self._open:
            self._open.append(slot)
        self._called = True
        function = call.function
        name = function.name if function is not None else None
        arguments = (function.arguments or "") if function is not None else ""
        return ToolCallChunk(slot, id=call.id or None, name=name or None, arguments=arguments)

    def _slot(self, call: ChoiceDeltaToolCall) -> int:
        """The call's `index`; servers that omit it get one slot per new id."""
        index: object = call.index  # typed int, but some servers leave it out
        if isinstance(index, int):
            slot = index
        elif call.id and call.id in self._by_id:
            slot = self._by_id[call.id]
        elif call.id or not self._open:
            slot = max([*self._by_id.values(), *self._open, -1]) + 1
        else:
            slot = self._open[-1]
        if call.id:
            self._by_id.setdefault(call.id, slot)
        return slot

    def _close_slots(self) -> list[StreamEvent]:
        closed: list[StreamEvent] = [ToolCallEnd(slot) for slot in sorted(self._open)]
        self._open.clear()
        return closed


class OpenAICompatProvider(Provider):
    """A model behind an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None):
        self.label = endpoint.label
        self.context_window = endpoint.context_window
        self._endpoint = endpoint
        self._client = openai.AsyncOpenAI(
            api_key=endpoint.api_key,
            base_url=endpoint.base_url or OPENAI_BASE_URL,
            timeout=openai.Timeout(endpoint.read_timeout, connect=endpoint.connect_timeout),
            max_retries=0,
            default_headers=dict(endpoint.headers) or None,
            http_client=http_client,
        )

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Stream one reply, retrying failures that happen before any output."""
        return retrying(lambda: self._attempt(request), self._endpoint.retry)

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.close()

    async def _attempt(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        reader = ChunkReader(self.label)
        body = chat_body(request, self._endpoint)
        try:
            stream = await self._client.chat.completions.create(
                **body, extra_body=dict(request.extra) or None
            )
        except (openai.OpenAIError, httpx2.HTTPError) as exc:
            raise self._error(exc) from exc
        try:
            async with stream:
                async for chunk in stream:
                    for event in reader.read(chunk):
                        yield event
        except (openai.OpenAIError, httpx2.HTTPError, *errors.MALFORMED) as exc:
            raise self._error(exc) from exc
        for event in reader.end():
            yield event

    def _error(self, exc: Exception) -> ProviderError:
        label, hint = self.label, self._endpoint.key_hint
        if isinstance(exc, openai.APIStatusError):
            return errors.from_status(
                exc.status_code, exc.response.headers, exc.body, label=label, key_hint=hint
            )
        if isinstance(exc, openai.APITimeoutError):
            return errors.timeout(label)
        if isinstance(exc, openai.APIConnectionError):
            return errors.connection(label, exc)
        if isinstance(exc, openai.APIError):  # an error object inside the stream
            return errors.from_status(200, {}, {"error": exc.body}, label=label, key_hint=hint)
        found = errors.transport(exc, label=label) or errors.malformed(exc, label=label)
        return found or errors.ApiError("malformed", f"{label}: {exc}")
