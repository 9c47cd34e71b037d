"""Shared helpers for the protocol tests: feeding parsers in chunks, summarising events."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import quoteattr

from karyi.protocol import (
    CallReady,
    CallStarted,
    DialectState,
    ParseEvent,
    StreamParser,
    TextDelta,
    ToolCall,
    get_dialect,
)
from karyi.protocol.calls import SchemaLookup


def schemas_of(table: Mapping[str, Mapping[str, Any]]) -> SchemaLookup:
    """A schema lookup backed by a dict of tool name -> JSON Schema."""
    return lambda name: table.get(name)


def obj_schema(required: Sequence[str] = (), **props: str | Mapping[str, Any]) -> dict[str, Any]:
    """A JSON Schema for an object whose properties are given as `name=type`."""
    properties = {k: ({"type": v} if isinstance(v, str) else dict(v)) for k, v in props.items()}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def split_at(text: str, cuts: Iterable[int]) -> list[str]:
    """`text` cut at the given offsets (duplicates and out-of-range offsets are ignored)."""
    points = sorted({c for c in cuts if 0 < c < len(text)})
    out: list[str] = []
    prev = 0
    for c in [*points, len(text)]:
        out.append(text[prev:c])
        prev = c
    return out


def feed_all(
    parser: StreamParser, chunks: Iterable[str], *, close: bool = True
) -> list[ParseEvent]:
    """Feed every chunk, then close (unless told not to); all events in order."""
    events: list[ParseEvent] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    if close:
        events += parser.close()
    return events


def parse(
    dialect: str,
    text: str,
    *,
    schemas: SchemaLookup | None = None,
    state: DialectState | None = None,
    chunks: Sequence[str] | None = None,
) -> list[ParseEvent]:
    """Parse `text` (one shot, or in the given chunks) with a fresh parser."""
    d = get_dialect(dialect)
    parser = d.parser(schemas, state) if schemas is not None else d.parser(state=state)
    if chunks is None:
        return parser.parse(text)
    assert "".join(chunks) == text
    return feed_all(parser, chunks)


def calls(events: Iterable[ParseEvent]) -> list[ToolCall]:
    """The finished calls among events."""
    return [e.call for e in events if isinstance(e, CallReady)]


def starts(events: Iterable[ParseEvent]) -> list[CallStarted]:
    """The CallStarted events."""
    return [e for e in events if isinstance(e, CallStarted)]


def texts(events: Iterable[ParseEvent]) -> dict[str, str]:
    """The concatenated text of each channel that had any."""
    out: dict[str, str] = {}
    for e in events:
        if isinstance(e, TextDelta):
            out[e.channel] = out.get(e.channel, "") + e.text
    return out


def named(events: Iterable[ParseEvent]) -> list[tuple[str, dict[str, Any]]]:
    """(name, params) of every call, asserting each one parsed cleanly."""
    out = []
    for call in calls(events):
        assert call.error is None, call
        out.append((call.name, call.params))
    return out


def errors(events: Iterable[ParseEvent]) -> list[tuple[str, str, str]]:
    """(name, error, error_code) of every call that has an error."""
    return [(c.name, c.error, c.error_code) for c in calls(events) if c.error is not None]


@dataclass(frozen=True)
class Summary:
    """Everything a chunking must not change."""

    calls: list[ToolCall]
    texts: dict[str, str]


def summary(events: Sequence[ParseEvent]) -> Summary:
    """Calls and per-channel text of a parse."""
    return Summary(calls(events), texts(events))


def xml_attr(value: str) -> str:
    """An XML attribute value, quoted, with whitespace characters kept exact."""
    return quoteattr(value, {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


def cdata(text: str) -> str:
    """`text` as CDATA, split around `]]>`."""
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def examples(default: int) -> int:
    """Hypothesis example count: `default`, or KARYI_FUZZ_SCALE times it for long runs."""
    return default * int(os.environ.get("KARYI_FUZZ_SCALE", "1"))
