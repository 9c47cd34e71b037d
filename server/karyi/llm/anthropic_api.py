"""Anthropic's Messages API through the official `anthropic` SDK.

(Named `anthropic_api` so it never shadows the SDK's own `anthropic` package.)
It streams text and thinking deltas, `tool_use` blocks as tool-call fragments in the
slot of their content block (`input_json_delta` → arguments, `content_block_stop` →
`ToolCallEnd`), usage from `message_start`/`message_delta`, and the stop reason
translated to the contract's words. Messages are mapped to Anthropic's rules: the
system prompt is the `system` parameter, tool results are `tool_result` blocks in a user
message (first in it, as the API requires), consecutive same-role messages are merged.
The bookkeeping every SDK provider shares (tool-call slots, usage, the finish check,
one attempt's error handling, retries) is in streaming.py.

Prompt caching (`llm.promptCaching`, on by default): cache breakpoints on the system
prompt (which caches the tool declarations before it too) and on the last two user
messages, so each model call of a turn reads the conversation so far from the cache
instead of paying for it again.

Extended thinking (`llm.thinkingBudget`): each finished thinking block, with its
signature (or a redacted block, with its data), is handed to the agent as a
`ReasoningBlock` and goes back first in that assistant message, as the API requires
when the reply used tools.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Awaitable, Mapping, Sequence
from typing import Any

import anthropic
import httpx2
from anthropic import AsyncStream
from anthropic.types import RawMessageStreamEvent

from karyi.llm import errors
from karyi.llm.base import (
    Message,
    ProviderError,
    ReasoningBlock,
    Request,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    ToolCallChunk,
)
from karyi.llm.endpoint import Endpoint
from karyi.llm.streaming import ReplyReader, StreamingProvider, stream_reply
from karyi.llm.tls import sdk_http_client

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
THINKING_ANSWER_ROOM = 8192
"""Tokens left for the answer on top of the thinking budget."""
_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
}


def default_max_tokens(model: str) -> int:
    """The API requires max_tokens; the Claude 3 models accept less than later ones."""
    if model.startswith("claude-3-5"):
        return 8192
    if model.startswith("claude-3-") and not model.startswith("claude-3-7"):
        return 4096
    return 16384


def tool_declaration(declaration: Mapping[str, Any]) -> dict[str, Any]:
    """A `{name, description, parameters}` declaration as an Anthropic tool."""
    if "input_schema" in declaration:
        return dict(declaration)
    if declaration.get("type") == "function":  # an OpenAI-shaped entry
        declaration = declaration.get("function", {})
    out = {"name": declaration["name"], "input_schema": declaration.get("parameters", {})}
    if declaration.get("description"):
        out["description"] = declaration["description"]
    return out


def _tool_input(arguments: str) -> dict[str, Any]:
    # The API wants an object; a call whose JSON was broken goes back as {} (its error
    # result tells the model what was wrong).
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    if message.role == "tool":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id or ""}
        if message.content:
            block["content"] = message.content
        if message.is_error:
            block["is_error"] = True
        return "user", [block]
    blocks: list[dict[str, Any]] = [dict(b) for b in message.reasoning]
    if message.content.strip():
        blocks.append({"type": "text", "text": message.content})
    for image in message.images:
        source = {"type": "base64", "media_type": image.mime, "data": image.base64()}
        blocks.append({"type": "image", "source": source})
    if message.role == "assistant":
        for call in message.tool_calls:
            use = {"type": "tool_use", "id": call.id, "name": call.name}
            blocks.append(use | {"input": _tool_input(call.arguments)})
        return "assistant", blocks
    return "user", blocks  # user, and system notes that come after the conversation began


def anthropic_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The `system` text and the `messages` list for a provider-neutral conversation."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system" and not out:
            system.append(message.content)
            continue
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for entry in out:
        if entry["role"] == "user":
            content = entry["content"]
            entry["content"] = [b for b in content if b["type"] == "tool_result"] + [
                b for b in content if b["type"] != "tool_result"
            ]
    return "\n\n".join(s for s in system if s), out


def messages_body(request: Request, endpoint: Endpoint) -> dict[str, Any]:
    """The JSON body of one Messages API call (without `stream` and `extra`)."""
    system, messages = anthropic_messages(request.messages)
    max_tokens = request.max_tokens or default_max_tokens(endpoint.model)
    budget = endpoint.thinking_budget
    if budget:
        # The budget counts inside max_tokens, which must exceed it; leave room to answer.
        max_tokens = max(max_tokens, budget + THINKING_ANSWER_ROOM)
    body: dict[str, Any] = {"model": endpoint.model, "max_tokens": max_tokens, "messages": messages}
    if endpoint.prompt_caching:
        _mark_cache_breakpoints(messages)
    if system:
        body["system"] = (
            [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
            if endpoint.prompt_caching
            else system
        )
    if request.tools:
        body["tools"] = [tool_declaration(t) for t in request.tools]
    if request.stop:
        body["stop_sequences"] = list(request.stop)
    if budget and not _thinking_breaks(messages):
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif request.temperature is not None:  # thinking allows no temperature but the default
        body["temperature"] = request.temperature
    return body


def _thinking_breaks(messages: list[dict[str, Any]]) -> bool:
    """Whether turning thinking on would get this request refused.

    With thinking on, the API wants the last assistant message that used tools to start
    with its signed thinking block. A block can be missing: dropped from the session file
    (a secret's redaction would have altered it), from a session stored before thinking
    was carried, or thinking was switched on mid-loop. Such a request goes without
    thinking; the model thinks again once the tool loop is over.
    """
    last = next((m for m in reversed(messages) if m["role"] == "assistant"), None)
    if last is None or not any(b["type"] == "tool_use" for b in last["content"]):
        return False
    return last["content"][0]["type"] not in ("thinking", "redacted_thinking")


EPHEMERAL = {"type": "ephemeral"}
CACHED_USER_MESSAGES = 2
"""Breakpoints on the last user messages: with the system prompt's, 3 of the API's 4."""


def _mark_cache_breakpoints(messages: list[dict[str, Any]]) -> None:
    """Put a cache breakpoint on the last block of each of the last user messages."""
    users = [m for m in messages if m["role"] == "user" and m["content"]]
    for message in users[-CACHED_USER_MESSAGES:]:
        last = message["content"][-1] = dict(message["content"][-1])
        last["cache_control"] = EPHEMERAL


class EventReader(ReplyReader[RawMessageStreamEvent]):
    """Turns Messages API stream events into contract events."""

    always_usage = True

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.stopped = False
        self.reason = "stop"
        self._thinking: dict[int, dict[str, Any]] = {}

    def read(self, event: RawMessageStreamEvent) -> list[StreamEvent]:
        """The contract events for one API event."""
        self.seen = True
        if event.type == "message_start":
            self._usage(event.message.usage)
        elif event.type == "content_block_start":
            return self._start(event.index, event.content_block)
        elif event.type == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif event.type == "content_block_stop" and event.index in self.tools:
            return self.tools.close(event.index)
        elif event.type == "content_block_stop" and event.index in self._thinking:
            return [ReasoningBlock(self._thinking.pop(event.index))]
        elif event.type == "message_delta":
            if event.delta.stop_reason:
                self.reason = _STOP.get(event.delta.stop_reason, event.delta.stop_reason)
            self._usage(event.usage)
        elif event.type == "message_stop":
            self.stopped = True
        return []

    def end(self) -> list[StreamEvent]:
        """Usage and the finish reason, or the error for a stream cut short."""
        return self.closing(self.reason if self.stopped else None)

    def _usage(self, usage: Any) -> None:
        # Input = uncached + cache writes + cache reads, like OpenAI's prompt_tokens.
        parts = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        given = any(getattr(usage, p, None) is not None for p in parts)
        self.usage.update(
            input_tokens=sum(getattr(usage, p, None) or 0 for p in parts) if given else None,
            output_tokens=getattr(usage, "output_tokens", None),
            cached=getattr(usage, "cache_read_input_tokens", None),
        )

    def _start(self, index: int, block: Any) -> list[StreamEvent]:
        if block.type == "text" and block.text:
            return [TextChunk(block.text)]
        if block.type == "thinking":
            self._thinking[index] = {
                "type": "thinking",
                "thinking": block.thinking or "",
                "signature": getattr(block, "signature", None) or "",
            }
            return [ThinkingChunk(block.thinking)] if block.thinking else []
        if block.type == "redacted_thinking":
            self._thinking[index] = {"type": "redacted_thinking", "data": block.data}
            return []
        if block.type == "tool_use":
            self.tools.open(index)
            given = json.dumps(block.input) if block.input else ""
            return [ToolCallChunk(index, id=block.id, name=block.name, arguments=given)]
        return []  # server tools: nothing the agent acts on

    def _delta(self, index: int, delta: Any) -> list[StreamEvent]:
        if delta.type == "text_delta":
            return [TextChunk(delta.text)] if delta.text else []
        if delta.type == "thinking_delta":
            if index in self._thinking:
                self._thinking[index]["thinking"] += delta.thinking
            return [ThinkingChunk(delta.thinking)] if delta.thinking else []
        if delta.type == "signature_delta" and index in self._thinking:
            self._thinking[index]["signature"] += delta.signature
        if delta.type == "input_json_delta" and index in self.tools:
            return (
                [ToolCallChunk(index, arguments=delta.partial_json)] if delta.partial_json else []
            )
        return []


class AnthropicProvider(StreamingProvider):
    """A Claude model behind the Messages API (or a compatible proxy)."""

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None):
        super().__init__(endpoint)
        self._client = anthropic.AsyncAnthropic(
            api_key=endpoint.api_key,
            base_url=endpoint.base_url or ANTHROPIC_BASE_URL,
            timeout=anthropic.Timeout(endpoint.read_timeout, connect=endpoint.connect_timeout),
            max_retries=0,
            default_headers=dict(endpoint.headers) or None,
            http_client=http_client or sdk_http_client(anthropic.DefaultAsyncHttpxClient),
        )

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.close()

    def _attempt(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        body = messages_body(request, self._endpoint) | dict(request.extra)
        # Only what the API requires goes through named parameters; the rest rides in
        # `extra_body`, so a parameter the installed SDK does not name (its signature
        # changes between versions) still reaches the API.
        required = {k: body.pop(k) for k in ("model", "max_tokens", "messages")}

        def start() -> Awaitable[AsyncStream[RawMessageStreamEvent]]:
            return self._client.messages.create(**required, stream=True, extra_body=body or None)

        reader = EventReader(self.label)
        return stream_reply(start, reader, anthropic.AnthropicError, self._error)

    def _error(self, exc: Exception) -> ProviderError:
        return errors.without_credentials(self._mapped(exc), self._endpoint.api_key)

    def _mapped(self, exc: Exception) -> ProviderError:
        label, hint = self.label, self._endpoint.key_hint
        silent = errors.idle(exc, label=label, seconds=self._endpoint.read_timeout)
        if silent is not None:
            return silent
        if isinstance(exc, anthropic.APIStatusError):
            return errors.from_status(
                exc.status_code, exc.response.headers, exc.body, label=label, key_hint=hint
            )
        if isinstance(exc, anthropic.APITimeoutError):
            return errors.timeout(label)
        if isinstance(exc, anthropic.APIConnectionError):
            return errors.connection(label, exc)
        return errors.unexpected(exc, label=label)
