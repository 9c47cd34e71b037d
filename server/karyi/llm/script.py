"""The `script:FILE` provider: a recorded sequence of model replies, replayed in order.

For demos (`make run` needs no API key) and for reproducible bug reports: what a
model said, turn by turn, in a file a person can read and edit. Each call to `stream`
plays the next reply, in small chunks so a front end shows it streaming. A reply may
`expect` words in the conversation it answers, so a replay notices when the agent
took another path than the recording. The format is documented in
docs/script-format.md; a script that runs out raises a `config` ProviderError rather
than inventing an answer, since a replay that goes on past its recording shows
something that never happened.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from karyi.core.schema import ParamValidator
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
from karyi.llm.retry import RetryPolicy, Sleep, retrying

_CHUNKS = {"type": ["string", "array"], "items": {"type": "string"}}
_REPLY = {
    "type": "object",
    "properties": {
        "text": _CHUNKS,
        "thinking": _CHUNKS,
        "expect": _CHUNKS,
        "tool_calls": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "arguments": {"type": ["object", "string"]},
                    "id": {"type": "string", "minLength": 1},
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        },
        "usage": {
            "type": "object",
            "properties": {
                "input": {"type": "integer", "minimum": 0},
                "output": {"type": "integer", "minimum": 0},
                "cached": {"type": "integer", "minimum": 0},
            },
            "additionalProperties": False,
        },
        "finish": {"type": "string", "minLength": 1},
        "error": {
            "type": "object",
            "properties": {
                "kind": {
                    "enum": [
                        "auth",
                        "rate_limit",
                        "server",
                        "connection",
                        "timeout",
                        "bad_request",
                        "malformed",
                    ]
                },
                "message": {"type": "string"},
                "retryable": {"type": "boolean"},
            },
            "required": ["kind"],
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}
SCRIPT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string"},
        "chunk": {"type": "integer", "minimum": 1, "description": "characters per text chunk"},
        "delay": {"type": "number", "minimum": 0, "description": "seconds between chunks"},
        "replies": {"type": "array", "items": {"type": ["string", "object"]}},
    },
    "required": ["replies"],
    "additionalProperties": False,
}
_VALIDATOR = ParamValidator(SCRIPT_SCHEMA, noun="field")
_REPLY_VALIDATOR = ParamValidator(_REPLY, noun="field")


@dataclass(frozen=True)
class Script:
    """A loaded, checked script: its replies (as mappings) and how to stream them."""

    path: str
    replies: tuple[Mapping[str, Any], ...]
    chunk: int = 12
    delay: float = 0.0
    description: str = ""


def _problem(path: str, message: str) -> ProviderError:
    return ProviderError("config", f"script {path}: {message}")


def parse_script(text: str, path: str) -> Script:
    """Parse and check a script's text (YAML or JSON); errors name the field."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1} column {where.column + 1}" if where else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise _problem(path, f"not valid YAML{at}: {problem}") from exc
    if isinstance(data, list):
        data = {"replies": data}
    if not isinstance(data, dict):
        raise _problem(path, "expected a mapping with `replies`, or a list of replies")
    found = _VALIDATOR.errors(data)
    if found:
        raise _problem(path, "; ".join(found))
    replies: tuple[Mapping[str, Any], ...] = tuple(
        {"text": r} if isinstance(r, str) else r for r in data["replies"]
    )
    for index, reply in enumerate(replies):
        found = _REPLY_VALIDATOR.errors(reply)
        if found:
            raise _problem(path, "; ".join(f"replies[{index}]: {e}" for e in found))
        for call in reply.get("tool_calls", []):
            _check_arguments(path, index, call)
    return Script(
        path,
        replies,
        chunk=int(data.get("chunk", 12)),
        delay=float(data.get("delay", 0.0)),
        description=str(data.get("description", "")),
    )


def _check_arguments(path: str, index: int, call: Mapping[str, Any]) -> None:
    arguments = call.get("arguments", {})
    if isinstance(arguments, str):
        try:
            json.loads(arguments)
        except json.JSONDecodeError as exc:
            where = f"replies[{index}].tool_calls: {call['name']}"
            raise _problem(path, f"{where}: arguments are not valid JSON ({exc.msg})") from exc


def load_script(path: str | Path) -> Script:
    """Read and check the script file at `path`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise _problem(str(path), f"cannot read it: {exc.strerror or exc}") from exc
    return parse_script(text, str(path))


def _pieces(value: str | Sequence[str], size: int) -> list[str]:
    if not isinstance(value, str):
        return [part for part in value if part]
    return [value[i : i + size] for i in range(0, len(value), size)]


def _answered(messages: Sequence[Message]) -> str:
    """The text the next reply answers: every message after the last assistant one."""
    tail: list[str] = []
    for message in reversed(messages):
        if message.role == "assistant":
            break
        tail.append(message.content)
    return "\n".join(reversed(tail))


class ScriptProvider(Provider):
    """Replays a `Script`, one reply per `stream` call."""

    def __init__(
        self, script: Script, *, sleep: Sleep = asyncio.sleep, retry: RetryPolicy | None = None
    ) -> None:
        self.script = script
        self.label = f"script:{script.path} (replay)"
        self.position = 0
        self._sleep = sleep
        self._retry = retry or RetryPolicy(max_attempts=3, base_delay=0.1, jitter=0, sleep=sleep)

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        """Play the next reply (checking its `expect` first).

        A scripted retryable error before any output is retried as a real provider's
        would be, and the following reply answers the retry.
        """
        return retrying(lambda: self._play(request), self._retry)

    async def _play(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        reply = self._next(request)
        number = self.position
        text = "".join(_pieces(reply.get("text", ""), self.script.chunk))
        for event in self._content(reply, number):
            yield event
            if self.script.delay and isinstance(event, TextChunk | ThinkingChunk):
                await self._sleep(self.script.delay)
        if "error" in reply:
            raise self._error(reply["error"], partial=bool(text or reply.get("tool_calls")))
        yield self._usage(reply, request, text)
        yield Finish(
            str(reply.get("finish") or ("tool_calls" if reply.get("tool_calls") else "stop"))
        )

    def _next(self, request: Request) -> Mapping[str, Any]:
        total = len(self.script.replies)
        if self.position >= total:
            raise _problem(
                self.script.path,
                f"the replay is over: the script has {total} repl{'y' if total == 1 else 'ies'} "
                f"and the agent asked for reply {self.position + 1} (the conversation went "
                "further than the recording)",
            )
        reply = self.script.replies[self.position]
        self.position += 1
        wanted = reply.get("expect", [])
        answered = _answered(request.messages)
        for words in [wanted] if isinstance(wanted, str) else wanted:
            if words not in answered:
                shown = answered if len(answered) <= 300 else answered[:297] + "..."
                raise _problem(
                    self.script.path,
                    f"the conversation diverged from the recording: reply {self.position} "
                    f"expects the latest messages to contain {words!r}, but they were: {shown!r}",
                )
        return reply

    def _content(self, reply: Mapping[str, Any], number: int) -> list[StreamEvent]:
        size = self.script.chunk
        out: list[StreamEvent] = [
            ThinkingChunk(p) for p in _pieces(reply.get("thinking", ""), size)
        ]
        out.extend(TextChunk(p) for p in _pieces(reply.get("text", ""), size))
        for slot, call in enumerate(reply.get("tool_calls", [])):
            arguments = call.get("arguments", {})
            encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)
            call_id = call.get("id") or f"call_{number}_{slot}"
            out.append(ToolCallChunk(slot, id=call_id, name=call["name"]))
            out.extend(ToolCallChunk(slot, arguments=p) for p in _pieces(encoded, size))
            out.append(ToolCallEnd(slot))
        return out

    def _usage(self, reply: Mapping[str, Any], request: Request, text: str) -> Usage:
        given = reply.get("usage", {})
        # Without recorded figures, estimate at about four characters per token.
        prompt = sum(len(m.content) for m in request.messages) // 4
        return Usage(
            int(given.get("input", prompt)),
            int(given.get("output", max(1, len(text) // 4))),
            int(given.get("cached", 0)),
        )

    def _error(self, spec: Mapping[str, Any], *, partial: bool) -> ProviderError:
        kind = str(spec["kind"])
        retryable = bool(
            spec.get("retryable", kind in ("rate_limit", "server", "connection", "timeout"))
        )
        message = str(spec.get("message") or f"scripted {kind} error")
        return ProviderError(kind, f"{self.label}: {message}", retryable=retryable, partial=partial)
