"""Every event class is named after its wire kind (`toolAwaitingPermission` is
`ToolAwaitingPermission`), so the one is found from the other."""

from __future__ import annotations

from karyi.agent import events


def test_each_event_class_is_named_after_its_kind() -> None:
    classes = [
        c
        for c in vars(events).values()
        if isinstance(c, type) and issubclass(c, events.Event) and c is not events.Event
    ]
    assert len(classes) == 21
    wrong = {c.__name__: c.kind for c in classes if c.__name__ != c.kind[0].upper() + c.kind[1:]}
    assert not wrong
