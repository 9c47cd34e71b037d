"""OpenAI-compatible chat completions through the official `openai` SDK.

One provider for every server that speaks `/chat/completions`: OpenAI, Azure OpenAI's
v1 API, Volcengine Ark, DeepSeek, vLLM, Ollama, llama.cpp's server, LM Studio. It
streams text, `reasoning_content`/`reasoning` deltas (DeepSeek, vLLM, OpenRouter) as
thinking, native tool calls per `index`, usage (`stream_options.include_usage`) and the
finish reason; the bookkeeping around them and the retries are shared (streaming.py,
retry.py), the SDK's own retries are off.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Mapping
from typing import Any

import httpx2
import openai
from openai import AsyncStream
from openai.types.chat import ChatCompletionChunk
from openai.types.chat.chat_completion_chunk import ChoiceDelta, ChoiceDeltaToolCall
from openai.types.completion_usage import CompletionUsage

from karyi.llm import errors
from karyi.llm.base import (
    Message,
    ProviderError,
    Request,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallChunk,
)
from karyi.llm.endpoint import Endpoint
from karyi.llm.streaming import ReplyReader, StreamingProvider, stream_reply
from karyi.llm.tls import sdk_http_client

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
    if message.images:
        out["content"] = [
            *([{"type": "text", "text": message.content}] if message.content else []),
            *({"type": "image_url", "image_url": {"url": i.data_url()}} for i in message.images),
        ]
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


class ChunkReader(ReplyReader[ChatCompletionChunk]):
    """Turns `ChatCompletionChunk`s into stream events, tracking tool-call slots."""

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.finish: str | None = None
        self._by_id: dict[str, int] = {}

    def read(self, chunk: ChatCompletionChunk) -> list[StreamEvent]:
        """The events in one chunk (only choice 0: we never ask for n > 1)."""
        self.seen = True
        if chunk.usage is not None:
            self._usage(chunk.usage)
        out: list[StreamEvent] = []
        for choice in chunk.choices or []:
            if choice.index not in (0, None):
                continue
            if choice.delta is not None:
                out.extend(self._delta(choice.delta))
            if choice.finish_reason:
                self.finish = str(choice.finish_reason)
                out.extend(self.tools.close_all())
        return out

    def end(self) -> list[StreamEvent]:
        """The closing events, or the error for a stream cut short."""
        reason = self.finish
        if reason == "function_call" or (reason == "stop" and self.tools.used):
            reason = "tool_calls"  # some servers say `stop` after tool calls
        return self.closing(reason)

    def _usage(self, usage: CompletionUsage) -> None:
        details = usage.prompt_tokens_details
        self.usage.update(
            input_tokens=usage.prompt_tokens or 0,
            output_tokens=usage.completion_tokens or 0,
            cached=(details.cached_tokens or 0) if details is not None else 0,
        )

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
        self.tools.open(slot)
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
        elif call.id or not self.tools:
            slot = max([*self._by_id.values(), *self.tools.slots, -1]) + 1
        else:
            slot = self.tools.slots[-1]
        if call.id:
            self._by_id.setdefault(call.id, slot)
        return slot


class OpenAICompatProvider(StreamingProvider):
    """A model behind an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None):
        super().__init__(endpoint)
        self._client = openai.AsyncOpenAI(
            api_key=endpoint.api_key,
            base_url=endpoint.base_url or OPENAI_BASE_URL,
            timeout=openai.Timeout(endpoint.read_timeout, connect=endpoint.connect_timeout),
            max_retries=0,
            default_headers=dict(endpoint.headers) or None,
            http_client=http_client or sdk_http_client(openai.DefaultAsyncHttpxClient),
        )

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.close()

    def _attempt(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        body = chat_body(request, self._endpoint)

        def start() -> Awaitable[AsyncStream[ChatCompletionChunk]]:
            return self._client.chat.completions.create(
                **body, extra_body=dict(request.extra) or None
            )

        return stream_reply(start, ChunkReader(self.label), openai.OpenAIError, self._error)

    def _error(self, exc: Exception) -> ProviderError:
        return errors.without_credentials(self._mapped(exc), self._endpoint.api_key)

    def _mapped(self, exc: Exception) -> ProviderError:
        label, hint = self.label, self._endpoint.key_hint
        silent = errors.idle(exc, label=label, seconds=self._endpoint.read_timeout)
        if silent is not None:
            return silent
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
        return errors.unexpected(exc, label=label)
