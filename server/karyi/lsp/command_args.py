"""The argument of each Karyi `workspace/executeCommand` command (docs/editors.md#commands).

Every command takes at most one argument, an object. Editors do not agree on how to
send "nothing": Lua's empty table `{}` is encoded as `[]`, so `arguments = { {} }` in
Neovim arrives as `[[]]` and `arguments = {}` as `[]`. An empty list, an empty object,
`null` or no argument at all all mean "no argument"; a bare string is the message. Any
other shape is InvalidParams naming the command and the object it expects.
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from karyi.core.plain_json import plain
from karyi.lsp.params import RANGE

_TASK = "{uri, range?, diagnostics?, sessionId?, newSession?}"
EXPECTED: dict[str, str] = {
    "karyi.chat": "{message, sessionId?, newSession?}",
    "karyi.newChat": "{message?}",
    "karyi.explainSelection": _TASK,
    "karyi.fixDiagnostics": _TASK,
    "karyi.writeTests": _TASK,
    "karyi.init": "{sessionId?, newSession?} or no argument",
    "karyi.cancel": "{sessionId?} or no argument",
    "karyi.setMode": "{mode: 'plan' | 'act', sessionId?} or the mode as a string",
    "karyi.acceptAll": "{sessionId?} or no argument",
    "karyi.rejectAll": "{sessionId?} or no argument",
    "karyi.review": "{base?, commit?, paths?} or no argument",
    "karyi.dismissFinding": "{uri, id}",
}
"""What each command expects, as its error messages and docs/editors.md say it."""

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "uri": {"type": "string"},
        "range": RANGE,
        "diagnostics": {"type": "array"},
        "sessionId": {"type": ["string", "null"]},
        "newSession": {"type": "boolean"},
        "message": {"type": "string"},
        "mode": {"type": "string", "enum": ["plan", "act"]},
        "base": {"type": "string", "minLength": 1},
        "commit": {"type": "string", "minLength": 1},
        "paths": {"type": "array", "items": {"type": "string"}},
        "id": {"type": "string"},
    },
}


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {}


def command_args(command: str, args: Any) -> dict[str, Any]:
    """The command's one object argument ({} for none), or InvalidParams that names the
    command and what it expected."""
    items = plain(args)
    if _empty(items):
        return {}
    if not isinstance(items, list):
        items = [items]
    expected = EXPECTED.get(command, "one object")
    if len(items) > 1:
        raise JsonRpcInvalidParams(
            f"{command}: expected one argument, {expected}; got {len(items)} arguments"
        )
    first = items[0]
    if _empty(first):
        return {}
    if isinstance(first, str):
        first = {"message": first}
    if not isinstance(first, dict):
        raise JsonRpcInvalidParams(
            f"{command}: arguments[0]: expected {expected}, got {_kind(first)}"
        )
    from karyi.core.schema import ParamValidator

    errors = ParamValidator(SCHEMA, noun="argument").errors(first)
    if errors:
        raise JsonRpcInvalidParams(f"{command}: " + "; ".join(errors) + f" (expected {expected})")
    return first


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list with items"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return type(value).__name__
