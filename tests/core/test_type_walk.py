"""The one walk over the wire's type grammar (core/type_walk.py) that the TypeScript
writer, the tests' shape check and the JSON Schema share."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import attrs
import pytest

from karyi.core.type_walk import members, walk


class Spell:
    """A visitor that spells each form back, so a test can see which form was picked."""

    def annotated(self, hint: Any, wire: Any) -> str:
        return f"{walk(hint, self)} as {walk(wire, self)}"

    def literal(self, values: tuple[Any, ...]) -> str:
        return "one of " + ",".join(values)

    def union(self, options: tuple[Any, ...]) -> str:
        return " or ".join(walk(o, self) for o in options)

    def null(self) -> str:
        return "null"

    def unknown(self) -> str:
        return "any"

    def array(self, item: Any) -> str:
        return f"[{walk(item, self)}]"

    def mapping(self, value: Any) -> str:
        return f"{{{walk(value, self)}}}"

    def scalar(self, kind: type) -> str:
        return kind.__name__

    def object(self, cls: type) -> str:
        return cls.__name__


@attrs.define
class Params:
    session_id: str
    mode: Literal["plan", "act"] | None = attrs.field(default=None, metadata={"nullable": False})


@dataclasses.dataclass
class Record:
    id: str
    files: list[str]


class Answer(TypedDict):
    ok: bool
    note: NotRequired[str]


@pytest.mark.parametrize(
    ("hint", "spelt"),
    [
        (str | None, "str or null"),
        (list[int], "[int]"),
        (list, "[any]"),
        (tuple[float, ...], "[float]"),
        (dict[str, Record], "{Record}"),
        (dict, "{any}"),
        (Literal["a", "b"], "one of a,b"),
        (Annotated[dict[str, Any], Record], "{any} as Record"),
        (Any, "any"),
        (object, "any"),
    ],
)
def test_each_form_goes_to_its_visitor_method(hint: Any, spelt: str) -> None:
    assert walk(hint, Spell()) == spelt


def test_a_hint_outside_the_grammar_is_refused() -> None:
    with pytest.raises(TypeError, match="not a type of the wire"):
        walk(set[str], Spell())


def test_members_of_each_kind_of_class() -> None:
    session, mode = members(Params, camel_keys=True)
    assert (session.key, session.name, session.optional) == ("sessionId", "session_id", False)
    assert mode.optional and walk(mode.wire_hint, Spell()) == "one of plan,act"  # never null
    assert [(m.key, m.optional) for m in members(Record, False)] == [
        ("id", False),
        ("files", False),
    ]
    assert [(m.key, m.optional) for m in members(Answer, False)] == [("ok", False), ("note", True)]
