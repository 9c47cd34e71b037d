"""Built-in tools' parameters as attrs classes: one class, the schema and the values
(docs/tools.md#parameters).

A built-in tool names its parameter class as its base's argument
(`class ReadFile(TypedTool[ReadFileParams])`); from that class come the JSON Schema
(core/typed_schema.py: the prompt's parameter text and the validation both read it)
and, at each call, a typed instance of the validated parameters (`self.args(params)`,
core/typed_json.py) that the tool's hooks read instead of the raw mapping. Tools whose
schema comes from outside (MCP servers, discovery commands) stay plain `Tool`s over a
mapping.
"""

from __future__ import annotations

import copy
import functools
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar, cast

import attrs

from karyi.core.typed_json import fields_from_json
from karyi.core.typed_schema import object_schema
from karyi.tools.base import Tool

P = TypeVar("P")


class ToolParams:
    """The base of a parameter class: it takes no other key (`additionalProperties:
    false`) and its JSON keys are the Python names unless a field or the class says
    otherwise (`snake = False`: camelCase, for the agentxml tools)."""

    closed = True
    snake = True


def arg(**keys: Any) -> Any:
    """One parameter, its JSON Schema keywords in the order the schema lists them:
    `description`, `min_length`, `max_length`, `pattern`, `minimum`, `maximum`,
    `exclusive_minimum`, `min_items`, `items` (the elements' constraints), `name` (the
    JSON key, when neither the class's rule nor camelCase gives it) and `default` (stated
    in the schema); `implied` is a default the schema does not state. A parameter with
    neither is required. A tool's parameter is never `null`: `X | None` only may be
    left out."""
    default = keys.pop("implied", keys.get("default", attrs.NOTHING))
    if isinstance(default, list | dict):
        default = attrs.Factory(functools.partial(copy.copy, default))
    return attrs.field(default=default, metadata={"nullable": False, **keys})


@typing.dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(arg,))
def param_class(cls: type[P]) -> type[P]:
    """Make `cls` a parameter class: frozen attrs, every field a keyword (so required and
    optional parameters keep the order the prompt shows them in)."""
    return attrs.frozen(kw_only=True)(cls)


class TypedTool(Tool, Generic[P]):
    """A tool whose parameters are the attrs class `P`: the schema is derived from it."""

    Params: ClassVar[type[Any]]
    """The parameter class (set from the base's argument)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in cls.__dict__.get("__orig_bases__", ()):  # not a subclass of a typed tool
            found = [a for a in typing.get_args(base) if attrs.has(a)]
            if found:
                cls.Params = found[0]
                cls.parameters = copy.deepcopy(object_schema(found[0]))

    def args(self, params: Mapping[str, Any]) -> P:
        """The validated `params` as a `P` (a key left out takes the field's default)."""
        return cast(P, self.Params(**fields_from_json(self.Params, params)))
