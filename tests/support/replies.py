"""What the fake model server says: scripted replies and faults, as the two APIs' SSE events.

A `Reply` is provider-neutral (thinking, text, tool calls, usage, finish reason); the
`openai_events` and `anthropic_events` functions turn it into the exact event sequence
each real API streams, so the real SDKs parse it as they would a real server's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from typing import Any

Event = tuple[str | None, str]  # (SSE event name, data)


def pieces(text: str | list[str], size: int = 8) -> list[str]:
    """Text as stream deltas: a list is kept as given, a string is cut every `size` chars."""
    if isinstance(text, list):
        return text
    return [text[i : i + size] for i in range(0, len(text), size)]


@dataclass
class Call:
    """A native tool call the fake model makes; `fragments` chunks its argument JSON."""

    name: str
    arguments: str | dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    fragments: list[str] | None = None

    def json(self) -> str:
        """The arguments as JSON text."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)

    def parts(self) -> list[str]:
        """The argument JSON as the deltas to stream."""
        return self.fragments if self.fragments is not None else pieces(self.json(), 10)


@dataclass
class Reply:
    """One scripted model reply."""

    text: str | list[str] = ""
    thinking: str | list[str] = ""
    redacted: str = ""  # Anthropic only: a redacted_thinking block with this data
    calls: list[Call] = field(default_factory=list)
    input_tokens: int = 11
    output_tokens: int = 7
    cached_tokens: int = 0
    finish: str | None = None  # default: stop, or tool_calls when there are calls
    interleave: bool = False  # OpenAI only: round-robin the calls' argument fragments
    omit_index: bool = (
        False  # OpenAI only: leave `index` out of tool-call deltas, as some servers do
    )
    paced: bool = False
    """Stream one event per permit (`FakeModelServer.release`): a test sees each state of a
    slow reply and says when the next piece comes, with no timing involved."""

    def finish_reason(self) -> str:
        """The OpenAI finish reason this reply ends with."""
        return self.finish or ("tool_calls" if self.calls else "stop")


@dataclass
class Fault:
    """What goes wrong with one request.

    `status`: answer with that HTTP status (and `retry_after`, `message`) instead of a
    reply. `reset`, `malformed`, `stall`, `close`, `error_event`: stream the first
    `after` events of the next reply, then reset the connection, send garbage, stall
    until the client goes away, close cleanly mid-body, or send the API's in-stream
    error (Anthropic's `overloaded_error` event, OpenAI's `{"error": ...}` chunk). A
    streaming fault does not use up the reply.
    `gate`: wait for it to be set before the fault, so a test can first see the output
    before it (a reset would otherwise race the client reading what came before).
    """

    status: int | None = None
    retry_after: str | None = None
    message: str = "injected fault"
    reset: bool = False
    malformed: bool = False
    stall: bool = False
    close: bool = False
    error_event: bool = False
    after: int = 0
    gate: threading.Event | None = None

    @property
    def streams(self) -> bool:
        """Whether this fault happens inside a stream (rather than instead of it)."""
        return self.status is None


def _oa_chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
        "choices": [choice],
    }
    return json.dumps(body)


def _oa_usage(reply: Reply) -> dict[str, Any]:
    return {
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
    }


def _oa_call_deltas(reply: Reply) -> list[dict[str, Any]]:
    heads: list[list[dict[str, Any]]] = []
    for index, call in enumerate(reply.calls):
        first = {
            "index": index,
            "id": call.id or f"call_{index}",
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        rest = [{"index": index, "function": {"arguments": p}} for p in call.parts()]
        heads.append([first, *rest])
    if reply.interleave:
        order = [d for row in _round_robin(heads) for d in row]
    else:
        order = [d for seq in heads for d in seq]
    return order


def _round_robin(rows: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = []
    for i in range(max((len(r) for r in rows), default=0)):
        out.append([r[i] for r in rows if i < len(r)])
    return out


def openai_events(reply: Reply, model: str, include_usage: bool) -> list[Event]:
    """The chat.completion.chunk stream OpenAI sends for `reply`."""
    events: list[Event] = [(None, _oa_chunk(model, {"role": "assistant", "content": ""}))]
    for part in pieces(reply.thinking):
        events.append((None, _oa_chunk(model, {"reasoning_content": part})))
    for part in pieces(reply.text):
        events.append((None, _oa_chunk(model, {"content": part})))
    for delta in _oa_call_deltas(reply):
        if reply.omit_index:
            delta = {k: v for k, v in delta.items() if k != "index"}
        events.append((None, _oa_chunk(model, {"tool_calls": [delta]})))
    events.append((None, _oa_chunk(model, {}, reply.finish_reason())))
    if include_usage:
        usage = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000}
        usage |= {"model": model, "choices": [], "usage": _oa_usage(reply)}
        events.append((None, json.dumps(usage)))
    events.append((None, "[DONE]"))
    return events


def openai_message(reply: Reply, model: str) -> dict[str, Any]:
    """The non-streaming chat.completion body for `reply`."""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(pieces(reply.text))}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": c.id or f"call_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": c.json()},
            }
            for i, c in enumerate(reply.calls)
        ]
    choice = {"index": 0, "message": message, "finish_reason": reply.finish_reason()}
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [choice],
        "usage": _oa_usage(reply),
    }


_ANTHROPIC_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


def _an(kind: str, **body: Any) -> Event:
    return (kind, json.dumps({"type": kind, **body}))


def thinking_signature(thinking: str) -> str:
    """The fake server's signature of a thinking block (it checks blocks sent back)."""
    return base64.b64encode(hashlib.sha256(thinking.encode()).digest()).decode()


def _an_blocks(reply: Reply) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if reply.thinking:
        deltas: list[dict[str, Any]] = [
            {"type": "thinking_delta", "thinking": p} for p in pieces(reply.thinking)
        ]
        signature = thinking_signature("".join(pieces(reply.thinking)))
        deltas.append({"type": "signature_delta", "signature": signature})
        blocks.append(({"type": "thinking", "thinking": "", "signature": ""}, deltas))
    if reply.redacted:
        blocks.append(({"type": "redacted_thinking", "data": reply.redacted}, []))
    if reply.text:
        deltas = [{"type": "text_delta", "text": p} for p in pieces(reply.text)]
        blocks.append(({"type": "text", "text": ""}, deltas))
    for index, call in enumerate(reply.calls):
        start = {"type": "tool_use", "id": call.id or f"toolu_{index}", "name": call.name}
        start["input"] = {}
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in call.parts()]
        blocks.append((start, deltas))
    return blocks


def anthropic_stop(reply: Reply) -> str:
    """The Anthropic stop_reason for `reply`."""
    reason = reply.finish_reason()
    return _ANTHROPIC_STOP.get(reason, reason)


def anthropic_events(reply: Reply, model: str) -> list[Event]:
    """The Messages API event stream Anthropic sends for `reply`."""
    usage = {
        "input_tokens": reply.input_tokens,
        "output_tokens": 1,
        "cache_read_input_tokens": reply.cached_tokens,
        "cache_creation_input_tokens": 0,
    }
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    events = [_an("message_start", message=message), ("ping", '{"type": "ping"}')]
    for index, (start, deltas) in enumerate(_an_blocks(reply)):
        events.append(_an("content_block_start", index=index, content_block=start))
        events.extend(_an("content_block_delta", index=index, delta=d) for d in deltas)
        events.append(_an("content_block_stop", index=index))
    delta = {"stop_reason": anthropic_stop(reply), "stop_sequence": None}
    events.append(_an("message_delta", delta=delta, usage={"output_tokens": reply.output_tokens}))
    events.append(_an("message_stop"))
    return events


def anthropic_message(reply: Reply, model: str) -> dict[str, Any]:
    """The non-streaming Messages API body for `reply`."""
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": "".join(pieces(reply.text))})
    for index, call in enumerate(reply.calls):
        block = {"type": "tool_use", "id": call.id or f"toolu_{index}", "name": call.name}
        content.append(block | {"input": json.loads(call.json())})
    usage = {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens}
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": anthropic_stop(reply),
        "stop_sequence": None,
        "usage": usage,
    }


def anthropic_thinking_error(body: dict[str, Any]) -> str | None:
    """What the Messages API says about a request that breaks its extended-thinking rules.

    With `thinking` enabled: `budget_tokens` at least 1024 and below `max_tokens`, no
    `temperature` but 1, and an assistant message that used tools must start with the
    thinking blocks it was given, unchanged (the signature is checked).
    """
    thinking = body.get("thinking") or {}
    messages = body.get("messages") or []
    for message in messages:
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            signed = thinking_signature(block.get("thinking", ""))
            if block.get("type") == "thinking" and block.get("signature") != signed:
                return "messages: Invalid `signature` in `thinking` block"
    if thinking.get("type") != "enabled":
        return None
    budget = thinking.get("budget_tokens", 0)
    if budget < 1024:
        return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    if budget >= body.get("max_tokens", 0):
        return "`max_tokens` must be greater than `thinking.budget_tokens`"
    if body.get("temperature", 1) != 1:
        return "`temperature` may only be set to 1 when thinking is enabled"
    assistants = [m for m in messages if m.get("role") == "assistant"]
    last = assistants[-1]["content"] if assistants else []
    if any(b.get("type") == "tool_use" for b in last) and last[0].get("type") not in (
        "thinking",
        "redacted_thinking",
    ):
        return (
            "messages: Expected `thinking` or `redacted_thinking`, but found "
            f"`{last[0].get('type')}`. When `thinking` is enabled, a final `assistant` "
            "message must start with a thinking block"
        )
    return None


def error_body(api: str, status: int, message: str) -> dict[str, Any]:
    """The error JSON each API sends with a failing status."""
    if api == "anthropic":
        kinds = {401: "authentication_error", 403: "permission_error", 429: "rate_limit_error"}
        kind = kinds.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": "fake_error", "code": str(status)}}


def stream_error(api: str, message: str) -> bytes:
    """The SSE bytes of an error reported inside a stream that began with HTTP 200."""
    if api == "anthropic":
        body = {"type": "error", "error": {"type": "overloaded_error", "message": message}}
        return f"event: error\ndata: {json.dumps(body)}\n\n".encode()
    body = {"error": {"message": message, "type": "server_error", "code": None}}
    return f"data: {json.dumps(body)}\n\n".encode()
