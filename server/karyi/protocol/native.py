"""`native`: provider function calling (docs/protocol.md#native--provider-function-calling).

The provider streams text and function-call fragments separately; this dialect
assembles each call's argument fragments (OpenAI `tool_calls` deltas, Anthropic
`input_json_delta`) and emits the call when the provider says it is complete. Results
go back as provider-neutral tool-result messages that each provider adapter maps to
its own shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from karyi.protocol.base import Dialect, StreamParser, no_schemas
from karyi.protocol.calls import (
    MALFORMED,
    CallOutcome,
    CallReady,
    CallStarted,
    DialectState,
    ParseEvent,
    PartialCall,
    SchemaLookup,
    TextDelta,
    ToolCall,
)
from karyi.protocol.jsonscan import JsonSlip, loads_lenient, partial_json


@dataclass
class _Pending:
    index: int
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    announced: bool = False


class NativeParser(StreamParser):
    """Assembles streamed function calls; text chunks pass through as prose."""

    def __init__(self, schemas: SchemaLookup, state: DialectState | None) -> None:
        self.schemas = schemas
        self.state = state if state is not None else DialectState()
        self._pending: dict[int, _Pending] = {}
        self._next_index = 0
        self._out: list[ParseEvent] = []

    def feed(self, chunk: str) -> list[ParseEvent]:
        """Text from the provider's content stream."""
        if chunk:
            self._out.append(TextDelta(chunk))
        return self._drain()

    def feed_call(
        self,
        slot: int,
        *,
        call_id: str | None = None,
        name: str | None = None,
        arguments: str = "",
    ) -> list[ParseEvent]:
        """One function-call fragment for stream slot `slot` (the provider's index).

        A fragment for a higher slot completes every lower one still open, which is how
        OpenAI-compatible streams signal the end of a call. A fragment carrying a new id
        for a slot whose call already has another id starts a new call (some
        OpenAI-compatible servers send every call of a reply in slot 0).
        """
        for other in sorted(k for k in self._pending if k < slot):
            self._finish(other)
        p = self._pending.get(slot)
        if p is not None and call_id and p.id and call_id != p.id:
            self._finish(slot)
            p = None
        if p is None:
            p = self._pending[slot] = _Pending(self._next_index)
            self._next_index += 1
        if call_id:
            p.id = call_id
        if name and name != p.name:
            p.name = name if not p.name else p.name + name  # some servers stream the name
        if arguments:
            p.parts.append(arguments)
        # Some servers stream the name in pieces: announce it once the arguments begin
        # (or the call ends), when it is whole.
        if p.name and p.parts:
            self._announce(p)
        return self._drain()

    def partial(self) -> PartialCall | None:
        """See `StreamParser.partial`: the latest call still open, its arguments so far."""
        if not self._pending:
            return None
        p = max(self._pending.values(), key=lambda x: x.index)
        if not p.name:
            return None
        params, opened = partial_json("".join(p.parts))
        if not isinstance(params, dict):
            params, opened = {}, ()
        return PartialCall(p.index, p.name, params, opened, p.id)

    def _announce(self, p: _Pending) -> None:
        if not p.announced:
            p.announced = True
            self._out.append(CallStarted(p.index, p.name))

    def end_call(self, slot: int) -> list[ParseEvent]:
        """The provider closed slot `slot` (Anthropic `content_block_stop`)."""
        if slot in self._pending:
            self._finish(slot)
        return self._drain()

    def add_call(self, call_id: str, name: str, arguments: Any) -> list[ParseEvent]:
        """A complete call given at once (a non-streamed message)."""
        slot = max(self._pending, default=-1) + 1
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        events = self.feed_call(slot, call_id=call_id, name=name, arguments=text)
        return events + self.end_call(slot)

    def reject(self, raw: str, error: str) -> list[ParseEvent]:
        """Report part of a message that is not a call the dialect understands."""
        self.state.calls_seen += 1
        call = ToolCall(
            index=self._next_index,
            name="",
            params={},
            id=f"call_{self.state.calls_seen}",
            raw=raw,
            error=error,
            error_code=MALFORMED,
        )
        self._next_index += 1
        self._out.append(CallReady(call))
        return self._drain()

    def close(self) -> list[ParseEvent]:
        """The reply ended: every open call is complete."""
        for slot in sorted(self._pending, key=lambda k: self._pending[k].index):
            self._finish(slot)
        return self._drain()

    def _finish(self, slot: int) -> None:
        p = self._pending.pop(slot)
        if p.name:
            self._announce(p)
        index = p.index
        raw = "".join(p.parts)
        self.state.calls_seen += 1
        call_id = p.id or f"call_{self.state.calls_seen}"
        error: str | None = None
        code = ""
        params: Any = {}
        if not p.name:
            error = "function call has no name"
        else:
            try:
                params = loads_lenient(raw) if raw.strip() else {}
            except JsonSlip as exc:
                error = f"{p.name}: arguments are not valid JSON ({exc})"
            if error is None and not isinstance(params, dict):
                error = f"{p.name}: arguments must be a JSON object, got {type(params).__name__}"
        if call_id in self.state.used_ids:
            # The provider, not the model, chose this id (some servers number calls
            # per reply): give the call a fresh one; its result will carry the same.
            n = 2
            while f"{call_id}~{n}" in self.state.used_ids:
                n += 1
            call_id = f"{call_id}~{n}"
        self.state.used_ids.add(call_id)
        call = ToolCall(
            index=index,
            name=p.name,
            params=params if error is None else {},
            id=call_id,
            raw=raw,
            error=error,
            error_code=code or ("malformed_call" if error else ""),
        )
        self._out.append(CallReady(call))

    def _drain(self) -> list[ParseEvent]:
        out, self._out = self._out, []
        return out


def parse_message(parser: NativeParser, message: Any) -> list[ParseEvent]:
    """Feed a complete assistant message in any common shape into `parser`.

    Accepts an OpenAI message (`content`, `tool_calls`), a list of OpenAI tool calls, an
    Anthropic message or content list (`text` and `tool_use` blocks), or a Gemini content
    or its parts (`text` and `functionCall`). Anything else is reported as a malformed
    call.
    """
    events: list[ParseEvent] = []
    items: list[Any]
    if isinstance(message, dict) and isinstance(message.get("parts"), list):
        items = message["parts"]
    elif isinstance(message, dict) and ("tool_calls" in message or "content" in message):
        content = message.get("content")
        if isinstance(content, str):
            events += parser.feed(content)
            items = _as_list(message.get("tool_calls"))
        else:
            items = _as_list(content) + _as_list(message.get("tool_calls"))
    elif isinstance(message, list):
        items = message
    else:
        items = [message]
    for item in items:
        events += _feed_item(parser, item)
    return events + parser.close()


def _as_list(value: Any) -> list[Any]:
    """A message field that should hold a list: absent is empty, a lone value is one item."""
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _feed_item(parser: NativeParser, item: Any) -> list[ParseEvent]:
    if isinstance(item, dict):
        if item.get("type", "text") == "text" and isinstance(item.get("text"), str):
            return parser.feed(item["text"])
        fn = item.get("function")
        if isinstance(fn, dict):
            return parser.add_call(
                str(item.get("id") or ""), str(fn.get("name") or ""), fn.get("arguments") or ""
            )
        if item.get("type") == "tool_use":
            return parser.add_call(
                str(item.get("id") or ""), str(item.get("name") or ""), item.get("input") or {}
            )
        fc = item.get("functionCall") or item.get("function_call")
        if isinstance(fc, dict):
            return parser.add_call(
                str(fc.get("id") or ""),
                str(fc.get("name") or ""),
                fc.get("args") or fc.get("arguments") or {},
            )
        if "name" in item and ("arguments" in item or "args" in item or "input" in item):
            args = item.get("arguments", item.get("args", item.get("input")))
            return parser.add_call(str(item.get("id") or ""), str(item["name"]), args)
    raw = json.dumps(item, default=str)[:200]
    return parser.reject(raw, f"not a text part or a function call: {raw}")


class Native(Dialect):
    """Provider function calling."""

    name = "native"
    summary = "provider function calling (OpenAI tools / Anthropic tool_use)"

    def parser(
        self, schemas: SchemaLookup = no_schemas, state: DialectState | None = None
    ) -> NativeParser:
        """See `Dialect.parser`."""
        return NativeParser(schemas, state)

    def result_messages(self, outcomes: Sequence[CallOutcome]) -> list[dict[str, Any]]:
        """Provider-neutral tool results: `tool_call_id`, `name`, `content`, `is_error`."""
        return [
            {
                "tool_call_id": o.call.id,
                "name": o.call.name,
                "content": o.content,
                "is_error": not o.success,
            }
            for o in outcomes
        ]

    def render_results(self, outcomes: Sequence[CallOutcome]) -> str:
        """The tool-result messages as JSON (what `karyi exec` prints)."""
        return json.dumps(self.result_messages(outcomes), ensure_ascii=False, indent=2)

    def format_call(self, name: str, params: Mapping[str, Any]) -> str:
        """A function call as the provider would carry it."""
        return json.dumps({"name": name, "arguments": dict(params)}, ensure_ascii=False)

    def instructions(self) -> str:
        """Native calling needs no syntax rules, only conduct."""
        return _INSTRUCTIONS

    @staticmethod
    def declarations(tools: Sequence[tuple[str, str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
        """Function declarations (`name`, `description`, `parameters`) for the provider."""
        return [{"name": n, "description": d, "parameters": dict(schema)} for n, d, schema in tools]


_INSTRUCTIONS = """\
# How to use tools (function calling)
Call tools through the function-calling interface; several calls in one reply may
run in parallel. Each result comes back as a tool-result message. Use $KARYI{NAME} in
any argument to insert a secret the user stored; never ask for its value.
"""
