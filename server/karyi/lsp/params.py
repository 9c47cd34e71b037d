"""Parameters of Karyi's custom LSP methods: plain JSON in, checked against the schema
derived from their types (`lsp/wire/params.py`).

pygls hands custom params over as nested `Object` namedtuples; they are turned back
into plain dicts (core/plain_json.py) and validated, so a malformed request gets a JSON-RPC "invalid
params" error that names the field and what was expected — the same wording as tool
parameter errors.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from karyi.core.plain_json import plain
from karyi.core.typed_schema import method_schema, object_schema
from karyi.lsp.wire.params import METHODS, Range

if TYPE_CHECKING:
    from cattrs import Converter

    from karyi.core.schema import ParamValidator


RANGE = object_schema(Range)
"""An LSP range, for the editor commands' arguments."""


@functools.cache
def schemas() -> dict[str, dict[str, Any]]:
    """Each custom method's parameter schema, derived from `wire/params.py`."""
    return {method: method_schema(cls) for method, cls in METHODS.values() if cls is not None}


@functools.cache
def _validator(method: str) -> ParamValidator:
    from karyi.core.schema import ParamValidator  # jsonschema: loaded on the first request

    schema = {"type": "object", "additionalProperties": False, **schemas()[method]}
    return ParamValidator(schema, noun="field")


@functools.cache
def _converter() -> Converter:
    from lsprotocol.converters import get_converter

    return get_converter()


def lsp_json(value: Any) -> Any:
    """An lsprotocol value (a Range, a list of Diagnostics) as the plain JSON the client
    sent, for command arguments that go back to the client."""
    return _converter().unstructure(value)


def checked(method: str, raw: Any) -> dict[str, Any]:
    """The params of `method` as a dict, or JsonRpcInvalidParams naming what was wrong."""
    params = plain(raw) if raw is not None else {}
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(f"{method}: params must be an object")
    errors = _validator(method).errors(params)
    if errors:
        raise JsonRpcInvalidParams(f"{method}: " + "; ".join(errors))
    return params
