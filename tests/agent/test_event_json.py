"""The events' JSON is the contract of docs/protocol.md (`karyi/turnUpdate`): pinned
byte for byte by a recording, and described exactly by the types the extension gets
(protocol.gen.ts, generated from agent/events.py)."""

from __future__ import annotations

import json
from pathlib import Path

from karyi.agent.events import Event
from karyi.core.type_walk import members
from karyi.lsp.wire.typescript import FORMS
from tests.support.sample_events import sample_events

RECORDED = Path(__file__).parent / "data" / "events.json"


def test_every_event_kind_is_sampled() -> None:
    kinds = {type(e) for e in sample_events(Path("/ws"))}
    assert kinds == set(_subclasses(Event))


def test_the_events_json_is_byte_identical_to_the_recording() -> None:
    events = [e.to_dict() for e in sample_events(Path("/ws"))]
    assert json.dumps(events, indent=1, ensure_ascii=False) + "\n" == RECORDED.read_text()


def test_the_generated_types_name_exactly_the_keys_sent() -> None:
    known = {c.__name__: c for c in FORMS}
    for event in sample_events(Path("/ws")):
        declared = {m.key for m in members(type(event), True, known)}
        assert set(event.to_dict()) == {"type", *declared}, type(event).__name__


def _subclasses(cls: type) -> list[type]:
    return [s for c in cls.__subclasses__() for s in (c, *_subclasses(c))]
